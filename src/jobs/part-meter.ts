/**
 * An assembly job's parts count against the account's render limit as they are made. At submit a job is
 * charged what one window can take (app/service-auth.ts spendMore: at most the limit); the parts beyond
 * that are charged here, one at a time as each starts, and when the account's window is spent the job
 * waits for the next one. A 5,000-part job on a limit of 120 a minute is 5,000 renders over 42 minutes,
 * not 120 renders at once.
 */
import { type Config, defaultLimit } from '../config.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import type { AccountStore } from '../store/account-queries.js';

/** Charges an account's parts against its render limit, waiting while its window is spent. */
export interface PartMeter {
  /** Resolves once one more render of the account fits its limit (counted); rejects when `signal` aborts. */
  charge(accountId: string, signal: AbortSignal): Promise<void>;
}

/** What the meter counts with. */
export interface PartMeterDeps {
  limiter: Pick<RateLimiter, 'hit'>;
  store: Pick<AccountStore, 'findAccountById'>;
  config: Pick<Config, 'renderRateLimit' | 'metadataRateLimit' | 'rateLimitWindowS'>;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The meter over the service's own limiter and the same key and limit `authenticate` counts with. */
export function partMeter({ limiter, store, config }: PartMeterDeps): PartMeter {
  const windowMs = config.rateLimitWindowS * 1000;
  return {
    async charge(accountId, signal) {
      for (;;) {
        const account = await store.findAccountById(accountId);
        const limit = account?.limits.render ?? defaultLimit(config, 'render');
        const decision = await limiter.hit(`render:${accountId}`, limit, windowMs);
        if (decision.allowed) return;
        // Spent: the part waits for the next window (a job is not waited on by a connection).
        await sleep(Math.max(50, decision.resetMs), signal);
      }
    },
  };
}
