import type { ApiService } from '../config.js';
import type { UsageDailyKeysTable, UsageDailyTable, UsageHourlyKeysTable, UsageOutcome } from './schema.js';
import { bindQueries, type StoreContext } from './store-context.js';
import type { UsageIncrement } from './usage-queries.js';

// Per-key usage counters (daily, and hourly for 48 hours; the account's daily ones are written in the
// same flush) and the sealed one-time display of a new key: the queries, written once with Kysely for
// both dialects.

/** One per-key usage counter increment, for a UTC day (YYYY-MM-DD) or hour (YYYY-MM-DDTHH) bucket. */
export interface KeyUsageIncrement {
  keyId: string;
  accountId: string;
  service: ApiService;
  /** The day or the hour, as the table counts. */
  bucket: string;
  outcome: UsageOutcome;
  count: number;
}

/** One flush of the usage recorder: every table's increments, already summed per row. */
export interface UsageBatch {
  daily: UsageIncrement[];
  keyDaily: KeyUsageIncrement[];
  keyHourly: KeyUsageIncrement[];
  /** Hourly rows before this hour are deleted in the same write (the 48-hour retention). */
  pruneHoursBefore?: string;
}

// Rows per INSERT: at 6 parameters a row, well under SQLite's 32,766 and PostgreSQL's 65,535.
const ROWS_PER_INSERT = 1000;

function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) out.push(rows.slice(i, i + ROWS_PER_INSERT));
  return out;
}

/**
 * The rows sorted by their unique columns. Every instance upserts the counters it shares with others in
 * this one order, so two flushes that update the same rows wait for each other instead of deadlocking.
 */
function inRowOrder<T>(rows: T[], key: (row: T) => string[]): T[] {
  const keyed = rows.map((row) => ({ row, key: key(row).join('\0') }));
  return keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((k) => k.row);
}

/** Store methods for per-key usage and the sealed one-time display of a new key. */
export interface KeyUsageStore {
  /**
   * Writes one usage batch in one transaction (upserts, so instances add up). Rows of keys that no
   * longer exist (account deleted meanwhile) are dropped, so a batch can never fail forever.
   */
  recordUsage(batch: UsageBatch): Promise<void>;
  /** The account's per-key daily counters from `fromDay` on. */
  keyUsageSince(accountId: string, fromDay: string): Promise<KeyUsageIncrement[]>;
  /** The account's per-key hourly counters from `fromHour` on. */
  keyHourlyUsageSince(accountId: string, fromHour: string): Promise<KeyUsageIncrement[]>;
  /** Keeps a sealed new key for one display to this session (replacing one for the same key). */
  putKeyReveal(sessionHash: string, keyId: string, sealed: string, at: number): Promise<void>;
  /** Takes (deletes and returns) the sealed key if it was put at or after `notBefore`; a second take finds nothing. */
  takeKeyReveal(sessionHash: string, keyId: string, notBefore: number): Promise<string | undefined>;
  /** Deletes sealed keys put before `before` (never displayed in time); returns how many. */
  deleteKeyRevealsBefore(before: number): Promise<number>;
}

