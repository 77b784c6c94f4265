/**
 * Bounding a wait: the one race-against-a-timer helper of the code base.
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
