/** The store's webhook queries: signing secrets, delivery attempts, and the webhook outbox columns of render_jobs. */
import { type Kysely, sql } from 'kysely';
import type { Database, RenderJobsTable, WebhookDeliveriesTable } from './schema.js';

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

/** The webhook part of the store. */
export interface WebhookStore {
  /** The account's signing secret, or undefined before its first use. */
  findWebhookSecret(accountId: string): Promise<string | undefined>;
  /** Stores `candidate` unless the account already has a secret; returns the one that is stored (race-free). */
  ensureWebhookSecret(accountId: string, candidate: string, at: number): Promise<string>;
  /** Replaces the account's secret (rotation); deliveries signed from now on use the new one. */
  replaceWebhookSecret(accountId: string, secret: string, at: number): Promise<void>;
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
export async function findWebhookSecret(db: Kysely<Database>, accountId: string) {
  const row = await db.selectFrom('webhook_secrets').select('secret').where('account_id', '=', accountId).executeTakeFirst();
  return row?.secret;
}

/** See WebhookStore.ensureWebhookSecret. */
export async function ensureWebhookSecret(db: Kysely<Database>, accountId: string, candidate: string, at: number) {
  // Two first deliveries at once must not sign with two different secrets: the first insert wins.
  await db
    .insertInto('webhook_secrets')
    .values({ account_id: accountId, secret: candidate, created_at: at })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
  const stored = await findWebhookSecret(db, accountId);
  if (stored === undefined) throw new Error(`account ${accountId} does not exist`);
  return stored;
}

/** See WebhookStore.replaceWebhookSecret. */
export async function replaceWebhookSecret(db: Kysely<Database>, accountId: string, secret: string, at: number) {
  await db
    .insertInto('webhook_secrets')
    .values({ account_id: accountId, secret, created_at: at })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ secret, created_at: at }))
    .execute();
}

/** See WebhookStore.insertWebhookDelivery. */
export async function insertWebhookDelivery(db: Kysely<Database>, d: WebhookDeliveryRecord) {
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
export async function listWebhookDeliveries(db: Kysely<Database>, accountId: string, jobIds: readonly string[]) {
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
export async function purgeWebhookDeliveries(db: Kysely<Database>, before: number) {
  const result = await db.deleteFrom('webhook_deliveries').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

// ---- the webhook outbox columns of render_jobs (the queue sets webhook_state='pending' when a job ends) ----

/** A job whose event is due, as the dispatcher claimed it (the whole render_jobs row). */
export type WebhookDueJob = RenderJobsTable;

/** The webhook outbox over render_jobs. */
export interface WebhookOutboxStore {
  /**
   * Leases up to `limit` jobs whose event is due (state pending, next attempt at or before `now`, no live
   * lease) until `leaseUntil`; concurrent dispatchers never get the same job (SKIP LOCKED on PostgreSQL,
   * the single writer on SQLite).
   */
  claimDueWebhooks(now: number, leaseUntil: number, limit: number): Promise<WebhookDueJob[]>;
  /** Records the end of an attempt: delivered or exhausted, or pending again at `nextAt`; clears the lease. */
  settleWebhook(
    jobId: string,
    outcome: { state: 'pending' | 'delivered' | 'exhausted'; attempts: number; nextAt: number | null },
  ): Promise<void>;
  /** Queues the event of a finished job of the account again, now, with a fresh retry schedule; false when there is none. */
  redeliverWebhook(accountId: string, jobId: string, now: number): Promise<boolean>;
}

/** See WebhookOutboxStore.claimDueWebhooks. */
export async function claimDueWebhooks(
  db: Kysely<Database>,
  kind: 'sqlite' | 'postgres',
  now: number,
  leaseUntil: number,
  limit: number,
) {
  const skipLocked = kind === 'postgres' ? sql`for update skip locked` : sql``;
  const { rows } = await sql<WebhookDueJob>`
    update render_jobs set webhook_lease_expires_at = ${leaseUntil}
    where id in (
      select id from render_jobs
      where webhook_state = 'pending' and webhook_next_at <= ${now}
        and (webhook_lease_expires_at is null or webhook_lease_expires_at <= ${now})
      order by webhook_next_at
      limit ${limit}
      ${skipLocked}
    )
    returning *`.execute(db);
  return rows.map((r) => ({ ...r, webhook_attempts: Number(r.webhook_attempts) }));
}

/** See WebhookOutboxStore.settleWebhook. */
export async function settleWebhook(
  db: Kysely<Database>,
  jobId: string,
  o: { state: 'pending' | 'delivered' | 'exhausted'; attempts: number; nextAt: number | null },
) {
  await sql`
    update render_jobs
    set webhook_state = ${o.state}, webhook_attempts = ${o.attempts}, webhook_next_at = ${o.nextAt}, webhook_lease_expires_at = null
    where id = ${jobId} and webhook_state = 'pending'`.execute(db);
}

/** See WebhookOutboxStore.redeliverWebhook. */
export async function redeliverWebhook(db: Kysely<Database>, accountId: string, jobId: string, now: number) {
  const result = await sql`
    update render_jobs
    set webhook_state = 'pending', webhook_next_at = ${now}, webhook_attempts = 0, webhook_lease_expires_at = null
    where id = ${jobId} and account_id = ${accountId} and webhook_url is not null
      and status in ('succeeded', 'failed')`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}
