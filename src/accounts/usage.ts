import { BatchedWrites } from '../batched-writes.js';
import type { ApiService } from '../config.js';
import type { KeyStore } from '../store/key-queries.js';
import type { KeyUsageIncrement, KeyUsageStore, UsageBatch } from '../store/key-usage-queries.js';
import type { UsageOutcome } from '../store/schema.js';
import type { UsageIncrement } from '../store/usage-queries.js';

/**
 * The usage outcome of a service's HTTP status. A metadata 502/504 means the page the user asked for
 * failed (DNS, refused, non-2xx, timeout): a target error, not ours.
 */
export function outcomeOf(status: number, service: ApiService): UsageOutcome {
  if (status === 429) return 'rate_limited';
  if (service === 'metadata' && (status === 502 || status === 504)) return 'target_error';
  if (status >= 500) return 'server_error';
  if (status >= 400) return 'client_error';
  return 'ok';
}

const HOUR_MS = 3_600_000;
/** Hourly counters are kept this long: enough for a "last 24 hours" view whatever the time of day. */
export const HOURLY_RETENTION_MS = 48 * HOUR_MS;

/** The UTC hour of a timestamp as YYYY-MM-DDTHH. */
export function utcHour(ms: number): string {
  return new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString().slice(0, 13);
}

function sumInto<T extends { count: number }>(map: Map<string, T>, key: string, row: T): void {
  const prev = map.get(key);
  if (prev) prev.count += row.count;
  else map.set(key, { ...row });
}

/**
 * Turns the recorder's pending counts (keyed by account, key, service, hour, outcome) into one row
 * per table row: per account and day, per key and day, per key and hour (pure).
 */
export function usageBatchOf(entries: ReadonlyArray<[string, number]>): UsageBatch {
  const daily = new Map<string, UsageIncrement>();
  const keyDaily = new Map<string, KeyUsageIncrement>();
  const keyHourly = new Map<string, KeyUsageIncrement>();
  for (const [key, count] of entries) {
    const [accountId, keyId, service, hour, outcome] = key.split('\t') as [string, string, ApiService, string, UsageOutcome];
    const day = hour.slice(0, 10);
    sumInto(daily, `${accountId}\t${service}\t${day}\t${outcome}`, { accountId, service, day, outcome, count });
    sumInto(keyDaily, `${keyId}\t${day}\t${outcome}`, { keyId, accountId, service, bucket: day, outcome, count });
    sumInto(keyHourly, key, { keyId, accountId, service, bucket: hour, outcome, count });
  }
  return { daily: [...daily.values()], keyDaily: [...keyDaily.values()], keyHourly: [...keyHourly.values()] };
}

/** Counts authenticated requests per account and key, service, UTC hour and outcome; written in batches. */
export class UsageRecorder {
  private readonly batch: BatchedWrites<number>;
  private hourNumber = Number.NaN;
  private hour = '';
  private prunedHour = '';

  constructor(
    store: KeyUsageStore,
    intervalMs = 10_000,
    onError?: (err: unknown) => void,
    private readonly now = Date.now,
  ) {
    this.batch = new BatchedWrites<number>(
      (a, b) => a + b,
      (entries) => {
        const batch = usageBatchOf(entries);
        // Old hourly rows go at most once an hour, with a write that happens anyway.
        const current = utcHour(this.now());
        if (current === this.prunedHour) return store.recordUsage(batch);
        batch.pruneHoursBefore = utcHour(this.now() - HOURLY_RETENTION_MS);
        return store.recordUsage(batch).then(() => {
          this.prunedHour = current;
        });
      },
      intervalMs,
      onError,
    );
  }

  /** Counts one request made with the key `keyId`. */
  record(accountId: string, service: ApiService, outcome: UsageOutcome, keyId: string, count = 1): void {
    const at = this.now();
    // Formatted once an hour, not once a request.
    const hourNumber = Math.floor(at / HOUR_MS);
    if (hourNumber !== this.hourNumber) {
      this.hour = utcHour(at);
      this.hourNumber = hourNumber;
    }
    this.batch.add(`${accountId}\t${keyId}\t${service}\t${this.hour}\t${outcome}`, count);
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

  constructor(store: KeyStore, intervalMs = 30_000, onError?: (err: unknown) => void) {
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
