/**
 * The record of one POST /v1/render (or POST /v1/assemble) for the render log, built as its answer is sent: past
 * authentication every render is recorded, the ones refused or failed too (with their error code).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RecordAssembly, RenderRecorder } from '../../report/report.js';
import type { RenderResult } from '../pool/render-attempt.js';

/** The code and message of a render error answer `{"error":{"code","message"}}`, if the payload is one. */
function errorOf(payload: unknown): { code: string; message: string } {
  try {
    const parsed = JSON.parse(String(payload)) as { error?: { code?: unknown; message?: unknown } };
    const { code, message } = parsed.error ?? {};
    if (typeof code === 'string') return { code, message: typeof message === 'string' ? message : '' };
  } catch {
    // not JSON: a failure without the render shape (there should be none)
  }
  return { code: 'INTERNAL_ERROR', message: 'internal error' };
}

/** Records the answered render (nothing before authentication: there is no account to show it to). */
export function recordRender(
  recorder: RenderRecorder,
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  result: (RenderResult & { assembly?: RecordAssembly }) | undefined,
): void {
  const auth = request.auth;
  if (!auth) return;
  const durationMs = Math.round(reply.elapsedTime);
  const succeeded = reply.statusCode < 400;
  recorder.record({
    id: request.id,
    accountId: auth.accountId,
    keyId: auth.keyId,
    createdAt: Date.now() - durationMs,
    durationMs,
    source: 'api',
    jobId: null,
    status: succeeded ? 'succeeded' : 'failed',
    error: succeeded ? null : errorOf(payload),
    // A refused render (strict handling and a warning) delivered no PDF: it has no pages, bytes or claims to show,
    // only the warnings that refused it.
    pages: succeeded ? (result?.pages ?? null) : null,
    bytes: succeeded ? (result?.pdf.length ?? null) : null,
    warnings: result?.warnings ?? [],
    claims: succeeded ? (result?.claims ?? []) : [],
    ...(result?.assembly ? { assembly: result.assembly } : {}),
    ...(result?.title ? { title: result.title } : {}),
  });
}
