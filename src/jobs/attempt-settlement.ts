/**
 * The end of a job's attempt, written down: a made PDF goes to the result store and the job becomes
 * final; a failure gives the job back, retries it or makes it final; a final job's uploaded files go and
 * its attempt reaches the render log. The worker (worker.ts) decides when an attempt runs and in which
 * slot; what the store and the result store keep of it afterwards is decided here.
 */
import { RenderError } from '../errors.js';
import { DISCARD_RECORDS, incompleteError, type RenderRecord, reportJson } from '../render/index.js';
import type { RenderJobRow } from '../store/jobs-queries.js';
import { BUSY, finalAttemptRecord, hooked, Released, TRANSIENT } from './attempt-outcome.js';
import type { JobResult } from './job-render.js';
import { dropJobUploads } from './job-uploads.js';
import { pdfKey } from './queue.js';
import type { JobWorkerOptions } from './worker-options.js';

/** Stores what a job attempt made, or settles its failure, as the worker `owner` that holds its lease. */
export class AttemptSettlement {
  /** Set when the pool said it is full; the worker's loop clears it as it pauses its claims. */
  pauseClaims = false;

  constructor(
    private readonly opts: JobWorkerOptions,
    private readonly owner: string,
    private readonly now: () => number,
  ) {}

  /** Stores the job's PDF and makes the job final; throws when strict handling refuses the warnings. */
  async settleSuccess(row: RenderJobRow, startedAt: number, printed: JobResult): Promise<void> {
    const { store, results, log } = this.opts;
    const jobLog = { jobId: row.id, accountId: row.account_id, attempt: row.attempts };
    const { pdf, pages, warnings, claims } = printed;
    if (Number(row.strict) === 1 && warnings.length > 0)
      throw incompleteError(warnings, `GET /v1/renders/${row.id} lists them all`);
    // A split assembly answers with a zip, and its key says so (GET /v1/jobs/{id}/pdf sends it as one).
    const key = printed.files ? pdfKey(row).replace(/\.pdf$/, '.zip') : pdfKey(row);
    await results.put(key, pdf);
    const now = this.now();
    const done = await store.finishJob(row.id, this.owner, now, {
      pdf: { key, bytes: pdf.length, pages, expiresAt: now + this.opts.retentionMs, store: results.id },
      // The entries and, when the PDF claims a standard, its claims (the render log's stored form).
      warnings: reportJson(warnings, claims),
    });
    // Canceled (or the account deleted) while rendering: the PDF has no job to belong to.
    if (!done) await results.delete(key);
    else {
      await this.dropUploads(row);
      this.opts.onOutcome?.('succeeded', hooked(row));
      this.record(row, startedAt, printed, null);
    }
    log.info({ ...jobLog, pdfBytes: pdf.length, pages, warnings: warnings.length, kept: done }, 'render job done');
  }

  /**
   * A job made final by this worker: its uploaded files go now (only then: a job this worker lost is
   * another worker's, files and all). What fails here the queue's sweep deletes later.
   */
  private async dropUploads(row: RenderJobRow): Promise<void> {
    await dropJobUploads(this.opts.store, this.opts.results, row).catch((err) =>
      this.opts.log.warn(
        { err: (err as Error).message, jobId: row.id },
        'could not delete the uploaded files of a finished job; the sweep will',
      ),
    );
  }

  /** Reports the job's final attempt to the render log. */
  private record(row: RenderJobRow, startedAt: number, printed: JobResult | undefined, error: RenderRecord['error']): void {
    const recorder = this.opts.recorder ?? DISCARD_RECORDS;
    recorder.record(finalAttemptRecord(row, this.now() - startedAt, printed, error));
  }

  /** Gives the job back, retries it or makes it final, as the failure and the attempts left say. */
  async settleFailure(
    row: RenderJobRow,
    err: unknown,
    signal: AbortSignal,
    startedAt: number,
    printed: JobResult | undefined,
  ): Promise<void> {
    const { store, log } = this.opts;
    const jobLog = { jobId: row.id, accountId: row.account_id, attempt: row.attempts };
    const reason: unknown = signal.aborted ? signal.reason : undefined;
    if (reason instanceof Released) {
      if (reason.message === 'worker stopping' && (await store.releaseJob(row.id, this.owner))) {
        this.opts.onOutcome?.('released', hooked(row));
        log.info(jobLog, 'render job given back to the queue (worker stopping)');
      }
      return;
    }
    const failure =
      err instanceof RenderError
        ? err
        : new RenderError('INTERNAL_ERROR', 'the job could not be rendered or stored', undefined, { cause: err });
    const error = { code: failure.code, message: failure.message };
    if (BUSY.has(failure.code)) {
      this.pauseClaims = true;
      if (await store.releaseJob(row.id, this.owner)) this.opts.onOutcome?.('released', hooked(row));
      return;
    }
    if (TRANSIENT.has(failure.code) && row.attempts < this.opts.maxAttempts) {
      log.warn({ ...jobLog, code: failure.code, err: failure.cause ?? failure.message }, 'render job attempt failed; retrying');
      if (await store.requeueJob(row.id, this.owner, error)) this.opts.onOutcome?.('retried', hooked(row));
      return;
    }
    log.info({ ...jobLog, code: failure.code, reason: failure.message }, 'render job failed');
    const warnings = printed ? JSON.stringify(printed.warnings) : undefined;
    if (await store.finishJob(row.id, this.owner, this.now(), { error, warnings })) {
      await this.dropUploads(row);
      this.opts.onOutcome?.('failed', hooked(row));
      this.record(row, startedAt, printed, error);
    }
  }
}
