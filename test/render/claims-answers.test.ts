/**
 * The standards a PDF claims, on every answer that carries the PDF: X-Render-Claims on POST /v1/render and
 * on a job's PDF download (absent when nothing is claimed), `claims` on the job object and its verified
 * webhook, on the client's RenderedPdf and RenderStream; and a strict refusal for claims alone says which
 * profile it refused, not that the document could not get everything.
 */
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { JobsClient, RenderClient, type RenderedPdf, type RenderReport } from '../../src/client/index.js';
import { WebhookSecrets } from '../../src/jobs/webhook-secrets.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { type Delivery, startWebhookSink, type WebhookSink } from '../helpers/webhook-sink.js';
import { jobRequest, submitJob, waitForJob } from '../jobs/helpers.js';

/** Declares PDF/A-3b and PDF/UA-1 and meets both: a language, a title, headings, text. */
const BOTH = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Invoice 2026-0042</title>
<meta name="pdf-profile" content="PDF/A-3b, PDF/UA-1"></head>
<body><h1>Invoice 2026-0042</h1><p>Consulting, November: 1,250.00 EUR.</p></body></html>`;
/** The same with an image without alternative text: PDF/A-3b is met, PDF/UA-1 is not (one warning). */
const NO_ALT = BOTH.replace(
  '</h1>',
  '</h1><img width="8" height="8" src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==">',
);

let core: CoreDeps;
let app: FastifyInstance;
let url: string;
let key: string;
let accountId: string;
let sink: WebhookSink;
const deliveries: Delivery[] = [];

beforeAll(async () => {
  sink = await startWebhookSink(deliveries, { status: 204 });
  core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32', RENDER_CONCURRENCY: '1', RENDER_TIMEOUT_MS: '20000' });
  app = await buildRenderApp(core);
  url = await app.listen({ host: '127.0.0.1', port: 0 });
  ({ key, accountId } = await createKey(core, 'render'));
}, 120_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  await sink?.close();
});

function render(html: string, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/v1/render',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    payload: JSON.stringify({ html }),
  });
}

describe('X-Render-Claims on POST /v1/render', () => {
  it('names both profiles a PDF/A-3b + PDF/UA-1 render claims, as GET /v1/renders/{id} does', async () => {
    const res = await render(BOTH);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-render-claims']).toBe('PDF/A-3b, PDF/UA-1');
    expect(res.headers['x-render-warnings']).toBe('0');
  });

  it('is absent when the PDF claims nothing, and names what is met when one profile is not', async () => {
    const plain = await render('<p>Plain</p>');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['x-render-claims']).toBeUndefined();
    const partial = await render(NO_ALT);
    expect(partial.statusCode).toBe(200);
    expect(partial.headers['x-render-claims']).toBe('PDF/A-3b');
    expect(partial.headers['x-render-warnings']).toBe('1');
  });

  it('a strict refusal for a claim alone names the profile it could not claim', async () => {
    const res = await render(NO_ALT, { prefer: 'handling=strict' });
    expect(res.statusCode).toBe(422);
    expect(res.headers['x-render-claims']).toBeUndefined();
    const { error } = res.json();
    expect(error.code).toBe('RENDER_INCOMPLETE');
    expect(error.message).toMatch(/^PDF\/UA-1 could not be claimed \(1 warning, strict handling\): The image img\b/);
    expect(error.message).not.toContain('could not get everything');
  });
});

describe('claims of a job', () => {
  it('are on the job object, its verified job.succeeded webhook and its PDF download', async () => {
    const res = await submitJob(app, key, { html: BOTH, webhook: { url: sink.url } });
    expect(res.statusCode).toBe(202);
    expect(res.json().claims).toEqual([]);
    const job = await waitForJob(app, key, res.json().id);
    expect(job).toMatchObject({ status: 'succeeded', claims: ['PDF/A-3b', 'PDF/UA-1'], warnings: [] });
    const download = await jobRequest(app, key, 'GET', `/v1/jobs/${job.id}/pdf`);
    expect(download.statusCode).toBe(200);
    expect(download.headers['x-render-claims']).toBe('PDF/A-3b, PDF/UA-1');
    expect(download.headers['x-render-warnings']).toBe('0');
    const until = Date.now() + 30_000;
    while (!deliveries.some((d) => JSON.parse(d.body).data?.id === job.id) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 50));
    const delivery = deliveries.find((d) => JSON.parse(d.body).data?.id === job.id);
    if (!delivery) throw new Error(`no webhook for ${job.id}`);
    const secret = await new WebhookSecrets(core.store, core.secrets?.box).get(accountId);
    const event = new Webhook(secret).verify(delivery.body, delivery.headers) as { type: string; data: { claims: unknown } };
    expect(event.type).toBe('job.succeeded');
    expect(event.data.claims).toEqual(['PDF/A-3b', 'PDF/UA-1']);
  });

  it('a job with nothing claimed downloads without the header; a strict job refused for a claim says which', async () => {
    const plain = await waitForJob(app, key, (await submitJob(app, key, { html: '<p>Plain</p>' })).json().id);
    expect(plain).toMatchObject({ status: 'succeeded', claims: [] });
    const download = await jobRequest(app, key, 'GET', `/v1/jobs/${plain.id}/pdf`);
    expect(download.statusCode).toBe(200);
    expect(download.headers['x-render-claims']).toBeUndefined();
    const strict = await submitJob(app, key, { html: NO_ALT }, { prefer: 'handling=strict' });
    const failed = await waitForJob(app, key, strict.json().id);
    expect(failed).toMatchObject({ status: 'failed', claims: [], error: { code: 'RENDER_INCOMPLETE' } });
    expect(failed.error.message).toMatch(/^PDF\/UA-1 could not be claimed \(1 warning, strict handling\)/);
  });
});

describe('the client', () => {
  it('RenderedPdf and a job download stream carry the claims', async () => {
    const client = new RenderClient({ baseUrl: url, apiKey: key });
    const pdf = await client.render(BOTH);
    expectTypeOf(pdf.claims).toEqualTypeOf<RenderReport['claims']>();
    expectTypeOf<RenderedPdf>().toHaveProperty('claims');
    expect(pdf.claims).toEqual(['PDF/A-3b', 'PDF/UA-1']);
    expect((await client.getRender(pdf.renderId)).claims).toEqual(pdf.claims);
    expect((await client.render('<p>Plain</p>')).claims).toEqual([]);
    const jobs = new JobsClient({ baseUrl: url, apiKey: key });
    const job = await jobs.wait((await jobs.submit({ html: BOTH })).id);
    expect(job.claims).toEqual(['PDF/A-3b', 'PDF/UA-1']);
    const stream = await jobs.downloadPdf(job.id);
    stream.body.resume();
    expect(stream.claims).toEqual(['PDF/A-3b', 'PDF/UA-1']);
  });
});

describe('the render log of a titled PDF/A-3b document', () => {
  it('keeps the PDF’s Title and claims for a sync render, and a job’s reference, searchable by them', async () => {
    const sync = await render(BOTH);
    expect(sync.statusCode, sync.body).toBe(200);
    const syncId = String(sync.headers['x-render-id']);
    const statement = BOTH.replace(/Invoice 2026-0042/g, 'Statement\tof  account <Q4>');
    const submitted = await submitJob(app, key, { html: statement, reference: 'PO-7731' });
    expect(submitted.statusCode, submitted.body).toBe(202);
    const job = await waitForJob(app, key, submitted.json().id);
    expect(job.status).toBe('succeeded');
    // Both records reach the store with the render log's next batches (every second).
    const until = Date.now() + 20_000;
    const search = (text: string) => core.store.listRenderRecords(accountId, { limit: 50, search: text });
    const stored = async (id: string, text: string) => (await search(text)).rows.some((r) => r.id === id);
    while (!((await stored(syncId, 'invoice 2026')) && (await stored(job.id, 'po-7731'))) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    const byTitle = (await search('invoice 2026')).rows;
    expect(byTitle.find((r) => r.id === syncId)).toMatchObject({ title: 'Invoice 2026-0042', claims: ['PDF/A-3b', 'PDF/UA-1'] });
    expect(byTitle.some((r) => r.id === job.id)).toBe(false);
    // The title as the PDF's Info has it (whitespace collapsed), and the job's reference.
    expect((await search('po-7731')).rows.map((r) => [r.id, r.title, r.reference, r.claims])).toEqual([
      [job.id, 'Statement of account <Q4>', 'PO-7731', ['PDF/A-3b', 'PDF/UA-1']],
    ]);
    expect((await search('of account <q4>')).rows.map((r) => r.id)).toEqual([job.id]);
  });
});
