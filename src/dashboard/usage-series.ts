import { utcHour } from '../accounts/usage.js';
import type { ApiService } from '../config.js';
import { utcDay } from '../ids.js';
import type { UsageOutcome } from '../store/schema.js';
import type { KeyUsageIncrement, UsageIncrement } from '../store/store.js';

/** The outcomes in the order the chart stacks them, bottom first. */
export const OUTCOMES: readonly UsageOutcome[] = ['ok', 'client_error', 'target_error', 'rate_limited', 'server_error'];

/** A counter row of either granularity: `bucket` is a UTC day (YYYY-MM-DD) or hour (YYYY-MM-DDTHH). */
export interface UsageRow {
  service: ApiService;
  bucket: string;
  outcome: UsageOutcome;
  count: number;
}

/** Requests of one UTC day or hour, by outcome. */
export interface BucketUsage {
  bucket: string;
  counts: Record<UsageOutcome, number>;
  total: number;
}

/** A service's usage over the window: one entry per day or hour, oldest first, empty ones included. */
export interface ServiceUsage {
  service: ApiService;
  unit: 'day' | 'hour';
  buckets: BucketUsage[];
  totals: Record<UsageOutcome, number>;
  total: number;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The first UTC day of a window of `days` days ending today. */
export function windowStart(now: number, days: number): string {
  return utcDay(now - (days - 1) * DAY_MS);
}

/** The first UTC hour of a window of `hours` hours ending with the current one. */
export function hourWindowStart(now: number, hours: number): string {
  return utcHour(now - (hours - 1) * HOUR_MS);
}

/** The per-account daily counters as chart rows. */
export function dailyRows(rows: readonly UsageIncrement[]): UsageRow[] {
  return rows.map((r) => ({ service: r.service, bucket: r.day, outcome: r.outcome, count: r.count }));
}

/** Zero requests of every outcome. */
export function zeroCounts(): Record<UsageOutcome, number> {
  return { ok: 0, client_error: 0, target_error: 0, rate_limited: 0, server_error: 0 };
}

function series(rows: readonly UsageRow[], unit: 'day' | 'hour', names: string[]): Record<ApiService, ServiceUsage> {
  const build = (service: ApiService): ServiceUsage => {
    const byBucket = new Map<string, BucketUsage>();
    const buckets = names.map((bucket) => {
      const entry = { bucket, counts: zeroCounts(), total: 0 };
      byBucket.set(bucket, entry);
      return entry;
    });
    const totals = zeroCounts();
    let total = 0;
    for (const row of rows) {
      const entry = row.service === service ? byBucket.get(row.bucket) : undefined;
      if (!entry) continue;
      entry.counts[row.outcome] += row.count;
      entry.total += row.count;
      totals[row.outcome] += row.count;
      total += row.count;
    }
    return { service, unit, buckets, totals, total };
  };
  return { render: build('render'), metadata: build('metadata') };
}

/** Turns the store's sparse daily counters into a dense series per service (pure). */
export function usageSeries(rows: readonly UsageRow[], now: number, days = 30): Record<ApiService, ServiceUsage> {
  const names: string[] = [];
  for (let i = days - 1; i >= 0; i--) names.push(utcDay(now - i * DAY_MS));
  return series(rows, 'day', names);
}

/** The same per UTC hour over the last `hours` hours, the current one last (pure). */
export function hourlySeries(rows: readonly UsageRow[], now: number, hours = 24): Record<ApiService, ServiceUsage> {
  const names: string[] = [];
  for (let i = hours - 1; i >= 0; i--) names.push(utcHour(now - i * HOUR_MS));
  return series(rows, 'hour', names);
}

/** A key's requests over a window. */
export interface KeyActivity {
  total: number;
  counts: Record<UsageOutcome, number>;
}

/** Sums per-key counters by key (pure): the keys page's "requests, last 7 days". */
export function keyActivity(rows: readonly KeyUsageIncrement[]): Map<string, KeyActivity> {
  const byKey = new Map<string, KeyActivity>();
  for (const row of rows) {
    let entry = byKey.get(row.keyId);
    if (!entry) {
      entry = { total: 0, counts: zeroCounts() };
      byKey.set(row.keyId, entry);
    }
    entry.total += row.count;
    entry.counts[row.outcome] += row.count;
  }
  return byKey;
}
