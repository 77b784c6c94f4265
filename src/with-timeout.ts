/**
 * Bounding a wait: the one race-against-a-timer (and against an abort) helper of the code base.
 */

/**
 * Resolves or rejects with `work`, or rejects with `onTimeout()` once `ms` passed. The timer does not keep
 * the process alive: a wait that can never end (its browser or server closed) must not delay an exit.
 */
export function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  onTimeout: () => Error = () => new Error(`no answer within ${ms} ms`),
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(onTimeout()), Math.max(0, ms)).unref()));
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** Resolves or rejects with `work`, or rejects with the signal's reason as soon as it aborts. */
export function withAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener('abort', onAbort as () => void));
}
