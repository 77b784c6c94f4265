import { findJob } from './jobs-queries.js';
import { bindQueries, type StoreContext } from './store-context.js';

// The render jobs' stored files, the PDFs and the uploads, by the keys their rows hold: forgotten when the
// account asks, when a PDF expires, when a final job's uploads are swept, when the account is deleted;
// and the final rows that hold no file any more, deleted. The caller deletes the files the keys name.

/** Store methods of the jobs' stored files: their keys forgotten, and the rows that hold none swept. */
export interface JobFileStore {
  /** Forgets the PDF of the account's job; returns the result store key to delete (if there was one). */
  clearJobPdf(id: string, accountId: string): Promise<string | null>;
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
}

/** See JobFileStore.clearJobPdf. */
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

/** See JobFileStore.expiredPdfs. */
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

/** See JobFileStore.deleteFinishedJobs. */
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

/** See JobFileStore.clearExpiredPdf. */
export async function clearExpiredPdf({ db }: StoreContext, id: string, pdfKey: string) {
  await db.updateTable('render_jobs').set({ pdf_key: null }).where('id', '=', id).where('pdf_key', '=', pdfKey).execute();
}

/** See JobFileStore.cancelAccountJobs. */
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

/** See JobFileStore.clearJobUploads. */
export async function clearJobUploads({ db }: StoreContext, id: string) {
  await db.updateTable('render_jobs').set({ upload_keys: null, upload_store: null }).where('id', '=', id).execute();
}

/** See JobFileStore.finishedUploads. */
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

/** The job file queries over one store context. */
export function jobFileQueries(ctx: StoreContext): JobFileStore {
  return bindQueries(ctx, {
    clearJobPdf,
    expiredPdfs,
    clearExpiredPdf,
    deleteFinishedJobs,
    cancelAccountJobs,
    clearJobUploads,
    finishedUploads,
  });
}
