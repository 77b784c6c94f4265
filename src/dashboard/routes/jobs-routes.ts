import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isId } from '../../ids.js';
import { decodeCursor, encodeCursor } from '../../jobs/job-list-query.js';
import { JobQueue } from '../../jobs/queue.js';
import { rotationDetail, WebhookSecrets } from '../../jobs/webhook-secrets.js';
import { storedReport, warningCount } from '../../render/index.js';
import type { RenderJobRow } from '../../store/store.js';
import type { WebhookDeliveryRecord, WebhookSecretRecord } from '../../store/webhook-queries.js';
import {
  clientOf,
  type DashboardContext,
  field,
  requireCsrf,
  requireSignedIn,
  sendPage,
  signedInOf,
  viewerOf,
} from '../context.js';
import { errorPage } from '../views/error-view.js';
import { cancelPage, JOB_NOTICES, JOBS_SHOWN, type JobNotice, type JobView, jobsPage, pdfStateOf } from '../views/jobs-view.js';
import { type RotationOverlap, rotatePage } from '../views/webhook-secret-view.js';

/** Redeliver is allowed once a minute per job: a receiver cannot be flooded, a slot cannot be held by one job. */
export const REDELIVER_INTERVAL_MS = 60_000;

/** A file name for the download: the job's reference when it is a plain one, else its id. */
function downloadName(row: RenderJobRow): string {
  const ref = row.reference ?? '';
  return /^[A-Za-z0-9._ -]{1,100}$/.test(ref) ? `${ref}.pdf` : `${row.id}.pdf`;
}

function toView(row: RenderJobRow, deliveries: WebhookDeliveryRecord[], now: number): JobView {
  const num = (v: number | null) => (v === null ? null : Number(v));
  return {
    id: row.id,
    status: row.status,
    reference: row.reference,
    createdAt: Number(row.created_at),
    startedAt: num(row.started_at),
    finishedAt: num(row.finished_at),
    pdfBytes: num(row.pdf_bytes),
    pdfPages: num(row.pdf_pages),
    pdf: pdfStateOf(row, now),
    error: row.status === 'failed' && row.error_code !== null ? { code: row.error_code, message: row.error_message ?? '' } : null,
    webhookUrl: row.webhook_url,
    webhookState: row.webhook_state,
    deliveries: deliveries.filter((d) => d.jobId === row.id),
    warningCount: row.status === 'succeeded' && row.warnings ? warningCount(storedReport(row.warnings).warnings) : 0,
  };
}

/** The cursor of `?cursor=`, or null when there is none or it is not one this page made (then the first page shows). */
function cursorOf(raw: string | undefined): { createdAt: number; id: string } | undefined {
  if (raw === undefined || raw === '') return undefined;
  try {
    return decodeCursor(raw);
  } catch {
    return undefined;
  }
}

