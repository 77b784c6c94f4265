import { sql } from 'kysely';
import type { RenderJobStatus, RenderJobsTable } from './schema.js';
import { bindQueries, PREPARED, type StoreContext } from './store-context.js';

// Render jobs: the queue of record, written once for both dialects; submits within the account's caps
// are in job-submit-queries.ts, claims and leases in job-lease-queries.ts, the stored PDFs' and uploads'
// keys in job-file-queries.ts.

/** A render job row as stored. */
export type RenderJobRow = RenderJobsTable;

/** A new job as submitted. */
export interface NewRenderJob {
  id: string;
  accountId: string;
  request: string;
  reference: string | null;
  idempotencyKey: string | null;
  requestHash: string | null;
  webhookUrl: string | null;
  createdAt: number;
  /** UTF-8 bytes of the HTML (counted against the queued-bytes cap); 0 when not given. */
  htmlBytes?: number;
  /** Submitted with `Prefer: handling=strict`. */
  strict?: boolean;
  keyId?: string | null;
  /** Files uploaded with the request, already in result store `store` under `keys`. */
  uploads?: { keys: string[]; store: string };
}

/** How a job ended (or why it goes back to the queue): a sync render error code and its message. */
export interface JobError {
  code: string;
  message: string;
}

/** How a job ended, with its render report's entries (JSON) when it printed. */
export type JobResult = ({ pdf: JobPdf } | { error: JobError }) & { warnings?: string };

/** The stored PDF of a succeeded job. */
export interface JobPdf {
  key: string;
  bytes: number;
  pages: number;
  expiresAt: number;
  /** The id of the result store that holds it (ResultStore.id). */
  store: string;
}

/** A page of an account's jobs, newest first. */
export interface JobPage {
  rows: RenderJobRow[];
  /** Where the next page starts, or null on the last page. */
  next: { createdAt: number; id: string } | null;
}

/** Store methods of the render job queue: the jobs as submitted, read, listed and canceled. */
export interface RenderJobStore {
  /**
   * Inserts a job unless the account already has one with the same idempotency key (the unique
   * index decides, so concurrent identical requests insert one row). Returns the job that holds the key.
   */
  insertJob(job: NewRenderJob): Promise<{ inserted: boolean; row: RenderJobRow }>;
  /** The job, if it exists (and belongs to `accountId` when given). */
  findJob(id: string, accountId?: string): Promise<RenderJobRow | undefined>;
  /** The job holding this idempotency key for the account, if any. */
  findJobByIdempotencyKey(accountId: string, key: string): Promise<RenderJobRow | undefined>;
  /** Frees an idempotency key whose window has passed, so a new job can take it. */
  releaseIdempotencyKey(id: string): Promise<void>;
  /** Jobs of the account waiting for a worker. */
  countQueuedJobs(accountId: string): Promise<number>;
  /** Cancels a queued or running job of the account; returns the job as it is afterwards. */
  cancelJob(id: string, accountId: string, now: number): Promise<RenderJobRow | undefined>;
  /** The account's jobs, newest first, from after `cursor`, optionally of one status. */
  listJobs(
    accountId: string,
    opts: { status?: RenderJobStatus; limit: number; cursor?: { createdAt: number; id: string } },
  ): Promise<JobPage>;
  /** Queued jobs over all accounts and the creation time of the oldest. */
  jobQueueStats(): Promise<{ queued: number; oldestCreatedAt: number | null }>;
}

