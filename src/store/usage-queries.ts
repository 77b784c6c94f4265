import type { ApiService } from '../config.js';
import type { UsageOutcome } from './schema.js';
import { bindQueries, type StoreContext } from './store-context.js';

// The account's daily usage counters, as the dashboard reads them. They are written with the
// per-key counters, in one transaction per flush (key-usage-queries.ts).

/** One usage counter increment. */
export interface UsageIncrement {
  accountId: string;
  service: ApiService;
  day: string;
  outcome: UsageOutcome;
  count: number;
}

/** Store methods of the account's daily usage. */
export interface UsageStore {
  /** The account's daily counters from `fromDay` on (written by recordUsage). */
  usageSince(accountId: string, fromDay: string): Promise<UsageIncrement[]>;
}

/** See UsageStore.usageSince. */
export async function usageSince({ db }: StoreContext, accountId: string, fromDay: string): Promise<UsageIncrement[]> {
  const rows = await db
    .selectFrom('usage_daily')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('day', '>=', fromDay)
    .orderBy('day')
    .execute();
  return rows.map((r) => ({
    accountId: r.account_id,
    service: r.service,
    day: r.day,
    outcome: r.outcome,
    count: Number(r.count),
  }));
}

/** The daily usage queries over one store context. */
export function usageQueries(ctx: StoreContext): UsageStore {
  return bindQueries(ctx, { usageSince });
}
