import { sql } from 'kysely';
import { findJobByIdempotencyKey, insertJob, type NewRenderJob, type RenderJobRow } from './jobs-queries.js';
import { bindQueries, PREPARED, type StoreContext } from './store-context.js';

// A job submit within the account's queued caps: the check and the insert are one step on both
// dialects, so 30 concurrent submits against a cap of 5 queue exactly 5. On PostgreSQL a per-account
// advisory lock held to the end of the transaction serialises the account's submits (a count then
// an insert under READ COMMITTED would let each of them see 4); on SQLite the one connection's
// transaction already excludes every other statement of the process.

/** How much an account may have queued. */
export interface QueuedCaps {
  jobs: number;
  htmlBytes: number;
}

/** What a capped submit did. */
export type CappedInsert =
  | { inserted: boolean; row: RenderJobRow }
  | { refused: 'jobs' | 'html_bytes'; queuedJobs: number; queuedHtmlBytes: number };

/** Store methods of a job submit within the account's caps. */
export interface JobSubmitStore {
  /**
   * As insertJob, but refuses (inserting nothing) when the account's queued jobs are at `caps.jobs`
   * or their HTML plus this job's would pass `caps.htmlBytes`; the check and the insert are atomic.
   */
  insertJobWithinCaps(job: NewRenderJob, caps: QueuedCaps): Promise<CappedInsert>;
}

/** The key space of the submit locks (the two-int form keeps them apart from the migrator's bigint lock). */
const SUBMIT_LOCK_SPACE = 0x6a6f6273; // "jobs"

/** Queued jobs of the account and the UTF-8 bytes of their HTML (one covering index: status, account_id, html_bytes). */
export async function queuedTotals({ db }: StoreContext, accountId: string) {
  const row = await db
    .selectFrom('render_jobs')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number | null>('html_bytes').as('bytes')])
    .where('status', '=', 'queued')
    .where('account_id', '=', accountId)
    .modifyEnd(sql.raw(PREPARED))
    .executeTakeFirstOrThrow();
  return { jobs: Number(row.n), htmlBytes: Number(row.bytes ?? 0) };
}

/** See JobSubmitStore.insertJobWithinCaps. */
export async function insertJobWithinCaps(ctx: StoreContext, job: NewRenderJob, caps: QueuedCaps): Promise<CappedInsert> {
  return ctx.db.transaction().execute(async (trx) => {
    const tx = { ...ctx, db: trx };
    if (ctx.kind === 'postgres')
      await sql`select pg_advisory_xact_lock(${SUBMIT_LOCK_SPACE}, hashtext(${job.accountId})) ${sql.raw(PREPARED)}`.execute(trx);
    // A concurrent request with the same key went first: the caller gets that job, not a 429.
    if (job.idempotencyKey !== null) {
      const earlier = await findJobByIdempotencyKey(tx, job.accountId, job.idempotencyKey);
      if (earlier) return { inserted: false, row: earlier };
    }
    const queued = await queuedTotals(tx, job.accountId);
    const refused =
      queued.jobs >= caps.jobs ? 'jobs' : queued.htmlBytes + (job.htmlBytes ?? 0) > caps.htmlBytes ? 'html_bytes' : undefined;
    if (refused) return { refused, queuedJobs: queued.jobs, queuedHtmlBytes: queued.htmlBytes };
    return insertJob(tx, job);
  });
}

/** The job submit queries over one store context. */
export function jobSubmitQueries(ctx: StoreContext): JobSubmitStore {
  return bindQueries(ctx, { insertJobWithinCaps });
}
