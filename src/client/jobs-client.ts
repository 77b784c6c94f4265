/** The render jobs client: submit, look up, wait for, list and cancel jobs, and download their PDFs. */
import { type AssembleFiles, assembleForm, FORM_FETCH_INIT } from './assemble-form.js';
import { RenderApiError } from './errors.js';
import type { JobList, JobObject, JobRequest, JobStatus } from './jobs-types.js';
import { pdfStreamOf, type RenderStream } from './render-client.js';
import { renderServiceExchange } from './render-exchange.js';
import { sleep } from './retry.js';
import { type CallOptions, type ClientOptions, jsonOf } from './transport.js';

/** Options of submit. */
export interface SubmitOptions extends CallOptions {
  /** Sent as `Idempotency-Key`: a repeat within 24 h returns the first job instead of a new one. */
  idempotencyKey?: string;
  /** Sends `Prefer: handling=strict`: a job whose document could not get everything fails RENDER_INCOMPLETE. */
  strict?: boolean;
  /**
   * The PDFs an assembly's parts name with `{"file": "terms.pdf"}`, by that name: the job is then sent as
   * multipart/form-data (the JSON in a `body` field, the files beside it, streamed), as `RenderClient.assemble` sends them.
   */
  files?: AssembleFiles;
}

/** Options of wait. */
export interface WaitOptions {
  /** Longest wait in all before a TIMEOUT error (default 10 minutes). */
  timeoutMs?: number;
  /** First pause between polls (default 500 ms), then ×1.5 per poll up to `maxIntervalMs`. */
  intervalMs?: number;
  /** Longest pause between polls (default 5 s). */
  maxIntervalMs?: number;
  signal?: AbortSignal;
}

/** Options of list. */
export interface ListOptions extends CallOptions {
  status?: JobStatus;
  /** At most 100 (default 20). */
  limit?: number;
  cursor?: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const FINAL: ReadonlySet<JobStatus> = new Set(['succeeded', 'failed', 'canceled']);

/** Calls /v1/jobs of one Pageworks render service with a render key. */
export class JobsClient {
  constructor(private readonly options: ClientOptions) {}

  /** Queues a render or an assembly; resolves with the queued job (or, for a repeated Idempotency-Key, the first one). */
  async submit(request: JobRequest, call: SubmitOptions = {}): Promise<JobObject> {
    const { files, ...rest } = call;
    // A form's Content-Type carries its boundary, which fetch writes.
    const headers: Record<string, string> = files ? {} : { 'content-type': 'application/json' };
    if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
    if (call.strict) headers.prefer = 'handling=strict';
    if (!files) return this.json<JobObject>('POST', '/v1/jobs', rest, { headers, body: JSON.stringify(request) });
    return this.json<JobObject>('POST', '/v1/jobs', rest, {
      ...FORM_FETCH_INIT,
      headers,
      body: await assembleForm(request, files),
    });
  }

  /** The job as it is now. */
  get(id: string, call: CallOptions = {}): Promise<JobObject> {
    return this.json<JobObject>('GET', `/v1/jobs/${encodeURIComponent(id)}`, call);
  }

  /** One page of the account's jobs, newest first; pass `next_cursor` back as `cursor` for the next. */
  list(opts: ListOptions = {}): Promise<JobList> {
    const query = new URLSearchParams();
    if (opts.status) query.set('status', opts.status);
    if (opts.limit !== undefined) query.set('limit', String(opts.limit));
    if (opts.cursor) query.set('cursor', opts.cursor);
    const qs = query.size > 0 ? `?${query}` : '';
    return this.json<JobList>('GET', `/v1/jobs${qs}`, opts);
  }

  /** Cancels a queued or running job (a running render is stopped), or deletes a finished job's PDF; resolves with the job as it is then. */
  cancel(id: string, call: CallOptions = {}): Promise<JobObject> {
    return this.json<JobObject>('DELETE', `/v1/jobs/${encodeURIComponent(id)}`, call);
  }

  /**
   * Polls until the job is succeeded, failed or canceled, pausing longer each time (bounded), and
   * resolves with it; a TIMEOUT error after `timeoutMs`. A failed job resolves too: look at `error`.
   */
  async wait(id: string, opts: WaitOptions = {}): Promise<JobObject> {
    const timeoutMs = opts.timeoutMs ?? 600_000;
    const maxInterval = opts.maxIntervalMs ?? 5000;
    const deadline = Date.now() + timeoutMs;
    let interval = opts.intervalMs ?? 500;
    for (;;) {
      const job = await this.get(id, { signal: opts.signal });
      if (FINAL.has(job.status)) return job;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new RenderApiError('TIMEOUT', `job ${id} still ${job.status} after ${timeoutMs} ms`, undefined, id, undefined);
      await sleep(Math.min(interval, left), opts.signal);
      interval = Math.min(maxInterval, interval * 1.5);
    }
  }

  /** The PDF of a succeeded job as a Node stream (JOB_NOT_DONE before, GONE once it expired). */
  async downloadPdf(id: string, call: CallOptions = {}): Promise<RenderStream> {
    return pdfStreamOf(
      await this.exchange('GET', `/v1/jobs/${encodeURIComponent(id)}/pdf`, call, { headers: { accept: 'application/pdf' } }),
    );
  }

  private async json<T>(method: string, path: string, call: CallOptions, init: RequestInit = {}): Promise<T> {
    return jsonOf<T>(await this.exchange(method, path, call, init));
  }

  private exchange(method: string, path: string, call: CallOptions, init: RequestInit) {
    const headers = { accept: 'application/json', ...(init.headers as Record<string, string>) };
    return renderServiceExchange(this.options, path, { ...init, method, headers }, call, DEFAULT_TIMEOUT_MS);
  }
}
