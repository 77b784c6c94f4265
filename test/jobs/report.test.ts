/**
 * The render report on jobs: a job of the mixed document succeeds with `warnings` (in the job
 * object and its verified job.succeeded webhook); submitted with Prefer: handling=strict it fails
 * RENDER_INCOMPLETE with a verified job.failed webhook; each job's final attempt reaches the render log.
 */
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { WebhookSecrets } from '../../src/jobs/webhook-secrets.js';
import type { RenderRecord } from '../../src/report/report.js';
import { mixedDocument, mixedLookup, startAssetServer } from '../fixtures/render/mixed-document.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { type Delivery, startWebhookSink, type WebhookSink } from '../helpers/webhook-sink.js';
import { submitJob, waitForJob } from './helpers.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let accountId: string;
let receiver: WebhookSink;
let assets: Awaited<ReturnType<typeof startAssetServer>>;
const deliveries: Delivery[] = [];
const records: RenderRecord[] = [];

beforeAll(async () => {
  assets = await startAssetServer();
  receiver = await startWebhookSink(deliveries, { status: 204 });
  core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32', RENDER_CONCURRENCY: '2', RENDER_TIMEOUT_MS: '15000' });
  app = await buildRenderApp(core, { lookup: mixedLookup, recorder: { record: (r) => records.push(r) } });
  ({ key, accountId } = await createKey(core, 'render'));
}, 120_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  await receiver?.close();
  await assets?.close();
});

/** The verified webhook event of a job (waits for its delivery). */
async function eventFor(jobId: string): Promise<{ type: string; data: Record<string, unknown> }> {
  const until = Date.now() + 30_000;
  for (;;) {
    const found = deliveries.find((d) => JSON.parse(d.body).data?.id === jobId);
    if (found) {
      const secret = await new WebhookSecrets(core.store, core.secrets?.box).get(accountId);
      return new Webhook(secret).verify(found.body, found.headers) as { type: string; data: Record<string, unknown> };
    }
    if (Date.now() > until) throw new Error(`no webhook for ${jobId}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const KINDS = ['font_failed', 'resource_blocked', 'resource_blocked', 'resource_failed', 'script_error'];
const kinds = (warnings: Array<{ kind: string }>) => warnings.map((w) => w.kind).sort();

describe('jobs of the mixed document', () => {
  it('succeeds with its warnings, in the job object and the job.succeeded webhook', async () => {
    const res = await submitJob(app, key, { html: mixedDocument(assets.base), webhook: { url: receiver.url } });
    expect(res.statusCode).toBe(202);
    expect(res.json().warnings).toEqual([]);
    expect(res.headers['preference-applied']).toBeUndefined();
    const job = await waitForJob(app, key, res.json().id);
    expect(job).toMatchObject({ status: 'succeeded', error: null });
    expect(kinds(job.warnings)).toEqual(KINDS);
    expect(job.warnings).toContainEqual({
      kind: 'resource_blocked',
      url: 'http://brand.internal.test/brand.css',
      reason: 'private_address',
      message: 'brand.css was not loaded: its address is on a private network (EGRESS_ALLOW lets an operator allow it)',
    });
    const event = await eventFor(job.id);
    expect(event.type).toBe('job.succeeded');
    expect(event.data.warnings).toEqual(job.warnings);
    expect(records.find((r) => r.id === job.id)).toMatchObject({
      source: 'job',
      jobId: job.id,
      accountId,
      keyId: expect.any(String),
      status: 'succeeded',
      pages: 1,
      bytes: job.pdf.bytes,
      warnings: job.warnings,
    });
  });

  it('submitted strict, fails RENDER_INCOMPLETE and sends a verified job.failed', async () => {
    const res = await submitJob(
      app,
      key,
      { html: mixedDocument(assets.base), webhook: { url: receiver.url } },
      { prefer: 'handling=strict' },
    );
    expect(res.statusCode).toBe(202);
    expect(res.headers['preference-applied']).toBe('handling=strict');
    const job = await waitForJob(app, key, res.json().id);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, pdf: null, error: { code: 'RENDER_INCOMPLETE' } });
    expect(job.error.message).toMatch(/^the document could not get everything \(5 warnings, strict handling\)/);
    expect(kinds(job.warnings)).toEqual(KINDS);
    const event = await eventFor(job.id);
    expect(event.type).toBe('job.failed');
    expect(event.data).toMatchObject({ status: 'failed', error: job.error, warnings: job.warnings });
    expect(records.find((r) => r.id === job.id)).toMatchObject({ source: 'job', status: 'failed', error: job.error });
  });

  it('a clean document submitted strict succeeds with no warnings', async () => {
    const res = await submitJob(app, key, { html: '<h1>Paid</h1>' }, { prefer: 'handling=strict' });
    const job = await waitForJob(app, key, res.json().id);
    expect(job).toMatchObject({ status: 'succeeded', warnings: [] });
  });
});
