/**
 * Render jobs end to end, embedded: a real render service (store on a temp dir, real Chromium) on a
 * free port, driven by the typed client; webhooks go to a loopback receiver let through with
 * EGRESS_ALLOW and are verified with the `standardwebhooks` package; the PDF is downloaded as a stream
 * and read back with pdfinfo.
 */
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { JobsClient, verifyWebhook } from '../../src/client/index.js';
import { WebhookSecrets } from '../../src/jobs/webhook-secrets.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { type Delivery, startWebhookSink, type WebhookSink } from '../helpers/webhook-sink.js';
import { pdfInfo } from '../render/pdf-tools.js';

let core: CoreDeps;
let app: FastifyInstance;
let client: JobsClient;
let accountId: string;
let receiver: WebhookSink;
let hookUrl: string;
const deliveries: Delivery[] = [];

beforeAll(async () => {
  receiver = await startWebhookSink(deliveries, { status: 204, path: '/hooks/pageworks' });
  hookUrl = receiver.url;
  core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32', RENDER_CONCURRENCY: '1', RENDER_TIMEOUT_MS: '3000' });
  app = await buildRenderApp(core);
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  const created = await createKey(core, 'render');
  accountId = created.accountId;
  client = new JobsClient({ baseUrl, apiKey: created.key });
}, 120_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  await receiver?.close();
});

async function deliveryFor(jobId: string, timeoutMs = 30_000): Promise<Delivery> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = deliveries.find((d) => JSON.parse(d.body).data?.id === jobId);
    if (found) return found;
    if (Date.now() > until) throw new Error(`no webhook for ${jobId} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('render jobs end to end', () => {
  it('submit → job.succeeded webhook (verified) → PDF downloaded with the options honoured', async () => {
    const submitted = await client.submit(
      {
        html: '<h1>Invoice 42</h1><p style="page-break-before:always">Page two</p>',
        options: { format: 'A5', landscape: true },
        reference: 'invoice-42',
        webhook: { url: hookUrl },
      },
      { idempotencyKey: 'e2e-invoice-42' },
    );
    expect(submitted).toMatchObject({ status: 'queued', reference: 'invoice-42', pdf: null });
    const done = await client.wait(submitted.id, { timeoutMs: 90_000, intervalMs: 100 });
    expect(done).toMatchObject({ id: submitted.id, status: 'succeeded', attempts: 1, error: null });

    const delivery = await deliveryFor(submitted.id);
    const secret = await new WebhookSecrets(core.store, core.secrets?.box).get(accountId);
    const event = new Webhook(secret).verify(delivery.body, delivery.headers) as { type: string; data: unknown };
    expect(event.type).toBe('job.succeeded');
    expect(event.data).toEqual(done);
    expect(delivery.headers['webhook-id']).toBe(`msg_${submitted.id}`);
    // The client's own verifier agrees.
    expect(verifyWebhook(secret, delivery.headers, delivery.body).data.id).toBe(submitted.id);

    const download = await client.downloadPdf(submitted.id);
    const pdf = await readAll(download.body);
    expect(download.contentLength).toBe(pdf.length);
    expect(pdf.length).toBe(done.pdf?.bytes);
    const info = pdfInfo(pdf);
    // A5 landscape: 210 × 148 mm = 595.28 × 419.53 pt (Chromium rounds the page to whole CSS pixels).
    expect(info.pages).toBe(2);
    expect(done.pdf?.pages).toBe(2);
    expect(Math.abs(info.width - 595.28), `width ${info.width}`).toBeLessThanOrEqual(1.5);
    expect(Math.abs(info.height - 419.53), `height ${info.height}`).toBeLessThanOrEqual(1.5);
  }, 120_000);

  it('a never-ready document ends failed with RENDER_TIMEOUT and a job.failed webhook', async () => {
    const submitted = await client.submit({
      html: '<script>window.pageworksReady = false</script><p>never ready</p>',
      reference: 'never-ready',
      webhook: { url: hookUrl },
    });
    const done = await client.wait(submitted.id, { timeoutMs: 90_000, intervalMs: 100 });
    expect(done.status).toBe('failed');
    expect(done.error?.code).toBe('RENDER_TIMEOUT');
    expect(done.pdf).toBeNull();
    const delivery = await deliveryFor(submitted.id);
    const secret = await new WebhookSecrets(core.store, core.secrets?.box).get(accountId);
    const event = new Webhook(secret).verify(delivery.body, delivery.headers) as { type: string; data: typeof done };
    expect(event.type).toBe('job.failed');
    expect(event.data.error).toEqual(done.error);
    // A failed job never had a PDF: 409, as for a job not done.
    await expect(client.downloadPdf(submitted.id)).rejects.toMatchObject({ code: 'JOB_NOT_DONE', status: 409 });
  }, 120_000);

  it('records each delivery attempt in the store', async () => {
    const { rows } = await core.store.listJobs(accountId, { limit: 10 });
    const ids = rows.map((r) => r.id);
    const attempts = await core.store.listWebhookDeliveries(accountId, ids);
    expect(attempts.length).toBe(2);
    for (const a of attempts) expect(a).toMatchObject({ attempt: 1, statusCode: 204, error: null });
    for (const r of rows) expect(r.webhook_state).toBe('delivered');
    const metrics = await app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/^pageworks_webhook_deliveries_total\{outcome="delivered",service="render"\} 2$/m);
    expect(metrics.body).toMatch(/^pageworks_webhook_deliveries_total\{outcome="failed",service="render"\} 0$/m);
  });
});
