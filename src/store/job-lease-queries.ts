import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { JobError, JobResult, RenderJobRow } from './jobs-queries.js';
import type { Database, RenderJobStatus } from './schema.js';
import { bindQueries, PREPARED, type StoreContext, skipHeldRows } from './store-context.js';

// The render job queue's leases: claim, renew, and the statements that end an attempt (final, back
// to the queue, given back), written once for both dialects.
// Claims are single UPDATE … RETURNING statements: on SQLite the one connection is the single writer,
// on PostgreSQL the row is taken with FOR UPDATE SKIP LOCKED.

/** How a claim leases its job. */
export interface ClaimOptions {
  /** How long the lease lasts from `now`. */
  leaseMs: number;
  /** Attempts a job gets; a lapsed lease with none left fails the job. */
  maxAttempts: number;
  /** Whether to look for lapsed leases first (default true). */
  lapsed?: boolean;
}

/** Store methods of the job leases: what a worker does with the jobs it runs. */
export interface JobLeaseStore {
  /**
   * Takes the next job for `owner` until `now + leaseMs`: first a job whose lease lapsed (attempts left),
   * else the oldest queued job of the account that has the fewest running jobs and was served least
   * recently. Jobs whose lease lapsed with no attempt left become `failed` in the same call. With
   * `lapsed` false, lapsed leases are left for a later call (one statement instead of three).
   */
  claimJob(owner: string, now: number, lease: ClaimOptions): Promise<RenderJobRow | undefined>;
  /** Extends the lease; false when the job is no longer this owner's (canceled, or taken after a lapse). */
  renewJobLease(id: string, owner: string, until: number): Promise<boolean>;
  /** Which of these jobs are still running under this owner's lease (a cancel elsewhere drops one). */
  heldJobs(owner: string, ids: readonly string[]): Promise<string[]>;
  /** Makes the job final (succeeded with its PDF, or failed) and its webhook due, in one statement; false if no longer owned. */
  finishJob(id: string, owner: string, now: number, result: JobResult): Promise<boolean>;
  /** Puts the job back in the queue after a failed attempt that may succeed later, keeping the error as its last. */
  requeueJob(id: string, owner: string, error: JobError): Promise<boolean>;
  /** Gives the job back untouched (shutdown): the lease is cleared and the attempt not counted, so another worker takes it at once. */
  releaseJob(id: string, owner: string): Promise<boolean>;
}

/** The webhook becomes due in the statement that makes the job final, so no crash can lose it. */
function webhookDue(now: number) {
  return {
    webhook_state: sql<string | null>`case when webhook_url is null then null else 'pending' end`,
    webhook_next_at: sql<number | null>`case when webhook_url is null then null else cast(${now} as bigint) end`,
  };
}

/** See JobLeaseStore.claimJob. */
export async function claimJob(
  { db, kind }: StoreContext,
  owner: string,
  now: number,
  { leaseMs, maxAttempts, lapsed = true }: ClaimOptions,
) {
  const lock = skipHeldRows(kind);
  const take = (pick: RawBuilder<unknown>, status: RenderJobStatus) =>
    sql<RenderJobRow>`update render_jobs
      set status = 'running', attempts = attempts + 1, lease_owner = ${owner}, lease_expires_at = ${now + leaseMs}, started_at = ${now}
      where id = (${pick}) and status = ${status}
      returning * ${sql.raw(PREPARED)}`.execute(db);
  if (lapsed) {
    const row = await takeLapsed(db, take, lock, now, maxAttempts);
    if (row) return row;
  }
  return takeQueued(take, kind, lock);
}

type Take = (pick: RawBuilder<unknown>, status: RenderJobStatus) => Promise<{ rows: RenderJobRow[] }>;

/** Jobs whose worker died: out of attempts they end failed; else the longest lapsed is taken. */
async function takeLapsed(db: Kysely<Database>, take: Take, lock: RawBuilder<unknown>, now: number, maxAttempts: number) {
  // A job whose worker died ran out of attempts: it ends failed, with its webhook due. A job another
  // transaction holds is left for the next claim (`lock` skips it on PostgreSQL): waiting on one while
  // holding others could deadlock with an account's deletion, which locks its jobs in its own order.
  const exhausted = sql`select id from render_jobs where status = 'running' and lease_expires_at < ${now}
    and attempts >= ${maxAttempts} ${lock}`;
  await db
    .updateTable('render_jobs')
    .set({
      status: 'failed',
      finished_at: now,
      lease_owner: null,
      lease_expires_at: null,
      request: '',
      error_code: 'INTERNAL_ERROR',
      error_message: `the render was interrupted ${maxAttempts} times (its worker stopped before finishing)`,
      ...webhookDue(now),
    })
    .where(sql<boolean>`id in (${exhausted})`)
    .execute();
  // Lapsed leases first: those jobs were claimed fairly once already and have waited longest.
  const lapsed = await take(
    sql`select id from render_jobs where status = 'running' and lease_expires_at < ${now} and attempts < ${maxAttempts}
        order by lease_expires_at limit 1 ${lock}`,
    'running',
  );
  return lapsed.rows[0];
}

