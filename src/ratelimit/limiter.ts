/** The result of counting one request against a limit. A denial is a normal result, not an error. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the current window after this one (after none of it, when it was refused). */
  remaining: number;
  /** Milliseconds until the current window ends. */
  resetMs: number;
}

/**
 * Fixed-window counter per key. `hit` decides and counts in one atomic step (no read-then-write), so N
 * concurrent hits against a limit of L admit exactly min(N, L). A refused hit is not counted: a request
 * turned away spends nothing of the window.
 */
export interface RateLimiter {
  readonly kind: string;
  /** Counts `weight` requests (default 1: an assembly counts each of its parts) when they all fit the limit, else none. */
  hit(key: string, limit: number, windowMs: number, weight?: number): Promise<RateDecision>;
  close(): Promise<void>;
}

/** The decision for a window that counted `count` requests (this hit's included when it was allowed). */
export function decide(allowed: boolean, count: number, limit: number, resetMs: number): RateDecision {
  return { allowed, limit, remaining: Math.max(0, limit - count), resetMs: Math.max(0, resetMs) };
}
