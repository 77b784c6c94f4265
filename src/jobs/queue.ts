/**
 * The render job queue as the API sees it: submit (idempotency keys, the per-account cap), look up,
 * list, cancel, open the PDF, and the retention sweep. The queue of record is the store; the worker
 * (worker.ts) claims from it.
 */
import crypto from 'node:crypto';
import { RenderError } from '../errors.js';
import { newTimeOrderedId } from '../ids.js';
import type { RenderRequest } from '../render/schema.js';
import type { RenderJobStatus } from '../store/schema.js';
import type { RenderJobRow, Store } from '../store/store.js';
import type { ResultStore, StoredResult } from './results/result-store.js';

/** A repeated Idempotency-Key returns the first job within this window. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;
/** Longest Idempotency-Key. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** What a submit carries besides the render request. */
export interface JobSubmission {
  request: RenderRequest;
  reference: string | null;
  webhookUrl: string | null;
  idempotencyKey: string | null;
  /** Submitted with `Prefer: handling=strict`: any warning fails the job RENDER_INCOMPLETE. */
  strict?: boolean;
  /** The API key that submitted it (the render log names it). */
  keyId?: string;
}

/** How the queue is bounded. */
export interface JobQueueOptions {
  store: Store;
  results: ResultStore;
  maxQueuedPerAccount: number;
  now?: () => number;
  /** Told after a job was inserted (wakes idle workers). */
  onSubmitted?: () => void;
}

/** What GET /v1/jobs/{id}/pdf finds. */
export type PdfLookup =
  | { kind: 'not_found' }
  | { kind: 'not_done'; row: RenderJobRow }
  | { kind: 'gone'; row: RenderJobRow }
  | { kind: 'ok'; row: RenderJobRow; result: StoredResult };

/** JSON with object keys sorted, so the same body hashes the same whatever the client's key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The hash an Idempotency-Key is bound to: the whole submitted body. */
export function requestHash(s: Omit<JobSubmission, 'idempotencyKey'>): string {
  return (
    crypto
      .createHash('sha256')
      // `strict` only when set, so the hashes of keys given before strict jobs existed stay the same.
      .update(canonical({ request: s.request, reference: s.reference, webhook: s.webhookUrl, strict: s.strict || undefined }))
      .digest('hex')
  );
}

/** Checks an Idempotency-Key header value; throws INVALID_REQUEST naming the header. */
export function checkIdempotencyKey(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  if (Array.isArray(value)) throw new RenderError('INVALID_REQUEST', 'Idempotency-Key: send the header once');
  if (value === '' || value.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(value)) {
    throw new RenderError(
      'INVALID_REQUEST',
      `Idempotency-Key: must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters without spaces`,
    );
  }
  return value;
}

/** The list cursor: opaque to clients, the last row's creation time and id. */
export function encodeCursor(next: { createdAt: number; id: string }): string {
  return Buffer.from(`${next.createdAt}.${next.id}`).toString('base64url');
}

/** Parses a list cursor; throws INVALID_REQUEST. */
export function decodeCursor(cursor: string): { createdAt: number; id: string } {
  const m = /^(\d{1,16})\.(job_[0-9a-f]{32})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) throw new RenderError('INVALID_REQUEST', 'cursor: not a cursor from a previous page');
  return { createdAt: Number(m[1]), id: m[2] };
}

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
    const { store } = this.opts;
    const hash = requestHash(s);
    const now = this.now();
    if (s.idempotencyKey !== null) {
      const earlier = await store.findJobByIdempotencyKey(accountId, s.idempotencyKey);
      if (earlier && Number(earlier.created_at) <= now - IDEMPOTENCY_WINDOW_MS) await store.releaseIdempotencyKey(earlier.id);
      else if (earlier) return { row: this.sameBody(earlier, hash), replayed: true };
    }
    const queued = await store.countQueuedJobs(accountId);
    if (queued >= this.opts.maxQueuedPerAccount) {
      throw new RenderError(
        'RATE_LIMITED',
        `${queued} render jobs of this account are queued already (at most ${this.opts.maxQueuedPerAccount}); submit more as these finish`,
        30,
      );
    }
    const { request } = s;
    const { inserted, row } = await store.insertJob({
      id: newTimeOrderedId('job', now),
      accountId,
      request: JSON.stringify({ html: request.html, output: request.output ?? 'pdf', options: request.options ?? {} }),
      reference: s.reference,
      idempotencyKey: s.idempotencyKey,
      requestHash: s.idempotencyKey === null ? null : hash,
      webhookUrl: s.webhookUrl,
      createdAt: now,
      strict: s.strict,
      keyId: s.keyId,
    });
    if (!inserted) return { row: this.sameBody(row, hash), replayed: true };
    this.opts.onSubmitted?.();
    return { row, replayed: false };
  }

  private sameBody(row: RenderJobRow, hash: string): RenderJobRow {
    if (row.request_hash !== hash) {
      throw new RenderError(
        'IDEMPOTENCY_KEY_REUSED',
        `Idempotency-Key: already used for job ${row.id} with a different body; use a new key for a new request`,
      );
    }
    return row;
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
      return after ?? row;
    }
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
    return result ? { kind: 'ok', row, result } : { kind: 'gone', row };
  }

  /** Deletes expired PDFs (a batch at a time until none is left); returns how many. */
  async sweepExpired(batch = 500): Promise<number> {
    const { store, results } = this.opts;
    let deleted = 0;
    for (;;) {
      const expired = await store.expiredPdfs(this.now(), batch);
      for (const { id, pdfKey } of expired) {
        await results.delete(pdfKey);
        await store.clearExpiredPdf(id, pdfKey);
        deleted += 1;
      }
      if (expired.length < batch) return deleted;
    }
  }
}

/** Cancels the account's unfinished jobs and deletes its stored PDFs (before the account itself goes). */
export async function deleteAccountJobs(store: Store, results: ResultStore, accountId: string, now = Date.now()): Promise<void> {
  for (const key of await store.cancelAccountJobs(accountId, now)) await results.delete(key);
}
