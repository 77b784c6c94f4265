/** The result of counting one request against a limit. A denial is a normal result, not an error. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the current window after this one. */
  remaining: number;
  /** Milliseconds until the current window ends. */
  resetMs: number;
}

/**
 * Fixed-window counter per key. `hit` counts the request and decides in one atomic step
 * (no read-then-write), so N concurrent hits against a limit of L admit exactly min(N, L).
 */
export interface RateLimiter {
  readonly kind: string;
  /** Counts `weight` requests (default 1: an assembly counts each of its parts) and decides for the last of them. */
  hit(key: string, limit: number, windowMs: number, weight?: number): Promise<RateDecision>;
  close(): Promise<void>;
}

/** The decision for the `count`-th request of a window. */
export function decide(count: number, limit: number, resetMs: number): RateDecision {
  return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetMs: Math.max(0, resetMs) };
}
