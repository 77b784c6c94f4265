/** The store's webhook queries: signing secrets, delivery attempts, and the webhook outbox columns of render_jobs. */
import { type Kysely, sql } from 'kysely';
import type { Database, RenderJobsTable, WebhookDeliveriesTable } from './schema.js';
import { bindQueries, type StoreContext, skipHeldRows } from './store-context.js';

/** One delivery attempt as the application sees it. */
export interface WebhookDeliveryRecord {
  id: string;
  jobId: string;
  accountId: string;
  webhookId: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  createdAt: number;
}

/**
 * An account's signing secrets as the store holds them (sealed, jobs/webhook-secret-sealing.ts; or in clear,
 * stored by an older version): the current one, and the one the last rotation replaced.
 */
export interface WebhookSecretRecord {
  secret: string;
  createdAt: number;
  previousSecret: string | null;
  previousUntil: number | null;
}

/** The webhook part of the store. */
export interface WebhookStore {
  /** The account's signing secret, or undefined before its first use. */
  findWebhookSecret(accountId: string): Promise<string | undefined>;
  /** Stores `candidate` unless the account already has a secret; returns the one that is stored (race-free). */
  ensureWebhookSecret(accountId: string, candidate: string, at: number): Promise<string>;
  /** The account's secret and the one its last rotation replaced (with the end of its overlap). */
  findWebhookSecrets(accountId: string): Promise<WebhookSecretRecord | undefined>;
  /**
   * Makes `secret` the account's secret; the one it replaces keeps signing beside it until
   * `previousUntil` (in one statement, so two rotations at once keep a consistent pair).
   */
  rotateWebhookSecret(accountId: string, secret: string, at: number, previousUntil: number): Promise<void>;
  insertWebhookDelivery(d: WebhookDeliveryRecord): Promise<void>;
  /** Attempts for these jobs of the account, newest first. */
  listWebhookDeliveries(accountId: string, jobIds: readonly string[]): Promise<WebhookDeliveryRecord[]>;
  /** Deletes attempts made before `before`; returns how many. */
  purgeWebhookDeliveries(before: number): Promise<number>;
}

function toDelivery(r: WebhookDeliveriesTable): WebhookDeliveryRecord {
  return {
    id: r.id,
    jobId: r.job_id,
    accountId: r.account_id,
    webhookId: r.webhook_id,
    attempt: Number(r.attempt),
    statusCode: r.status_code === null ? null : Number(r.status_code),
    error: r.error,
    durationMs: Number(r.duration_ms),
    createdAt: Number(r.created_at),
  };
}

/** See WebhookStore.findWebhookSecret. */
export async function findWebhookSecret({ db }: StoreContext, accountId: string) {
  const row = await db.selectFrom('webhook_secrets').select('secret').where('account_id', '=', accountId).executeTakeFirst();
  return row?.secret;
}

/** See WebhookStore.ensureWebhookSecret. */
export async function ensureWebhookSecret(ctx: StoreContext, accountId: string, candidate: string, at: number) {
  const { db } = ctx;
  // Two first deliveries at once must not sign with two different secrets: the first insert wins.
  await db
    .insertInto('webhook_secrets')
    .values({ account_id: accountId, secret: candidate, created_at: at })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
  const stored = await findWebhookSecret(ctx, accountId);
  if (stored === undefined) throw new Error(`account ${accountId} does not exist`);
  return stored;
}

/** See WebhookStore.findWebhookSecrets. */
export async function findWebhookSecrets({ db }: StoreContext, accountId: string): Promise<WebhookSecretRecord | undefined> {
  const row = await db.selectFrom('webhook_secrets').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  if (!row) return undefined;
  return {
    secret: row.secret,
    createdAt: Number(row.created_at),
    previousSecret: row.previous_secret,
    previousUntil: row.previous_until === null ? null : Number(row.previous_until),
  };
}

/** See WebhookStore.rotateWebhookSecret. */
export async function rotateWebhookSecret(
  { db }: StoreContext,
  accountId: string,
  secret: string,
  at: number,
  previousUntil: number,
) {
  // An account that never had a secret has nothing to overlap with.
  await db
    .insertInto('webhook_secrets')
    .values({ account_id: accountId, secret, created_at: at, previous_secret: null, previous_until: null })
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet({
        previous_secret: sql<string>`webhook_secrets.secret`,
        previous_until: previousUntil,
        secret,
        created_at: at,
      }),
    )
    .execute();
}

