/**
 * The render job queue as the API sees it: submit (idempotency keys, idempotency-key.ts; the
 * per-account cap), look up, list, cancel, open the PDF, and the retention sweep. The queue of record is
 * the store; the worker (worker.ts) claims from it.
 */
import type { AssembleRequest, Uploads } from '../assemble/index.js';
import { RenderError } from '../errors.js';
import { newTimeOrderedId } from '../ids.js';
import type { RenderRequest } from '../render/index.js';
import type { SecretBox } from '../secrets/sealing.js';
import type { JobFileStore } from '../store/job-file-queries.js';
import type { JobSubmitStore } from '../store/job-submit-queries.js';
import type { RenderJobRow, RenderJobStore } from '../store/jobs-queries.js';
import type { RenderJobStatus } from '../store/schema.js';
import { IDEMPOTENCY_WINDOW_MS, requestHash, sameBody } from './idempotency-key.js';
import { decodeCursor, encodeCursor } from './job-list-query.js';
import { sealProtect } from './job-secrets.js';
import { deleteUploads, dropJobUploads, namedUploads, storeUploads, sweepJobUploads, uploadKey } from './job-uploads.js';
import type { ResultStore, StoredResult } from './results/result-store.js';

/** What a submit carries besides the render request. */
export interface JobSubmission {
  /** A render request, or an assembly's (`parts`). */
  request: RenderRequest | AssembleRequest;
  reference: string | null;
  webhookUrl: string | null;
  idempotencyKey: string | null;
  /** Submitted with `Prefer: handling=strict`: any warning fails the job RENDER_INCOMPLETE. */
  strict?: boolean;
  /** The API key that submitted it (the render log names it). */
  keyId?: string;
  /** An assembly's parts counted against the limit at submit; the worker counts the rest as they start. */
  charged?: number;
  /** The files of a multipart request (on disk until it is answered); those its parts name are kept with the job. */
  uploads?: Uploads;
}

/** How the queue is bounded. */
export interface JobQueueOptions {
  store: RenderJobStore & JobFileStore & JobSubmitStore;
  results: ResultStore;
  maxQueuedPerAccount: number;
  /** Most UTF-8 bytes of HTML queued per account (RENDER_JOBS_MAX_QUEUED_MB); unbounded when unset. */
  maxQueuedHtmlBytes?: number;
  /** How long a PDF is kept (RENDER_JOB_RETENTION_H); a finished row goes JOB_ROW_GRACE_MS after that. Default 24 h. */
  retentionMs?: number;
  now?: () => number;
  /** Told after a job was inserted (wakes idle workers). */
  onSubmitted?: () => void;
  /** Told after a running job was canceled, so whichever worker renders it stops now. */
  onCanceled?: (jobId: string) => void;
  /** The server's key: an assembly's `protect` passwords are stored sealed with it (without it, refused). */
  secrets?: SecretBox;
}

/** A finished job's row outlives its PDF by this much (then it goes, idempotency key and all). */
export const JOB_ROW_GRACE_MS = 7 * 24 * 3600_000;

/** What GET /v1/jobs/{id}/pdf finds; `elsewhere`: the row says the PDF exists, but not in this instance's result store. */
export type PdfLookup =
  | { kind: 'not_found' }
  | { kind: 'not_done'; row: RenderJobRow }
  | { kind: 'gone'; row: RenderJobRow }
  | { kind: 'elsewhere'; row: RenderJobRow; error: RenderError }
  | { kind: 'ok'; row: RenderJobRow; result: StoredResult };

const MIB = 1024 * 1024;

/** The result store key of a job's PDF. */
export function pdfKey(row: Pick<RenderJobRow, 'account_id' | 'id'>): string {
  return `${row.account_id}/${row.id}.pdf`;
}

/** Submit, look up, cancel and list jobs of one account at a time. */
export class JobQueue {
  private readonly now: () => number;

