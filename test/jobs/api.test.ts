/**
 * The render job API through the real render app (real Chromium, real SQLite, files under a temporary
 * data dir): validation, idempotency, the queued cap, cancellation and isolation while the worker is
 * held; then submit → poll → download (read back with pdfinfo), a never-ready document, a lapsed
 * lease, deletion and retention with the worker running.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { pdfInfo } from '../render/pdf-tools.js';
import { expectJobError, jobRequest, submitJob, waitForJob } from './helpers.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let otherKey: string;

// The one name the stub resolver knows, at a public address: classification only, nothing is sent there.
const HOOK_URL = 'https://hooks.example.com/pageworks';
async function stubLookup(hostname: string) {
  if (hostname === 'hooks.example.com') return [{ address: '93.184.215.14', family: 4 as const }];
  throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
}

const TEXT = '<html><body><p style="font:20px sans-serif">Invoice 42</p></body></html>';
const MAX_QUEUED = 6;

beforeAll(async () => {
  core = await createTestCore({
    RENDER_CONCURRENCY: '2',
    RENDER_TIMEOUT_MS: '12000',
    RENDER_JOBS_MAX_QUEUED: String(MAX_QUEUED),
    RENDER_JOB_LEASE_MS: '1500',
    RENDER_RATE_LIMIT: '1000',
  });
  app = await buildRenderApp(core, { lookup: stubLookup, startJobWorker: false });
  key = (await createKey(core, 'render')).key;
  otherKey = (await createKey(core, 'render')).key;
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

/** Cancels every queued job of the key's account, so the next test starts from an empty queue. */
async function cancelAll(k: string) {
  const list = await jobRequest(app, k, 'GET', '/v1/jobs?status=queued&limit=100');
  for (const job of list.json().data) await jobRequest(app, k, 'DELETE', `/v1/jobs/${job.id}`);
}