/** The Jobs page: render jobs (paged), their PDFs (served from the result store), webhook deliveries, cancel, and the signing secret. */
export function registerJobsRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { core } = ctx;
  const secrets = new WebhookSecrets(core.store, core.secrets?.box);
  // The API's DELETE /v1/jobs/{id} path: a cancel from the dashboard is the same statement.
  const queue = new JobQueue({ store: core.store, results: core.results, maxQueuedPerAccount: core.config.renderJobsMaxQueued });

  const render = async (
    request: FastifyRequest,
    extra: { secret?: string; notice?: JobNotice; rotatedUntil?: number | null; droppedPrevious?: boolean; cursor?: string } = {},
  ) => {
    const signedIn = signedInOf(request);
    const now = Date.now();
    const { rows, next } = await core.store.listJobs(signedIn.account.id, { limit: JOBS_SHOWN, cursor: cursorOf(extra.cursor) });
    const deliveries = await core.store.listWebhookDeliveries(
      signedIn.account.id,
      rows.map((r) => r.id),
    );
    const jobs = rows.map((r) => toView(r, deliveries, now));
    return jobsPage({
      viewer: viewerOf(signedIn),
      jobs,
      now,
      secret: extra.secret,
      rotatedUntil: extra.rotatedUntil,
      droppedPrevious: extra.droppedPrevious,
      notice: extra.notice,
      olderCursor: next === null ? null : encodeCursor(next),
      paged: cursorOf(extra.cursor) !== undefined,
    });
  };

  const notFound = (request: FastifyRequest, message = 'There is no job with this id in your account.') =>
    errorPage({ title: 'Job not found', message, viewer: viewerOf(signedInOf(request)) });

  app.get('/jobs', { preHandler: requireSignedIn }, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    // Notices come from a fixed set by name: nothing of the query is ever shown.
    const notice = (JOB_NOTICES as readonly string[]).includes(query.notice ?? '') ? (query.notice as JobNotice) : undefined;
    return sendPage(reply, 200, await render(request, { notice, cursor: query.cursor }));
  });

  // The PDF of the signed-in account's job, streamed from the result store (the browser has a session, not an API key).
  app.get<{ Params: { id: string } }>('/jobs/:id/pdf', { preHandler: requireSignedIn }, async (request, reply) => {
    const accountId = signedInOf(request).account.id;
    // Not an id at all (a NUL byte, say) is the same 404, before the store sees it; another account's job
    // and no job at all look the same. The rest is answered as GET /v1/jobs/{id}/pdf answers it.
    const found = isId('job', request.params.id)
      ? await queue.openPdf(accountId, request.params.id)
      : { kind: 'not_found' as const };
    switch (found.kind) {
      case 'not_found':
        return sendPage(reply, 404, notFound(request));
      case 'not_done':
      case 'gone':
        return sendPage(
          reply,
          404,
          notFound(request, 'This job has no PDF to download: it has not succeeded, or its PDF expired or was deleted.'),
        );
      case 'elsewhere':
        // The PDF exists, in a result store this dashboard does not reach: the operator's to fix.
        request.log.error({ err: found.error.cause, jobId: found.row.id }, "job PDF not in this instance's result store");
        return sendPage(
          reply.header('Retry-After', String(found.error.retryAfterS ?? 5)),
          503,
          errorPage({
            title: 'PDF not reachable from here',
            message:
              'This job has a PDF, but it is kept in a result store this dashboard cannot read (RESULT_STORE is not shared by every instance). Try again in a moment; if it persists, tell the operator.',
            viewer: viewerOf(signedInOf(request)),
          }),
        );
      case 'ok':
        return reply
          .code(200)
          .type('application/pdf')
          .header('content-length', String(found.result.bytes))
          .header('content-disposition', `attachment; filename="${downloadName(found.row)}"`)
          .send(found.result.body);
    }
  });

  // Canceling asks first: a running job loses the render it has done so far.
  app.get<{ Params: { id: string } }>('/jobs/:id/cancel', { preHandler: requireSignedIn }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const row = isId('job', request.params.id) ? await core.store.findJob(request.params.id, signedIn.account.id) : undefined;
    if (!row) return sendPage(reply, 404, notFound(request));
    if (row.status !== 'queued' && row.status !== 'running') return reply.redirect('/jobs?notice=cancel-too-late', 303);
    return sendPage(
      reply,
      200,
      cancelPage(viewerOf(signedIn), { id: row.id, status: row.status, reference: row.reference, webhookUrl: row.webhook_url }),
    );
  });

  app.post<{ Params: { id: string } }>(
    '/jobs/:id/cancel',
    { preHandler: [requireSignedIn, requireCsrf] },
    async (request, reply) => {
      const accountId = signedInOf(request).account.id;
      const row = isId('job', request.params.id) ? await core.store.findJob(request.params.id, accountId) : undefined;
      if (!row) return sendPage(reply, 404, notFound(request));
      // Finished meanwhile: the button was for a job that no longer runs; nothing is deleted.
      if (row.status !== 'queued' && row.status !== 'running') return reply.redirect('/jobs?notice=cancel-too-late', 303);
      const after = await queue.cancel(accountId, row.id);
      request.log.info({ jobId: row.id, accountId, status: after.status }, 'render job canceled from the dashboard');
      const notice = after.status !== 'canceled' ? 'cancel-too-late' : row.status === 'running' ? 'canceled-running' : 'canceled';
      return reply.redirect(`/jobs?notice=${notice}`, 303);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/jobs/:id/redeliver',
    { preHandler: [requireSignedIn, requireCsrf] },
    async (request, reply) => {
      const accountId = signedInOf(request).account.id;
      const outcome = isId('job', request.params.id)
        ? await core.store.redeliverWebhook(accountId, request.params.id, Date.now(), REDELIVER_INTERVAL_MS)
        : ({ kind: 'not_found' } as const);
      if (outcome.kind === 'not_found')
        return sendPage(reply, 404, notFound(request, 'There is no finished job with a webhook under this id in your account.'));
      request.log.info({ jobId: request.params.id, accountId, outcome: outcome.kind }, 'webhook redelivery asked for');
      const notice =
        outcome.kind === 'queued' ? 'redelivered' : outcome.kind === 'after_attempt' ? 'redeliver-waits' : 'redeliver-too-soon';
      return reply.redirect(`/jobs?notice=${notice}`, 303);
    },
  );

  // Revealing is a POST with the CSRF token: the secret never sits in a URL, a history entry or a log line.
  app.post('/jobs/webhook-secret/reveal', { preHandler: [requireSignedIn, requireCsrf] }, async (request, reply) => {
    const accountId = signedInOf(request).account.id;
    const secret = await secrets.get(accountId);
    await core.activity.record(accountId, 'webhook_secret_revealed', 'dashboard', { client: clientOf(request) });
    return sendPage(reply, 200, await render(request, { secret }));
  });

  /** Which secret a confirmation page was shown for: its creation time, or "none" before the first. */
  const versionOf = (found: WebhookSecretRecord | undefined) => String(found?.createdAt ?? 'none');
  /** The last rotation while its replaced secret still signs (its 24 hours), else undefined. */
  const overlapOf = (found: WebhookSecretRecord | undefined, now: number): RotationOverlap | undefined =>
    found !== undefined && found.previousSecret !== null && found.previousUntil !== null && found.previousUntil > now
      ? { rotatedAt: found.createdAt, until: found.previousUntil }
      : undefined;

  // Rotating asks first: receivers that still hold only the old secret stop verifying once the overlap ends,
  // or at once for the secret before it when a rotation is still in its overlap.
  app.get('/jobs/webhook-secret/rotate', { preHandler: requireSignedIn }, async (request, reply) => {
    const signedIn = signedInOf(request);
    const found = await core.store.findWebhookSecrets(signedIn.account.id);
    return sendPage(reply, 200, rotatePage(viewerOf(signedIn), versionOf(found), overlapOf(found, Date.now())));
  });

  // The new secret is shown in this answer, once. The form names the secret it replaces, so a reload that
  // resends it (or a second tab's) rotates nothing more and shows no secret.
  app.post('/jobs/webhook-secret/rotate', { preHandler: [requireSignedIn, requireCsrf] }, async (request, reply) => {
    const accountId = signedInOf(request).account.id;
    const found = await core.store.findWebhookSecrets(accountId);
    if (field(request, 'replaces') !== versionOf(found)) return reply.redirect('/jobs?notice=rotated-already', 303);
    const dropped = overlapOf(found, Date.now()) !== undefined;
    const rotation = await secrets.rotate(accountId);
    await core.activity.record(accountId, 'webhook_secret_rotated', 'dashboard', {
      client: clientOf(request),
      detail: rotationDetail(rotation),
    });
    request.log.info({ accountId }, 'webhook secret rotated');
    return sendPage(
      reply,
      200,
      await render(request, { secret: rotation.secret, rotatedUntil: rotation.previousUntil, droppedPrevious: dropped }),
    );
  });
}
