/**
 * When a failed delivery is tried again: Standard-Webhooks-like back-off, 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 6 h after each failure — the last attempt 23.6 h after the first, eight attempts — then the event
 * is exhausted. Standard Webhooks peers wait 10 h twice at the end; the last wait is cut so that retries
 * end within the day the product promises.
 */

/** Waits after the 1st, 2nd, … failed attempt. */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 21_600_000];

/** Attempts in all: the first plus one per delay. */
export const MAX_WEBHOOK_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * The wait before the next attempt after `failedAttempts` failures, or null when none is left.
 * `scale` shrinks the schedule (WEBHOOK_RETRY_SCALE) for test and staging set-ups.
 */
export function nextRetryDelay(failedAttempts: number, scale = 1): number | null {
  const delay = RETRY_DELAYS_MS[failedAttempts - 1];
  return delay === undefined ? null : Math.round(delay * scale);
}