describe('with the worker held', () => {
  it('answers 202 with the job object, Location and X-Render-ID; GET and the list show it', async () => {
    const res = await submitJob(app, key, { html: TEXT, reference: 'inv-42' });
    expect(res.statusCode).toBe(202);
    const job = res.json();
    expect(job).toEqual({
      id: expect.stringMatching(/^job_[0-9a-f]{32}$/),
      status: 'queued',
      reference: 'inv-42',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      started_at: null,
      finished_at: null,
      attempts: 0,
      error: null,
      pdf: null,
      warnings: [],
      claims: [],
    });
    expect(res.headers.location).toBe(`/v1/jobs/${job.id}`);
    expect(res.headers['x-render-id']).toBe(job.id);
    const got = await jobRequest(app, key, 'GET', `/v1/jobs/${job.id}`);
    expect(got.json()).toEqual(job);
    expect(got.headers['x-render-id']).toBe(job.id);
    const pdf = await jobRequest(app, key, 'GET', `/v1/jobs/${job.id}/pdf`);
    expectJobError(pdf, 409, 'JOB_NOT_DONE', `job ${job.id} is queued`);
    const list = await jobRequest(app, key, 'GET', '/v1/jobs');
    expect(list.json()).toEqual({ data: [job], next_cursor: null });
  });

  it('DELETE of a queued job cancels it', async () => {
    const { id } = (await submitJob(app, key, { html: TEXT })).json();
    const res = await jobRequest(app, key, 'DELETE', `/v1/jobs/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, status: 'canceled', finished_at: expect.any(String), pdf: null });
    expect((await jobRequest(app, key, 'GET', `/v1/jobs/${id}`)).json().status).toBe('canceled');
    expectJobError(
      await jobRequest(app, key, 'GET', `/v1/jobs/${id}/pdf`),
      409,
      'JOB_NOT_DONE',
      `job ${id} canceled: it has no PDF`,
    );
    await cancelAll(key);
  });

  it("another account's job is 404 NOT_FOUND on every route and absent from its list", async () => {
    const { id } = (await submitJob(app, key, { html: TEXT })).json();
    for (const [method, url] of [
      ['GET', `/v1/jobs/${id}`],
      ['GET', `/v1/jobs/${id}/pdf`],
      ['DELETE', `/v1/jobs/${id}`],
    ] as const) {
      const res = await jobRequest(app, otherKey, method, url);
      expectJobError(res, 404, 'NOT_FOUND', `no job ${id}`);
      expect(res.headers['x-render-id']).toMatch(/^rnd_/);
    }
    expect((await jobRequest(app, otherKey, 'GET', '/v1/jobs')).json()).toEqual({ data: [], next_cursor: null });
    // Still queued: the other account's DELETE did nothing.
    expect((await jobRequest(app, key, 'GET', `/v1/jobs/${id}`)).json().status).toBe('queued');
    await cancelAll(key);
  });

  it('refuses bad requests with the codes of /v1/render', async () => {
    expectJobError(await submitJob(app, key, { html: TEXT, colour: 'red' }), 400, 'INVALID_REQUEST', 'colour: unknown field');
    expectJobError(
      await submitJob(app, key, { html: TEXT, options: { format: 'B7' } }),
      400,
      'INVALID_REQUEST',
      /options\.format/,
    );
    expectJobError(
      await submitJob(app, key, { html: TEXT, reference: 'r'.repeat(201) }),
      400,
      'INVALID_REQUEST',
      'reference: 201 characters is more than the limit of 200',
    );
    expect((await submitJob(app, key, { html: TEXT, reference: 'r'.repeat(200) })).statusCode).toBe(202);
    expectJobError(
      await submitJob(app, key, { html: TEXT, reference: 'inv\u202e42' }),
      400,
      'INVALID_REQUEST',
      'reference cannot contain control or invisible formatting characters (found U+202E at position 4)',
    );
    expect((await submitJob(app, key, { html: TEXT, reference: 'Rechnung Nr. 42 — Zoë 日本' })).statusCode).toBe(202);
    expectJobError(
      await submitJob(app, key, { html: TEXT, webhook: { url: HOOK_URL, secret: 'x' } }),
      400,
      'INVALID_REQUEST',
      'webhook.secret: unknown field',
    );
    expectJobError(
      await submitJob(app, key, { html: 'x'.repeat(10 * 1024 * 1024 + 1) }),
      413,
      'PAYLOAD_TOO_LARGE',
      /^html: 10485761 bytes/,
    );
    expectJobError(await submitJob(app, key, 'html=x', { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectJobError(await submitJob(app, key, '{"html":'), 400, 'INVALID_REQUEST', /not valid JSON/);
    expectJobError(
      await submitJob(app, key, { html: TEXT }, { 'idempotency-key': 'k'.repeat(256) }),
      400,
      'INVALID_REQUEST',
      /^Idempotency-Key: /,
    );
    expectJobError(await jobRequest(app, key, 'GET', '/v1/jobs?limit=101'), 400, 'INVALID_REQUEST', /^limit: /);
    expectJobError(await jobRequest(app, key, 'GET', '/v1/jobs?status=done'), 400, 'INVALID_REQUEST', /^status: /);
    expectJobError(await jobRequest(app, key, 'GET', '/v1/jobs?cursor=nonsense'), 400, 'INVALID_REQUEST', /^cursor: /);
    expectJobError(await jobRequest(app, 'pwr_live_nope', 'GET', '/v1/jobs'), 401, 'UNAUTHORIZED');
    await cancelAll(key);
  });

  it('refuses webhook URLs the egress policy forbids, with no packet sent (EGRESS_ALLOW unset)', async () => {
    for (const [url, reason] of [
      ['http://10.0.0.1/hook', /10\.0\.0\.1 is private/],
      ['http://localhost/hook', /localhost is loopback/],
      ['http://[::1]:8080/', /loopback/],
      ['http://169.254.169.254/latest/meta-data', /linkLocal|link-local/i],
      ['ftp://hooks.example.com/x', /scheme "ftp" is not allowed/],
      ['not a url', /not a URL/],
      [`https://hooks.example.com/${'a'.repeat(2048)}`, /longer than 2048/],
      ['https://nowhere.invalid/x', /could not be resolved/],
    ] as const) {
      const res = await submitJob(app, key, { html: TEXT, webhook: { url } });
      expectJobError(res, 400, 'INVALID_REQUEST', reason);
      expect(res.json().error.message).toMatch(/^webhook\.url: /);
    }
    expect((await submitJob(app, key, { html: TEXT, webhook: { url: HOOK_URL } })).statusCode).toBe(202);
    await cancelAll(key);
  });

  it('20 concurrent POSTs with one Idempotency-Key give one job; another body with that key is 422', async () => {
    const body = { html: TEXT, options: { format: 'A5' }, reference: 'once' };
    const results = await Promise.all(
      Array.from({ length: 20 }, () => submitJob(app, key, body, { 'idempotency-key': 'month-end-42' })),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(202));
    const ids = new Set(results.map((r) => r.json().id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    const list = (await jobRequest(app, key, 'GET', '/v1/jobs?status=queued')).json();
    expect(list.data.filter((j: { reference: string }) => j.reference === 'once')).toHaveLength(1);
    // The same body with its keys in another order is the same request.
    const reordered = await submitJob(
      app,
      key,
      { reference: 'once', options: { format: 'A5' }, html: TEXT },
      { 'idempotency-key': 'month-end-42' },
    );
    expect(reordered.json().id).toBe([...ids][0]);
    const other = await submitJob(app, key, { ...body, reference: 'twice' }, { 'idempotency-key': 'month-end-42' });
    expectJobError(other, 422, 'IDEMPOTENCY_KEY_REUSED', /^Idempotency-Key: already used for job job_/);
    await cancelAll(key);
  });

  it(`refuses job ${MAX_QUEUED + 1} of one account with 429 while ${MAX_QUEUED} are queued (RENDER_JOBS_MAX_QUEUED=${MAX_QUEUED})`, async () => {
    const busy = (await createKey(core, 'render')).key;
    for (let i = 0; i < MAX_QUEUED; i++) expect((await submitJob(app, busy, { html: TEXT })).statusCode).toBe(202);
    const refused = await submitJob(app, busy, { html: TEXT });
    expectJobError(
      refused,
      429,
      'RATE_LIMITED',
      `${MAX_QUEUED} render jobs of this account are queued already (at most ${MAX_QUEUED}); submit more as these finish`,
    );
    expect(refused.headers['retry-after']).toBe('30');
    // Another account is not affected; a canceled job frees a place.
    expect((await submitJob(app, otherKey, { html: TEXT })).statusCode).toBe(202);
    const first = (await jobRequest(app, busy, 'GET', '/v1/jobs?limit=1')).json().data[0];
    await jobRequest(app, busy, 'DELETE', `/v1/jobs/${first.id}`);
    expect((await submitJob(app, busy, { html: TEXT })).statusCode).toBe(202);
    await cancelAll(busy);
    await cancelAll(otherKey);
  });

  it('a submit counts against the render rate limit; reading jobs does not', async () => {
    const limited = await createKey(core, 'render');
    await core.accounts.setLimit(limited.accountId, 'render', 2);
    const a = await submitJob(app, limited.key, { html: TEXT });
    expect(a.statusCode).toBe(202);
    for (let i = 0; i < 5; i++)
      expect((await jobRequest(app, limited.key, 'GET', `/v1/jobs/${a.json().id}`)).statusCode).toBe(200);
    expect((await submitJob(app, limited.key, { html: TEXT })).statusCode).toBe(202);
    expectJobError(
      await submitJob(app, limited.key, { html: TEXT }),
      429,
      'RATE_LIMITED',
      /^rate limit of 2 render requests per minute exceeded/,
    );
    await cancelAll(limited.key);
  });

  it('lists newest first, page by page with next_cursor', async () => {
    const lister = (await createKey(core, 'render')).key;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await submitJob(app, lister, { html: TEXT, reference: `r${i}` })).json().id);
    const seen: string[] = [];
    let url = '/v1/jobs?limit=2';
    for (let page = 0; page < 5; page++) {
      const body = (await jobRequest(app, lister, 'GET', url)).json();
      seen.push(...body.data.map((j: { id: string }) => j.id));
      if (body.next_cursor === null) break;
      url = `/v1/jobs?limit=2&cursor=${encodeURIComponent(body.next_cursor)}`;
    }
    expect(seen).toEqual([...ids].reverse());
    await cancelAll(lister);
  });
});