  constructor(private readonly opts: JobQueueOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Queues a job, or returns the job an earlier request with the same Idempotency-Key created (`replayed`). */
  async submit(accountId: string, s: JobSubmission): Promise<{ row: RenderJobRow; replayed: boolean }> {
    const { store, results } = this.opts;
    const { request } = s;
    const files = 'parts' in request ? namedUploads(request, s.uploads) : [];
    // Only a key is bound to the body: without one, canonical JSON and a SHA-256 of the whole HTML would be
    // work for nothing on every submit.
    const hash = s.idempotencyKey === null ? null : requestHash(s, this.opts.secrets, files);
    const now = this.now();
    if (s.idempotencyKey !== null) {
      const earlier = await store.findJobByIdempotencyKey(accountId, s.idempotencyKey);
      if (earlier && Number(earlier.created_at) <= now - IDEMPOTENCY_WINDOW_MS) await store.releaseIdempotencyKey(earlier.id);
      else if (earlier) return { row: sameBody(earlier, hash), replayed: true };
    }
    const id = newTimeOrderedId('job', now);
    // The kind is stored with the request: any worker that claims the job knows what to make of it.
    // `protect` passwords are stored only sealed, bound to this job.
    const stored =
      'parts' in request
        ? JSON.stringify({
            kind: 'assemble',
            ...request,
            ...(request.protect ? { protect: sealProtect(request.protect, this.opts.secrets, accountId, id) } : {}),
            ...(s.charged === undefined ? {} : { charged: s.charged }),
            // The uploaded files' names, in the order of their keys (job-uploads.ts uploadKey).
            ...(files.length > 0 ? { uploads: files.map((f) => f.name) } : {}),
          })
        : JSON.stringify({ html: request.html, output: request.output ?? 'pdf', options: request.options ?? {} });
    // An assembly's parts (HTML, base64 PDFs and uploaded files alike) count against the queued bytes as its request stands.
    const htmlBytes =
      'parts' in request
        ? Buffer.byteLength(stored, 'utf8') + files.reduce((sum, f) => sum + f.bytes, 0)
        : Buffer.byteLength(request.html, 'utf8');
    const maxBytes = this.opts.maxQueuedHtmlBytes ?? Number.MAX_SAFE_INTEGER;
    // The files are in the result store before the row that names them, so no worker claims a job
    // whose files are missing; whatever keeps the row from being written deletes them again.
    const uploadKeys = files.map((_, i) => uploadKey(accountId, id, i + 1));
    await storeUploads(results, uploadKeys, files);
    const discardUploads = () => deleteUploads(results, uploadKeys);
    const out = await store
      .insertJobWithinCaps(
        {
          id,
          accountId,
          request: stored,
          reference: s.reference,
          idempotencyKey: s.idempotencyKey,
          requestHash: hash,
          webhookUrl: s.webhookUrl,
          createdAt: now,
          htmlBytes,
          strict: s.strict,
          keyId: s.keyId,
          ...(uploadKeys.length > 0 ? { uploads: { keys: uploadKeys, store: results.id } } : {}),
        },
        { jobs: this.opts.maxQueuedPerAccount, htmlBytes: maxBytes },
      )
      .catch(async (err: unknown) => {
        await discardUploads().catch(() => {});
        throw err;
      });
    if (!('inserted' in out && out.inserted)) await discardUploads();
    if ('refused' in out) {
      const message =
        out.refused === 'jobs'
          ? `${out.queuedJobs} render jobs of this account are queued already (at most ${this.opts.maxQueuedPerAccount}); submit more as these finish`
          : `queued HTML limit: this account's queued render jobs hold ${(out.queuedHtmlBytes / MIB).toFixed(1)} MiB of HTML, ` +
            `and this job's ${(htmlBytes / MIB).toFixed(1)} MiB would pass the limit of ${(maxBytes / MIB).toFixed(0)} MiB; submit more as these finish`;
      throw new RenderError('RATE_LIMITED', message, 30);
    }
    const { inserted, row } = out;
    if (!inserted) return { row: sameBody(row, hash), replayed: true };
    this.opts.onSubmitted?.();
    return { row, replayed: false };
  }

  /** The account's job; NOT_FOUND for a missing job and for another account's. */
  async get(accountId: string, id: string): Promise<RenderJobRow> {
    const row = /^job_[0-9a-f]{32}$/.test(id) ? await this.opts.store.findJob(id, accountId) : undefined;
    if (!row) throw new RenderError('NOT_FOUND', `no job ${id}`);
    return row;
  }

  /** Cancels a queued or running job, or deletes a finished job's PDF; returns the job afterwards. */
  async cancel(accountId: string, id: string): Promise<RenderJobRow> {
    const { store, results } = this.opts;
    const row = await this.get(accountId, id);
    if (row.status === 'queued' || row.status === 'running') {
      const after = await store.cancelJob(id, accountId, this.now());
      // It finished meanwhile: then the PDF goes, as for a finished job.
      if (after && after.status !== 'canceled') return this.cancel(accountId, id);
      if (row.status === 'running' || after?.started_at != null) this.opts.onCanceled?.(id);
      // Its uploaded files go now (a worker still reading them stops with the job); the sweep retries a failure.
      if (after) await dropJobUploads(store, results, after).catch(() => {});
      return after ?? row;
    }
    // Clearing the row here would orphan the file in the store that holds it.
    if (row.pdf_key !== null && row.pdf_store !== null && row.pdf_store !== results.id) throw this.notHere(row);
    const key = await store.clearJobPdf(id, accountId);
    if (key !== null) await results.delete(key);
    return this.get(accountId, id);
  }

  /** A page of the account's jobs, newest first. */
  async list(accountId: string, q: { status?: RenderJobStatus; limit: number; cursor?: string }) {
    const page = await this.opts.store.listJobs(accountId, {
      status: q.status,
      limit: q.limit,
      cursor: q.cursor === undefined ? undefined : decodeCursor(q.cursor),
    });
    return { rows: page.rows, nextCursor: page.next === null ? null : encodeCursor(page.next) };
  }

  /** The job's PDF stream, or why there is none. */
  async openPdf(accountId: string, id: string): Promise<PdfLookup> {
    let row: RenderJobRow;
    try {
      row = await this.get(accountId, id);
    } catch {
      return { kind: 'not_found' };
    }
    // A failed or canceled job never had a PDF: that is "not done", not "gone".
    if (row.status !== 'succeeded') return { kind: 'not_done', row };
    if (row.pdf_key === null || Number(row.pdf_expires_at) <= this.now()) return { kind: 'gone', row };
    const result = await this.opts.results.get(row.pdf_key);
    if (result) return { kind: 'ok', row, result };
    // Not here while the row says it exists: unless a sweep or a DELETE took it just now, this
    // instance's result store is not the one that holds it, which no client can fix by waiting a day.
    const again = await this.opts.store.findJob(id, accountId);
    if (!again?.pdf_key || Number(again.pdf_expires_at) <= this.now()) return { kind: 'gone', row };
    return { kind: 'elsewhere', row, error: this.notHere(row) };
  }

  /** SERVICE_UNAVAILABLE naming RESULT_STORE; the cause (logged, not sent) names both stores. */
  private notHere(row: RenderJobRow): RenderError {
    const holder = row.pdf_store ?? 'a result store not recorded';
    return new RenderError(
      'SERVICE_UNAVAILABLE',
      `the PDF of job ${row.id} is not in the result store of the instance that answered: RESULT_STORE is not shared by every render instance; retry, and tell the operator if it persists`,
      5,
      {
        cause: new Error(
          `job ${row.id}: PDF ${row.pdf_key} recorded in ${holder}, this instance's RESULT_STORE is ${this.opts.results.id}; ` +
            'every instance that answers /v1/jobs needs the same result store (RESULT_STORE=s3://…)',
        ),
      },
    );
  }

  /**
   * Deletes expired PDFs of this instance's result store (a batch at a time until none is left);
   * returns how many. A row is cleared only once its PDF is gone from the store that holds it.
   */
  async sweepExpired(batch = 500): Promise<number> {
    const { store, results } = this.opts;
    let deleted = 0;
    let after = '';
    for (;;) {
      const expired = await store.expiredPdfs(this.now(), batch, results.id, after);
      for (const { id, pdfKey, pdfStore } of expired) {
        const held = await results.delete(pdfKey);
        // A PDF from before stores were recorded is cleared by the instance that had it.
        if (held || pdfStore === results.id) {
          await store.clearExpiredPdf(id, pdfKey);
          deleted += 1;
        }
        after = id;
      }
      if (expired.length < batch) return deleted;
    }
  }

  /** Deletes the uploaded files of final jobs still holding them in this instance's result store (job-uploads.ts). */
  sweepUploads(batch = 500): Promise<number> {
    return sweepJobUploads(this.opts.store, this.opts.results, batch);
  }

  /** Deletes the rows of jobs that finished RENDER_JOB_RETENTION_H + 7 days ago (PDF gone); returns how many. */
  async sweepFinishedRows(batch = 500): Promise<number> {
    const before = this.now() - (this.opts.retentionMs ?? IDEMPOTENCY_WINDOW_MS) - JOB_ROW_GRACE_MS;
    let deleted = 0;
    for (;;) {
      const n = await this.opts.store.deleteFinishedJobs(before, batch);
      deleted += n;
      if (n < batch) return deleted;
    }
  }
}