/** See KeyUsageStore.recordUsage. */
export async function recordUsage({ db, kind }: StoreContext, batch: UsageBatch): Promise<void> {
  if (batch.daily.length + batch.keyDaily.length + batch.keyHourly.length === 0 && !batch.pruneHoursBefore) return;
  await db.transaction().execute(async (trx) => {
    // Rows of a key or account deleted since the requests were counted would break the foreign keys.
    // On PostgreSQL the rows read are locked (KEY SHARE), the accounts before the keys: an account's
    // deletion locks its account row first (deleteAccount), so either it waits for this flush or this
    // flush waits for it and then finds the account gone. Unlocked, the flush's foreign key checks took
    // those locks later, a key's before its account's, and the two could deadlock.
    const existing = async (table: 'api_keys' | 'accounts', ids: Iterable<string>) => {
      const found = new Set<string>();
      for (const part of chunks([...new Set(ids)])) {
        const query = trx.selectFrom(table).select('id').where('id', 'in', part);
        for (const r of await (kind === 'postgres' ? query.forKeyShare() : query).execute()) found.add(r.id);
      }
      return found;
    };
    const keyRows = [...batch.keyDaily, ...batch.keyHourly];
    const liveAccounts = await existing(
      'accounts',
      [...batch.daily, ...keyRows].map((i) => i.accountId),
    );
    const liveKeys = await existing(
      'api_keys',
      keyRows.map((i) => i.keyId),
    );
    const live = (i: KeyUsageIncrement) => liveKeys.has(i.keyId) && liveAccounts.has(i.accountId);
    const daily: UsageDailyTable[] = batch.daily
      .filter((i) => liveAccounts.has(i.accountId))
      .map((i) => ({ account_id: i.accountId, service: i.service, day: i.day, outcome: i.outcome, count: i.count }));
    for (const rows of chunks(inRowOrder(daily, (r) => [r.account_id, r.service, r.day, r.outcome]))) {
      await trx
        .insertInto('usage_daily')
        .values(rows)
        .onConflict((oc) =>
          oc
            .columns(['account_id', 'service', 'day', 'outcome'])
            .doUpdateSet((eb) => ({ count: eb(eb.ref('usage_daily.count'), '+', eb.ref('excluded.count')) })),
        )
        .execute();
    }
    const keyDaily: UsageDailyKeysTable[] = batch.keyDaily.filter(live).map((i) => ({
      key_id: i.keyId,
      account_id: i.accountId,
      service: i.service,
      day: i.bucket,
      outcome: i.outcome,
      count: i.count,
    }));
    for (const rows of chunks(inRowOrder(keyDaily, (r) => [r.key_id, r.day, r.outcome]))) {
      await trx
        .insertInto('usage_daily_keys')
        .values(rows)
        .onConflict((oc) =>
          oc
            .columns(['key_id', 'day', 'outcome'])
            .doUpdateSet((eb) => ({ count: eb(eb.ref('usage_daily_keys.count'), '+', eb.ref('excluded.count')) })),
        )
        .execute();
    }
    const keyHourly: UsageHourlyKeysTable[] = batch.keyHourly.filter(live).map((i) => ({
      key_id: i.keyId,
      account_id: i.accountId,
      service: i.service,
      hour: i.bucket,
      outcome: i.outcome,
      count: i.count,
    }));
    for (const rows of chunks(inRowOrder(keyHourly, (r) => [r.key_id, r.hour, r.outcome]))) {
      await trx
        .insertInto('usage_hourly_keys')
        .values(rows)
        .onConflict((oc) =>
          oc
            .columns(['key_id', 'hour', 'outcome'])
            .doUpdateSet((eb) => ({ count: eb(eb.ref('usage_hourly_keys.count'), '+', eb.ref('excluded.count')) })),
        )
        .execute();
    }
    if (batch.pruneHoursBefore) await trx.deleteFrom('usage_hourly_keys').where('hour', '<', batch.pruneHoursBefore).execute();
  });
}

/** See KeyUsageStore.keyUsageSince. */
export async function keyUsageSince({ db }: StoreContext, accountId: string, fromDay: string): Promise<KeyUsageIncrement[]> {
  const rows = await db
    .selectFrom('usage_daily_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('day', '>=', fromDay)
    .orderBy('day')
    .execute();
  return rows.map((r) => ({
    keyId: r.key_id,
    accountId: r.account_id,
    service: r.service,
    bucket: r.day,
    outcome: r.outcome,
    count: Number(r.count),
  }));
}

/** See KeyUsageStore.keyHourlyUsageSince. */
export async function keyHourlyUsageSince(
  { db }: StoreContext,
  accountId: string,
  fromHour: string,
): Promise<KeyUsageIncrement[]> {
  const rows = await db
    .selectFrom('usage_hourly_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('hour', '>=', fromHour)
    .orderBy('hour')
    .execute();
  return rows.map((r) => ({
    keyId: r.key_id,
    accountId: r.account_id,
    service: r.service,
    bucket: r.hour,
    outcome: r.outcome,
    count: Number(r.count),
  }));
}

/** See KeyUsageStore.putKeyReveal. */
export async function putKeyReveal(
  { db }: StoreContext,
  sessionHash: string,
  keyId: string,
  sealed: string,
  at: number,
): Promise<void> {
  await db
    .insertInto('key_reveals')
    .values({ session_hash: sessionHash, key_id: keyId, sealed, created_at: at })
    .onConflict((oc) => oc.columns(['session_hash', 'key_id']).doUpdateSet({ sealed, created_at: at }))
    .execute();
}

/** See KeyUsageStore.takeKeyReveal. */
export async function takeKeyReveal(
  { db }: StoreContext,
  sessionHash: string,
  keyId: string,
  notBefore: number,
): Promise<string | undefined> {
  // One statement: of two concurrent takes only one gets the row back.
  const row = await db
    .deleteFrom('key_reveals')
    .where('session_hash', '=', sessionHash)
    .where('key_id', '=', keyId)
    .returning(['sealed', 'created_at'])
    .executeTakeFirst();
  return row && Number(row.created_at) >= notBefore ? row.sealed : undefined;
}

/** See KeyUsageStore.deleteKeyRevealsBefore. */
export async function deleteKeyRevealsBefore({ db }: StoreContext, before: number): Promise<number> {
  const result = await db.deleteFrom('key_reveals').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The per-key usage queries over one store context. */
export function keyUsageQueries(ctx: StoreContext): KeyUsageStore {
  return bindQueries(ctx, {
    recordUsage,
    keyUsageSince,
    keyHourlyUsageSince,
    putKeyReveal,
    takeKeyReveal,
    deleteKeyRevealsBefore,
  });
}
