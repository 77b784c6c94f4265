import type { ApiService } from '../config.js';
import { utcDay } from '../ids.js';
import type { UsageOutcome } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { BatchedWrites } from './batched-writes.js';

/** The usage outcome of an HTTP status. */
export function outcomeOf(status: number): UsageOutcome {
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  if (status >= 400) return 'client_error';
  return 'ok';
}

/** Counts authenticated requests per account, service, UTC day and outcome; written in batches. */
export class UsageRecorder {
  private readonly batch: BatchedWrites<number>;

  constructor(store: Store, intervalMs = 10_000, onError?: (err: unknown) => void, private readonly now = Date.now) {
    this.batch = new BatchedWrites<number>(
      (a, b) => a + b,
      (entries) =>
        store.addUsage(
          entries.map(([key, count]) => {
            const [accountId, service, day, outcome] = key.split('\t') as [string, ApiService, string, UsageOutcome];
            return { accountId, service, day, outcome, count };
          }),
        ),
      intervalMs,
      onError,
    );
  }

  /** Counts one request. */
  record(accountId: string, service: ApiService, outcome: UsageOutcome): void {
    this.batch.add(`${accountId}\t${service}\t${utcDay(this.now())}\t${outcome}`, 1);
  }

  /** Writes pending counts now. */
  flush(): Promise<void> {
    return this.batch.flush();
  }

  /** Stops the timer and writes pending counts. */
  close(): Promise<void> {
    return this.batch.close();
  }
}

/** Records when each key was last used; at most one store write per key per interval, only forward. */
export class LastUsedRecorder {
  private readonly batch: BatchedWrites<number>;

  constructor(store: Store, intervalMs = 30_000, onError?: (err: unknown) => void) {
    this.batch = new BatchedWrites<number>(
      Math.max,
      (entries) => store.touchKeys(entries.map(([keyId, at]) => ({ keyId, at }))),
      intervalMs,
      onError,
    );
  }

  /** Notes a use of the key at `at` (epoch ms). */
  record(keyId: string, at: number): void {
    this.batch.add(keyId, at);
  }

  /** Writes pending timestamps now. */
  flush(): Promise<void> {
    return this.batch.flush();
  }

  /** Stops the timer and writes pending timestamps. */
  close(): Promise<void> {
    return this.batch.close();
  }
}