/** The next queued job, fair across accounts. */
async function takeQueued(take: Take, kind: 'sqlite' | 'postgres', lock: RawBuilder<unknown>) {
  // Fair across accounts: the account with the fewest running jobs, then the one served least
  // recently (its latest start), then the one whose oldest job has waited longest. The accounts with
  // queued jobs are found by skipping through the index (one probe per account), so the cost grows
  // with the number of waiting accounts, not with one account's 10,000 queued jobs.
  const fair = await take(
    sql`with recursive waiting(account_id) as (
          select min(account_id) from render_jobs where status = 'queued'
          union all
          select (select min(n.account_id) from render_jobs n where n.status = 'queued' and n.account_id > w.account_id)
          from waiting w where w.account_id is not null)
        select j.id from render_jobs j
        where j.status = 'queued' and j.account_id = (
          select w.account_id from waiting w
          where w.account_id is not null
          order by
            (select count(*) from render_jobs r where r.status = 'running' and r.account_id = w.account_id),
            (select coalesce(max(s.started_at), 0) from render_jobs s where s.account_id = w.account_id),
            (select min(o.created_at) from render_jobs o where o.status = 'queued' and o.account_id = w.account_id)
          limit 1)
        order by j.created_at, j.id limit 1 ${lock}`,
    'queued',
  );
  if (fair.rows[0] || kind === 'sqlite') return fair.rows[0];
  // PostgreSQL: the fair account's next job may be locked by a concurrent claim; take any other then.
  const any = await take(
    sql`select id from render_jobs where status = 'queued' order by created_at, id limit 1 ${lock}`,
    'queued',
  );
  return any.rows[0];
}

/** See JobLeaseStore.renewJobLease. */
export async function renewJobLease({ db }: StoreContext, id: string, owner: string, until: number) {
  const result = await db
    .updateTable('render_jobs')
    .set({ lease_expires_at: until })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** See JobLeaseStore.heldJobs. */
export async function heldJobs({ db }: StoreContext, owner: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  // By primary key, and only the id: the row's request (up to 60 MB of JSON) stays where it is.
  const rows = await db
    .selectFrom('render_jobs')
    .select('id')
    .where('id', 'in', ids)
    .where('status', '=', 'running')
    .where('lease_owner', '=', owner)
    .execute();
  return rows.map((r) => r.id);
}

/** See JobLeaseStore.finishJob. */
export async function finishJob({ db }: StoreContext, id: string, owner: string, now: number, result: JobResult) {
  const outcome =
    'pdf' in result
      ? {
          status: 'succeeded' as const,
          error_code: null,
          error_message: null,
          pdf_key: result.pdf.key,
          pdf_bytes: result.pdf.bytes,
          pdf_pages: result.pdf.pages,
          pdf_expires_at: result.pdf.expiresAt,
          pdf_store: result.pdf.store,
        }
      : { status: 'failed' as const, error_code: result.error.code, error_message: result.error.message };
  const updated = await db
    .updateTable('render_jobs')
    .set({
      ...outcome,
      warnings: result.warnings ?? null,
      finished_at: now,
      lease_owner: null,
      lease_expires_at: null,
      request: '',
      ...webhookDue(now),
    })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('lease_owner', '=', owner)
    .modifyEnd(sql.raw(PREPARED))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** See JobLeaseStore.requeueJob. */
export async function requeueJob({ db }: StoreContext, id: string, owner: string, error: JobError) {
  const updated = await db
    .updateTable('render_jobs')
    .set({ status: 'queued', lease_owner: null, lease_expires_at: null, error_code: error.code, error_message: error.message })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** See JobLeaseStore.releaseJob. */
export async function releaseJob({ db }: StoreContext, id: string, owner: string) {
  const updated = await db
    .updateTable('render_jobs')
    .set({ status: 'queued', lease_owner: null, lease_expires_at: null, attempts: sql<number>`attempts - 1` })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** The job lease queries over one store context. */
export function jobLeaseQueries(ctx: StoreContext): JobLeaseStore {
  return bindQueries(ctx, { claimJob, renewJobLease, heldJobs, finishJob, requeueJob, releaseJob });
}
