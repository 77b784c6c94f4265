/**
 * When to try again: on 429 and 503 only, after the service's Retry-After when it sends one, else after
 * an exponential back-off with jitter; never more than `attempts` tries or `maxWaitMs` of waiting in all.
 */

/** Retry settings; `false` in the client options turns retrying off. */
export interface RetryOptions {
  /** Most tries in all, the first included (default 4). */
  attempts?: number;
  /** Most time spent waiting between tries, summed (default 70 s: one rate-limit window and change). */
  maxWaitMs?: number;
  /** First back-off when the answer has no Retry-After (default 500 ms), doubled per try up to 8 s. */
  baseDelayMs?: number;
}

/** Resolved retry settings. */
export interface RetryPolicy {
  attempts: number;
  maxWaitMs: number;
  baseDelayMs: number;
}

/** Called before each wait; for logging and metrics in the caller's process. */
export type RetryListener = (event: { attempt: number; status: number; code: string; delayMs: number }) => void;

const MAX_BACKOFF_MS = 8000;

/** Fills in the defaults; `false` gives a single try. */
export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return { attempts: 1, maxWaitMs: 0, baseDelayMs: 0 };
  return {
    attempts: Math.max(1, options?.attempts ?? 4),
    maxWaitMs: Math.max(0, options?.maxWaitMs ?? 70_000),
    baseDelayMs: Math.max(0, options?.baseDelayMs ?? 500),
  };
}

/** Whether an answer with this status is worth another try (rate limited, overloaded, store unavailable). */
export function isRetryable(status: number): boolean {
  return status === 429 || status === 503;
}

/** Parses Retry-After: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * The wait before try `attempt + 1` (attempt counts from 1), or undefined when the policy says stop:
 * tries used up, or the wait would take the total past maxWaitMs.
 */
export function nextDelay(
  policy: RetryPolicy,
  attempt: number,
  waitedMs: number,
  retryAfterS: number | undefined,
): number | undefined {
  if (attempt >= policy.attempts) return undefined;
  // Full jitter spreads clients that were refused together, so they do not come back together.
  const backoff = Math.random() * Math.min(MAX_BACKOFF_MS, policy.baseDelayMs * 2 ** (attempt - 1));
  // Retry-After is a floor set by the service; coming back earlier would only be refused again.
  const delay = retryAfterS === undefined ? backoff : retryAfterS * 1000 + Math.random() * 250;
  return waitedMs + delay > policy.maxWaitMs ? undefined : Math.round(delay);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