/** See WebhookStore.insertWebhookDelivery. */
export async function insertWebhookDelivery({ db }: StoreContext, d: WebhookDeliveryRecord) {
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: d.id,
      job_id: d.jobId,
      account_id: d.accountId,
      webhook_id: d.webhookId,
      attempt: d.attempt,
      status_code: d.statusCode,
      error: d.error,
      duration_ms: d.durationMs,
      created_at: d.createdAt,
    })
    .execute();
}

/** See WebhookStore.listWebhookDeliveries. */
export async function listWebhookDeliveries({ db }: StoreContext, accountId: string, jobIds: readonly string[]) {
  if (jobIds.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('job_id', 'in', [...jobIds])
    .orderBy('created_at', 'desc')
    .orderBy('attempt', 'desc')
    .execute();
  return rows.map(toDelivery);
}

/** See WebhookStore.purgeWebhookDeliveries. */
export async function purgeWebhookDeliveries({ db }: StoreContext, before: number) {
  const result = await db.deleteFrom('webhook_deliveries').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

// ---- the webhook outbox columns of render_jobs (the queue sets webhook_state='pending' when a job ends) ----

/** A job whose event is due, as the dispatcher claimed it (the whole render_jobs row). */
export type WebhookDueJob = RenderJobsTable;

/** How a Redeliver request ended: queued now, queued after the attempt in flight, refused (too soon), or no such job. */
export type RedeliverOutcome =
  | { kind: 'queued' }
  | { kind: 'after_attempt' }
  | { kind: 'too_soon'; retryAt: number }
  | { kind: 'not_found' };

/** The webhook outbox over render_jobs. */
export interface WebhookOutboxStore {
  /**
   * Leases up to `limit` jobs whose event is due (state pending, next attempt at or before `now`, no live
   * lease) until `leaseUntil`, round-robin across accounts (every account's oldest due event before any
   * account's second), never more than `perAccount` leased at once for one account. Claims are
   * serialised (an advisory lock on PostgreSQL, the single writer on SQLite), so the cap holds across
   * processes and no job is leased twice.
   */
  claimDueWebhooks(now: number, leaseUntil: number, limit: number, perAccount: number): Promise<WebhookDueJob[]>;
  /**
   * Records the end of an attempt that was claimed at `claimedAt`: delivered or exhausted, or pending
   * again at `nextAt`; clears the lease. A Redeliver asked for during the attempt wins: the event is due
   * again at once with a fresh schedule.
   */
  settleWebhook(
    jobId: string,
    outcome: { state: 'pending' | 'delivered' | 'exhausted'; attempts: number; nextAt: number | null },
    claimedAt: number,
  ): Promise<void>;
  /**
   * Queues the event of a finished job of the account again with a fresh retry schedule, at most once
   * per `minIntervalMs`; an attempt in flight is not doubled: the event goes once that attempt ends.
   */
  redeliverWebhook(accountId: string, jobId: string, now: number, minIntervalMs: number): Promise<RedeliverOutcome>;
}

/** The PostgreSQL advisory lock key that serialises webhook claims (any constant; this one spells "pwhk"). */
const CLAIM_LOCK = 0x7077686b;

/** See WebhookOutboxStore.claimDueWebhooks. */
export async function claimDueWebhooks(
  { db, kind }: StoreContext,
  now: number,
  leaseUntil: number,
  limit: number,
  perAccount: number,
) {
  // Each due event's place in its account's line (1 = oldest due) plus the account's attempts in
  // flight must stay within the cap; ordering by that place first takes one event per account per round.
  // On PostgreSQL a job another transaction holds is left for the next round rather than waited for:
  // an account's deletion locks its jobs in its own order, and a claim waiting on one of them while
  // holding another would deadlock with it.
  const skipHeld = skipHeldRows(kind);
  const claim = (q: Kysely<Database>) =>
    sql<WebhookDueJob>`
    update render_jobs set webhook_lease_expires_at = ${leaseUntil}
    where id in (select id from render_jobs where id in (
      select d.id from (
        select id, account_id, webhook_next_at,
          row_number() over (partition by account_id order by webhook_next_at, id) as place
        from render_jobs
        where webhook_state = 'pending' and webhook_next_at <= ${now}
          and (webhook_lease_expires_at is null or webhook_lease_expires_at <= ${now})
      ) d
      left join (
        select account_id, count(*) as busy from render_jobs
        where webhook_state = 'pending' and webhook_lease_expires_at > ${now}
        group by account_id
      ) f on f.account_id = d.account_id
      where d.place + coalesce(f.busy, 0) <= ${perAccount}
      order by d.place, d.webhook_next_at, d.id
      limit ${limit}
    ) ${skipHeld})
    and (webhook_lease_expires_at is null or webhook_lease_expires_at <= ${now})
    returning *`.execute(q);
  const { rows } =
    kind === 'postgres'
      ? await db.transaction().execute(async (trx) => {
          await sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`.execute(trx);
          return claim(trx);
        })
      : await claim(db);
  return rows.map((r) => ({ ...r, webhook_attempts: Number(r.webhook_attempts) }));
}

/** See WebhookOutboxStore.settleWebhook. */
export async function settleWebhook(
  { db }: StoreContext,
  jobId: string,
  o: { state: 'pending' | 'delivered' | 'exhausted'; attempts: number; nextAt: number | null },
  claimedAt: number,
) {
  // Strictly after the claim: a request the claim itself answered must not make the event due again.
  const redelivered = sql`coalesce(webhook_redeliver_at, 0) > ${claimedAt}`;
  await sql`
    update render_jobs
    set webhook_state = case when ${redelivered} then 'pending' else ${o.state} end,
      webhook_attempts = case when ${redelivered} then 0 else ${o.attempts} end,
      webhook_next_at = case when ${redelivered} then webhook_redeliver_at else cast(${o.nextAt} as bigint) end,
      webhook_lease_expires_at = null
    where id = ${jobId} and webhook_state = 'pending'`.execute(db);
}

/** See WebhookOutboxStore.redeliverWebhook. */
export async function redeliverWebhook(
  { db }: StoreContext,
  accountId: string,
  jobId: string,
  now: number,
  minIntervalMs: number,
): Promise<RedeliverOutcome> {
  // The lease is left alone: while an attempt is in flight the claim skips the job, and that attempt's
  // settle sees the request and makes the event due again (settleWebhook).
  const result = await sql`
    update render_jobs
    set webhook_state = 'pending', webhook_next_at = ${now}, webhook_attempts = 0, webhook_redeliver_at = ${now}
    where id = ${jobId} and account_id = ${accountId} and webhook_url is not null
      and status in ('succeeded', 'failed')
      and (webhook_redeliver_at is null or webhook_redeliver_at <= ${now - minIntervalMs})`.execute(db);
  const row = await db
    .selectFrom('render_jobs')
    .select(['webhook_url', 'status', 'webhook_redeliver_at', 'webhook_lease_expires_at'])
    .where('id', '=', jobId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!row || row.webhook_url === null || (row.status !== 'succeeded' && row.status !== 'failed')) return { kind: 'not_found' };
  if (Number(result.numAffectedRows ?? 0) === 0) {
    return { kind: 'too_soon', retryAt: Number(row.webhook_redeliver_at) + minIntervalMs };
  }
  const inFlight = row.webhook_lease_expires_at !== null && Number(row.webhook_lease_expires_at) > now;
  return inFlight ? { kind: 'after_attempt' } : { kind: 'queued' };
}

/** The webhook secret and delivery queries over one store context. */
export function webhookQueries(ctx: StoreContext): WebhookStore {
  return bindQueries(ctx, {
    findWebhookSecret,
    ensureWebhookSecret,
    findWebhookSecrets,
    rotateWebhookSecret,
    insertWebhookDelivery,
    listWebhookDeliveries,
    purgeWebhookDeliveries,
  });
}

/** The webhook outbox queries over one store context. */
export function webhookOutboxQueries(ctx: StoreContext): WebhookOutboxStore {
  return bindQueries(ctx, { claimDueWebhooks, settleWebhook, redeliverWebhook });
}
