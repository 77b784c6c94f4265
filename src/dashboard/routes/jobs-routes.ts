import type { FastifyInstance, FastifyRequest } from 'fastify';
import { WebhookSecrets } from '../../jobs/webhook-secrets.js';
import type { RenderJobRow } from '../../store/store.js';
import type { WebhookDeliveryRecord } from '../../store/webhook-queries.js';
import { type DashboardContext, requireCsrf, requireSignedIn, sendPage, signedInOf, viewerOf } from '../context.js';
import { errorPage } from '../views/error-view.js';
import { JOBS_SHOWN, type JobView, jobsPage } from '../views/jobs-view.js';

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
    pdfAvailable: row.pdf_key !== null && row.pdf_expires_at !== null && Number(row.pdf_expires_at) > now,
    error: row.status === 'failed' && row.error_code !== null ? { code: row.error_code, message: row.error_message ?? '' } : null,
    webhookUrl: row.webhook_url,
    webhookState: row.webhook_state,
    deliveries: deliveries.filter((d) => d.jobId === row.id),
  };
}

/** The Jobs page: recent render jobs, their PDFs (served from the result store) and webhook deliveries, and the signing secret. */
export function registerJobsRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { core } = ctx;
  const secrets = new WebhookSecrets(core.store);

  const render = async (request: FastifyRequest, extra: { secret?: string; notice?: string } = {}) => {
    const signedIn = signedInOf(request);
    const now = Date.now();
    const { rows } = await core.store.listJobs(signedIn.account.id, { limit: JOBS_SHOWN });
    const deliveries = await core.store.listWebhookDeliveries(
      signedIn.account.id,
      rows.map((r) => r.id),
    );
    const jobs = rows.map((r) => toView(r, deliveries, now));
    return jobsPage({ viewer: viewerOf(signedIn), jobs, now, ...extra });
  };

  const notFound = (request: FastifyRequest, message = 'There is no job with this id in your account.') =>
    errorPage({ title: 'Job not found', message, viewer: viewerOf(signedInOf(request)) });

  app.get('/jobs', { preHandler: requireSignedIn }, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    let notice: string | undefined;
    if (query.redelivered) notice = `The webhook of ${query.redelivered} is queued for delivery again.`;
    if (query.rotated !== undefined) notice = 'The webhook secret was rotated. Reveal it to update your receivers.';
    return sendPage(reply, 200, await render(request, { notice }));
  });

  // The PDF of the signed-in account's job, streamed from the result store (the browser has a session, not an API key).
  app.get<{ Params: { id: string } }>('/jobs/:id/pdf', { preHandler: requireSignedIn }, async (request, reply) => {
    const accountId = signedInOf(request).account.id;
    const row = await core.store.findJob(request.params.id, accountId);
    // Another account's job and no job at all look the same.
    if (!row) return sendPage(reply, 404, notFound(request));
    const live = row.pdf_key !== null && row.pdf_expires_at !== null && Number(row.pdf_expires_at) > Date.now();
    const stored = live && row.pdf_key !== null ? await core.results.get(row.pdf_key) : undefined;
    if (!stored)
      return sendPage(
        reply,
        404,
        notFound(request, 'This job has no PDF to download: it has not succeeded, or its PDF expired or was deleted.'),
      );
    return reply
      .code(200)
      .type('application/pdf')
      .header('content-length', String(stored.bytes))
      .header('content-disposition', `attachment; filename="${downloadName(row)}"`)
      .send(stored.body);
  });

  app.post<{ Params: { id: string } }>(
    '/jobs/:id/redeliver',
    { preHandler: [requireSignedIn, requireCsrf] },
    async (request, reply) => {
      const accountId = signedInOf(request).account.id;
      const queued = await core.store.redeliverWebhook(accountId, request.params.id, Date.now());
      if (!queued)
        return sendPage(reply, 404, notFound(request, 'There is no finished job with a webhook under this id in your account.'));
      request.log.info({ jobId: request.params.id, accountId }, 'webhook redelivery queued');
      return reply.redirect(`/jobs?redelivered=${encodeURIComponent(request.params.id)}`, 303);
    },
  );

  // Revealing is a POST with the CSRF token: the secret never sits in a URL, a history entry or a log line.
  app.post('/jobs/webhook-secret/reveal', { preHandler: [requireSignedIn, requireCsrf] }, async (request, reply) => {
    const secret = await secrets.get(signedInOf(request).account.id);
    return sendPage(reply, 200, await render(request, { secret }));
  });

  app.post('/jobs/webhook-secret/rotate', { preHandler: [requireSignedIn, requireCsrf] }, async (request, reply) => {
    const accountId = signedInOf(request).account.id;
    await secrets.rotate(accountId);
    request.log.info({ accountId }, 'webhook secret rotated');
    return reply.redirect('/jobs?rotated', 303);
  });
}