/** See RenderJobStore.insertJob. */
export async function insertJob(ctx: StoreContext, job: NewRenderJob) {
  const { db } = ctx;
  const row: RenderJobRow = {
    id: job.id,
    account_id: job.accountId,
    status: 'queued',
    request: job.request,
    reference: job.reference,
    idempotency_key: job.idempotencyKey,
    request_hash: job.requestHash,
    webhook_url: job.webhookUrl,
    created_at: job.createdAt,
    started_at: null,
    finished_at: null,
    attempts: 0,
    lease_owner: null,
    lease_expires_at: null,
    error_code: null,
    error_message: null,
    pdf_key: null,
    pdf_bytes: null,
    pdf_pages: null,
    pdf_expires_at: null,
    webhook_state: null,
    webhook_next_at: null,
    webhook_attempts: 0,
    webhook_lease_expires_at: null,
    html_bytes: job.htmlBytes ?? 0,
    pdf_store: null,
    webhook_redeliver_at: null,
    strict: job.strict ? 1 : 0,
    key_id: job.keyId ?? null,
    warnings: null,
    upload_keys: job.uploads && job.uploads.keys.length > 0 ? JSON.stringify(job.uploads.keys) : null,
    upload_store: job.uploads && job.uploads.keys.length > 0 ? job.uploads.store : null,
  };
  const result = await db
    .insertInto('render_jobs')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing())
    .modifyEnd(sql.raw(PREPARED))
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0) > 0) return { inserted: true, row };
  const existing =
    job.idempotencyKey === null ? undefined : await findJobByIdempotencyKey(ctx, job.accountId, job.idempotencyKey);
  if (!existing) throw new Error(`render job ${job.id} was not inserted and no job holds its idempotency key`);
  return { inserted: false, row: existing };
}

/** See RenderJobStore.findJob. */
export async function findJob({ db }: StoreContext, id: string, accountId?: string) {
  let query = db.selectFrom('render_jobs').selectAll().where('id', '=', id);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  return query.executeTakeFirst();
}

/** See RenderJobStore.findJobByIdempotencyKey. */
export async function findJobByIdempotencyKey({ db }: StoreContext, accountId: string, key: string) {
  return db
    .selectFrom('render_jobs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

/** See RenderJobStore.releaseIdempotencyKey. */
export async function releaseIdempotencyKey({ db }: StoreContext, id: string) {
  await db.updateTable('render_jobs').set({ idempotency_key: null }).where('id', '=', id).execute();
}

/** See RenderJobStore.countQueuedJobs. */
export async function countQueuedJobs({ db }: StoreContext, accountId: string) {
  const row = await db
    .selectFrom('render_jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'queued')
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** See RenderJobStore.cancelJob. */
export async function cancelJob(ctx: StoreContext, id: string, accountId: string, now: number) {
  const { db } = ctx;
  await db
    .updateTable('render_jobs')
    .set({ status: 'canceled', finished_at: now, lease_owner: null, lease_expires_at: null, request: '' })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('status', 'in', ['queued', 'running'])
    .execute();
  return findJob(ctx, id, accountId);
}

/** See RenderJobStore.listJobs. */
export async function listJobs(
  { db }: StoreContext,
  accountId: string,
  opts: { status?: RenderJobStatus; limit: number; cursor?: { createdAt: number; id: string } },
): Promise<JobPage> {
  let query = db.selectFrom('render_jobs').selectAll().where('account_id', '=', accountId);
  if (opts.status) query = query.where('status', '=', opts.status);
  const cursor = opts.cursor;
  if (cursor) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', cursor.createdAt),
        eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '<', cursor.id)]),
      ]),
    );
  }
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(opts.limit + 1)
    .execute();
  const more = rows.length > opts.limit;
  const page = more ? rows.slice(0, opts.limit) : rows;
  const last = page.at(-1);
  return { rows: page, next: more && last ? { createdAt: Number(last.created_at), id: last.id } : null };
}

/** See RenderJobStore.jobQueueStats. */
export async function jobQueueStats({ db }: StoreContext) {
  const row = await db
    .selectFrom('render_jobs')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<number | null>('created_at').as('oldest')])
    .where('status', '=', 'queued')
    .executeTakeFirstOrThrow();
  return { queued: Number(row.n), oldestCreatedAt: row.oldest === null ? null : Number(row.oldest) };
}

/** The render job queries over one store context. */
export function renderJobQueries(ctx: StoreContext): RenderJobStore {
  return bindQueries(ctx, {
    insertJob,
    findJob,
    findJobByIdempotencyKey,
    releaseIdempotencyKey,
    countQueuedJobs,
    cancelJob,
    listJobs,
    jobQueueStats,
  });
}