describe('with the worker running', () => {
  let deadJobId: string;

  beforeAll(async () => {
    // A worker that claimed a job and died: its lease lapses and the real worker takes the job again.
    deadJobId = (await submitJob(app, key, { html: TEXT, reference: 'orphan' })).json().id;
    const claimed = await core.store.claimJob('dead-worker', Date.now(), {
      leaseMs: 1000,
      maxAttempts: core.config.renderJobAttempts,
    });
    expect(claimed?.id).toBe(deadJobId);
    app.jobs.startWorker();
  });

  it('submit → poll → download: the PDF honours the options and matches the job object', async () => {
    const res = await submitJob(app, key, { html: TEXT, options: { format: 'Letter', landscape: true }, reference: 'letter' });
    const job = await waitForJob(app, key, res.json().id);
    expect(job).toMatchObject({ status: 'succeeded', attempts: 1, error: null, reference: 'letter' });
    expect(job.pdf.url).toBe(`${core.config.renderPublicUrl}/v1/jobs/${job.id}/pdf`);
    expect(Date.parse(job.pdf.expires_at) - Date.parse(job.finished_at)).toBe(24 * 3600_000);
    const pdf = await jobRequest(app, key, 'GET', `/v1/jobs/${job.id}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['cache-control']).toBe('no-store');
    expect(pdf.headers['x-render-id']).toBe(job.id);
    expect(Number(pdf.headers['content-length'])).toBe(pdf.rawPayload.length);
    expect(pdf.rawPayload.length).toBe(job.pdf.bytes);
    const info = pdfInfo(pdf.rawPayload);
    expect(info.width).toBeCloseTo(11 * 72, 0);
    expect(info.height).toBeCloseTo(8.5 * 72, 0);
    expect(job.pdf.pages).toBe(info.pages);
  });

  it('counts pages as pdfinfo does for a multi-page document', async () => {
    const html = `<html><body>${Array.from({ length: 5 }, (_, i) => `<p style="break-after:page">page ${i + 1}</p>`).join('')}</body></html>`;
    const job = await waitForJob(app, key, (await submitJob(app, key, { html, options: { format: 'A5' } })).json().id);
    const pdf = await jobRequest(app, key, 'GET', `/v1/jobs/${job.id}/pdf`);
    expect(pdfInfo(pdf.rawPayload).pages).toBe(5);
    expect(job.pdf.pages).toBe(5);
  });

  it('a never-ready document ends failed with RENDER_TIMEOUT (RENDER_TIMEOUT_MS=12000)', async () => {
    const html = '<html><body><script>window.pageworksReady = false</script><p>never</p></body></html>';
    const job = await waitForJob(app, key, (await submitJob(app, key, { html })).json().id);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, pdf: null, error: { code: 'RENDER_TIMEOUT' } });
    expectJobError(await jobRequest(app, key, 'GET', `/v1/jobs/${job.id}/pdf`), 409, 'JOB_NOT_DONE');
  });

  it('a document that crashes its renderer is tried RENDER_JOB_ATTEMPTS (3) times, then fails with RENDER_FAILED', async () => {
    const html = '<script>const a = []; for (;;) a.push(new Array(1e6).fill(1.5));</script>';
    const job = await waitForJob(app, key, (await submitJob(app, key, { html })).json().id, 120_000);
    expect(job).toMatchObject({ status: 'failed', attempts: 3, pdf: null, error: { code: 'RENDER_FAILED' } });
    expect(job.error.message).toMatch(/crashed the renderer/);
  }, 150_000);

  it('a job whose worker died is taken again once its lease lapsed, and succeeds', async () => {
    const job = await waitForJob(app, key, deadJobId);
    expect(job).toMatchObject({ status: 'succeeded', attempts: 2, reference: 'orphan' });
  });

  it('DELETE of a finished job deletes its PDF: the job shows no pdf, the download is 410 GONE', async () => {
    const job = await waitForJob(app, key, (await submitJob(app, key, { html: TEXT })).json().id);
    const res = await jobRequest(app, key, 'DELETE', `/v1/jobs/${job.id}`);
    expect(res.json()).toMatchObject({ status: 'succeeded', pdf: null });
    expectJobError(await jobRequest(app, key, 'GET', `/v1/jobs/${job.id}/pdf`), 410, 'GONE');
    const row = (await core.store.findJob(job.id))!;
    expect(row.pdf_key).toBeNull();
    expect(await core.results.get(`${row.account_id}/${job.id}.pdf`)).toBeUndefined();
  });

  it('the retention sweep deletes PDFs RENDER_JOB_RETENTION_H after the job finished; the download is then 410 GONE', async () => {
    const job = await waitForJob(app, key, (await submitJob(app, key, { html: TEXT })).json().id);
    const row = (await core.store.findJob(job.id))!;
    const sweepAt = (ms: number) =>
      new JobQueue({ store: core.store, results: core.results, maxQueuedPerAccount: 1, now: () => ms }).sweepExpired();
    // The sweep as it runs 1 minute before and 1 minute after the PDF's expiry.
    await sweepAt(Number(row.pdf_expires_at) - 60_000);
    expect((await jobRequest(app, key, 'GET', `/v1/jobs/${job.id}/pdf`)).statusCode).toBe(200);
    expect(await sweepAt(Number(row.pdf_expires_at) + 60_000)).toBeGreaterThanOrEqual(1);
    expect(await core.results.get(row.pdf_key!)).toBeUndefined();
    expectJobError(await jobRequest(app, key, 'GET', `/v1/jobs/${job.id}/pdf`), 410, 'GONE');
    expect((await jobRequest(app, key, 'GET', `/v1/jobs/${job.id}`)).json().pdf).toBeNull();
  });

  it('metrics show the queue and the outcomes', async () => {
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.body).toMatch(/^pageworks_render_jobs_queued\{service="render"\} 0$/m);
    expect(res.body).toMatch(/^pageworks_render_jobs_oldest_queued_age_seconds\{service="render"\} 0$/m);
    expect(res.body).toMatch(/^pageworks_render_jobs_total\{outcome="succeeded",service="render"\} [5-9]$/m);
    expect(res.body).toMatch(/^pageworks_render_jobs_total\{outcome="failed",service="render"\} 2$/m);
    expect(res.body).toMatch(/^pageworks_render_jobs_total\{outcome="retried",service="render"\} 2$/m);
  });

  it('the OpenAPI document has the job routes', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/jobs', '/v1/jobs/{id}', '/v1/jobs/{id}/pdf']));
    expect(Object.keys(doc.paths['/v1/jobs'].post.responses)).toEqual(
      expect.arrayContaining(['202', '400', '413', '415', '422', '429']),
    );
    expect(Object.keys(doc.paths['/v1/jobs/{id}'])).toEqual(expect.arrayContaining(['get', 'delete']));
  });
});
