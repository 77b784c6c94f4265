import { sql } from 'kysely';
import type { RenderJobStatus, RenderJobsTable } from './schema.js';
import { bindQueries, PREPARED, type StoreContext } from './store-context.js';

// Render jobs: the queue of record and the stored PDFs' keys, written once for both dialects;
// submits within the account's caps are in job-submit-queries.ts, claims and leases in job-lease-queries.ts.

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

/** Store methods of the render job queue: the jobs as submitted, read, canceled and swept. */
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
  /** Forgets the PDF of the account's job; returns the result store key to delete (if there was one). */
  clearJobPdf(id: string, accountId: string): Promise<string | null>;
  /** The account's jobs, newest first, from after `cursor`, optionally of one status. */
  listJobs(
    accountId: string,
    opts: { status?: RenderJobStatus; limit: number; cursor?: { createdAt: number; id: string } },
  ): Promise<JobPage>;
  /**
   * Up to `limit` jobs (ids after `afterId`, in id order) whose PDF expired at `now` and is held by
   * result store `storeId` or by an unrecorded one; their keys are cleared by clearExpiredPdf.
   */
  expiredPdfs(
    now: number,
    limit: number,
    storeId: string,
    afterId?: string,
  ): Promise<Array<{ id: string; pdfKey: string; pdfStore: string | null }>>;
  /** Clears an expired PDF's key (only if it is still that key). */
  clearExpiredPdf(id: string, pdfKey: string): Promise<void>;
  /** Deletes up to `limit` final job rows that finished at or before `before` and hold no PDF; returns how many. */
  deleteFinishedJobs(before: number, limit: number): Promise<number>;
  /** Cancels every unfinished job of the account and returns every stored PDF and upload key, for account deletion. */
  cancelAccountJobs(accountId: string, now: number): Promise<string[]>;
  /** Forgets the job's uploaded files (once deleted from the result store). */
  clearJobUploads(id: string): Promise<void>;
  /** Up to `limit` final jobs still holding uploads in result store `storeId` (ids after `afterId`, in id order). */
  finishedUploads(storeId: string, limit: number, afterId?: string): Promise<Array<{ id: string; keys: string[] }>>;
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

/** See RenderJobStore.clearJobPdf. */
export async function clearJobPdf(ctx: StoreContext, id: string, accountId: string) {
  const { db } = ctx;
  const row = await findJob(ctx, id, accountId);
  if (!row?.pdf_key) return null;
  // Only that key: a concurrent clear (retention sweep, a second DELETE) deletes the file once. The
  // expiry goes too, so the row tells a deleted PDF (no expiry) from an expired one ever after.
  const cleared = await db
    .updateTable('render_jobs')
    .set({ pdf_key: null, pdf_expires_at: null })
    .where('id', '=', id)
    .where('pdf_key', '=', row.pdf_key)
    .executeTakeFirst();
  return Number(cleared.numUpdatedRows) > 0 ? row.pdf_key : null;
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

/** See RenderJobStore.expiredPdfs. */
export async function expiredPdfs({ db }: StoreContext, now: number, limit: number, storeId: string, afterId = '') {
  const rows = await db
    .selectFrom('render_jobs')
    .select(['id', 'pdf_key', 'pdf_store'])
    .where('pdf_expires_at', '<=', now)
    .where('pdf_key', 'is not', null)
    .where((eb) => eb.or([eb('pdf_store', '=', storeId), eb('pdf_store', 'is', null)]))
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, pdfKey: r.pdf_key as string, pdfStore: r.pdf_store }));
}

/** See RenderJobStore.deleteFinishedJobs. */
export async function deleteFinishedJobs({ db, kind }: StoreContext, before: number, limit: number) {
  // Ids first, then the delete by id: SQLite's DELETE takes no LIMIT, and one batch keeps a lock short.
  // On PostgreSQL a row another transaction holds (an account's deletion locking its jobs) is left for
  // the next sweep: waiting on it while holding others could deadlock with that transaction.
  const ids = db
    .selectFrom('render_jobs')
    .select('id')
    .where('finished_at', '<=', before)
    .where('status', 'in', ['succeeded', 'failed', 'canceled'])
    .where('pdf_key', 'is', null)
    // Uploads still held wait for their sweep (a final job's go within a minute).
    .where('upload_keys', 'is', null)
    // A delivery still retrying keeps its row (it cannot be, 7 days on; the guard costs nothing).
    .where((eb) => eb.or([eb('webhook_state', 'is', null), eb('webhook_state', '!=', 'pending')]))
    .limit(limit)
    .$if(kind === 'postgres', (q) => q.forUpdate().skipLocked());
  const result = await db.deleteFrom('render_jobs').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** See RenderJobStore.clearExpiredPdf. */
export async function clearExpiredPdf({ db }: StoreContext, id: string, pdfKey: string) {
  await db.updateTable('render_jobs').set({ pdf_key: null }).where('id', '=', id).where('pdf_key', '=', pdfKey).execute();
}

/** See RenderJobStore.cancelAccountJobs. */
export async function cancelAccountJobs({ db }: StoreContext, accountId: string, now: number) {
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable('render_jobs')
      .set({ status: 'canceled', finished_at: now, lease_owner: null, lease_expires_at: null, request: '' })
      .where('account_id', '=', accountId)
      .where('status', 'in', ['queued', 'running'])
      .execute();
    const rows = await trx
      .selectFrom('render_jobs')
      .select(['pdf_key', 'upload_keys'])
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('pdf_key', 'is not', null), eb('upload_keys', 'is not', null)]))
      .execute();
    await trx.updateTable('render_jobs').set({ pdf_key: null, upload_keys: null }).where('account_id', '=', accountId).execute();
    return rows.flatMap((r) => [...(r.pdf_key === null ? [] : [r.pdf_key]), ...uploadKeysOf(r.upload_keys)]);
  });
}

/** The keys of a row's `upload_keys`. */
function uploadKeysOf(column: string | null): string[] {
  return column === null ? [] : (JSON.parse(column) as string[]);
}

/** See RenderJobStore.clearJobUploads. */
export async function clearJobUploads({ db }: StoreContext, id: string) {
  await db.updateTable('render_jobs').set({ upload_keys: null, upload_store: null }).where('id', '=', id).execute();
}

/** See RenderJobStore.finishedUploads. */
export async function finishedUploads({ db }: StoreContext, storeId: string, limit: number, afterId = '') {
  const rows = await db
    .selectFrom('render_jobs')
    .select(['id', 'upload_keys'])
    .where('upload_keys', 'is not', null)
    .where('upload_store', '=', storeId)
    .where('status', 'in', ['succeeded', 'failed', 'canceled'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, keys: uploadKeysOf(r.upload_keys) }));
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
    clearJobPdf,
    listJobs,
    expiredPdfs,
    clearExpiredPdf,
    deleteFinishedJobs,
    cancelAccountJobs,
    clearJobUploads,
    finishedUploads,
    jobQueueStats,
  });
}
