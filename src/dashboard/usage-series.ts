import type { ApiService } from '../config.js';
import { utcDay } from '../ids.js';
import type { UsageOutcome } from '../store/schema.js';
import type { UsageIncrement } from '../store/store.js';

/** The outcomes in the order the chart stacks them, bottom first. */
export const OUTCOMES: readonly UsageOutcome[] = ['ok', 'client_error', 'rate_limited', 'server_error'];

/** Requests of one UTC day, by outcome. */
export interface DayUsage {
  day: string;
  counts: Record<UsageOutcome, number>;
  total: number;
}

/** A service's usage over the window: one entry per day, oldest first, days without requests included. */
export interface ServiceUsage {
  service: ApiService;
  days: DayUsage[];
  totals: Record<UsageOutcome, number>;
  total: number;
}

const DAY_MS = 86_400_000;

/** The first UTC day of a window of `days` days ending today. */
export function windowStart(now: number, days: number): string {
  return utcDay(now - (days - 1) * DAY_MS);
}

function zero(): Record<UsageOutcome, number> {
  return { ok: 0, client_error: 0, rate_limited: 0, server_error: 0 };
}

/** Turns the store's sparse daily counters into a dense series per service (pure). */
export function usageSeries(rows: readonly UsageIncrement[], now: number, days = 30): Record<ApiService, ServiceUsage> {
  const build = (service: ApiService): ServiceUsage => {
    const byDay = new Map<string, DayUsage>();
    const list: DayUsage[] = [];
    for (let i = days - 1; i >= 0; i--) {
      const entry = { day: utcDay(now - i * DAY_MS), counts: zero(), total: 0 };
      byDay.set(entry.day, entry);
      list.push(entry);
    }
    const totals = zero();
    let total = 0;
    for (const row of rows) {
      const entry = row.service === service ? byDay.get(row.day) : undefined;
      if (!entry) continue;
      entry.counts[row.outcome] += row.count;
      entry.total += row.count;
      totals[row.outcome] += row.count;
      total += row.count;
    }
    return { service, days: list, totals, total };
  };
  return { render: build('render'), metadata: build('metadata') };
}
