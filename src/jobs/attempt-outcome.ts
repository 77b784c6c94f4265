/**
 * How a job attempt ends: its outcome for metrics, which failures are retried or given back, and the
 * render log entry of a job's final attempt.
 */
import type { RenderRecord } from '../render/index.js';
import type { RenderJobRow } from '../store/jobs-queries.js';
import type { JobResult } from './job-render.js';

/** How a job attempt ended, for metrics: `succeeded`, `failed`, `retried` or `released`. */
export type JobOutcome = 'succeeded' | 'failed' | 'retried' | 'released';

/** Errors that say nothing about the document: the attempt is retried while attempts remain. */
export const TRANSIENT = new Set(['RENDER_FAILED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']);

/** The pool refused for lack of capacity (shutting down, no slot in time): give the job back, uncounted. */
export const BUSY = new Set(['OVERLOADED']);

/** Whether the job's final outcome makes a webhook event due. */
export function hooked(row: RenderJobRow): { webhook: boolean } {
  return { webhook: row.webhook_url !== null };
}

/** Why the worker stopped a render itself: the job was canceled, taken by another worker, or handed back. */
export class Released extends Error {}

/** The render log entry of a job's final attempt. */
export function finalAttemptRecord(
  row: RenderJobRow,
  durationMs: number,
  printed: JobResult | undefined,
  error: RenderRecord['error'],
): RenderRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    keyId: row.key_id ?? null,
    createdAt: Number(row.created_at),
    durationMs,
    source: 'job',
    jobId: row.id,
    status: error === null ? 'succeeded' : 'failed',
    error,
    // A failed job (strict handling refused its warnings) delivered no PDF: no pages, bytes or claims.
    pages: error === null ? (printed?.pages ?? null) : null,
    bytes: error === null ? (printed?.pdf.length ?? null) : null,
    warnings: printed?.warnings ?? [],
    claims: error === null ? (printed?.claims ?? []) : [],
    ...(printed?.assembly ? { assembly: printed.assembly } : {}),
    ...(printed?.title ? { title: printed.title } : {}),
    ...(row.reference ? { reference: row.reference } : {}),
  };
}
