/**
 * The typed client and the render report: a render result carries its render id and warning count
 * (and is still the PDF Buffer it always was), `strict` sends Prefer: handling=strict and a document
 * that could not get everything is a RenderApiError RENDER_INCOMPLETE, and getRender reads
 * GET /v1/renders/{id} (served here by a loopback server answering the documented shape).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { JobsClient, RenderApiError, RenderClient, type RenderReport } from '../../src/client/index.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';

let core: CoreDeps;
let app: FastifyInstance;
let client: RenderClient;
let jobs: JobsClient;
const THROWS = '<h1>Invoice</h1><script>throw new Error("no total")</script>';

beforeAll(async () => {
  core = await createTestCore({ RENDER_TIMEOUT_MS: '15000' });
  app = await buildRenderApp(core, { lookup: noDns });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  const { key } = await createKey(core, 'render');
  client = new RenderClient({ baseUrl, apiKey: key });
  jobs = new JobsClient({ baseUrl, apiKey: key });
}, 120_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

describe('RenderClient and the render report', () => {
  it('a render result is the PDF with its render id and warning count', async () => {
    const clean = await client.render('<h1>Paid</h1>');
    expect(clean.subarray(0, 5).toString()).toBe('%PDF-');
    expect(clean.renderId).toMatch(/^rnd_[0-9a-f]{24}$/);
    expect(clean.warnings).toBe(0);
    const noisy = await client.render(THROWS);
    expect(noisy.warnings).toBe(1);
    const stream = await client.renderStream(THROWS);
    stream.body.resume();
    expect(stream.warnings).toBe(1);
  });

  it('strict: a warning is a RenderApiError RENDER_INCOMPLETE with the render id; a clean document prints', async () => {
    const err = await client.render(THROWS, undefined, { strict: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderApiError);
    expect(err).toMatchObject({ code: 'RENDER_INCOMPLETE', status: 422 });
    expect((err as RenderApiError).renderId).toMatch(/^rnd_/);
    expect((err as RenderApiError).message).toContain('A script in the document failed: Error: no total');
    expect((await client.render('<p>ok</p>', undefined, { strict: true })).warnings).toBe(0);
  });

  it('strict jobs: the submit carries the preference and the job fails RENDER_INCOMPLETE', async () => {
    const job = await jobs.submit({ html: THROWS }, { strict: true });
    const done = await jobs.wait(job.id, { timeoutMs: 60_000, intervalMs: 100 });
    expect(done).toMatchObject({ status: 'failed', error: { code: 'RENDER_INCOMPLETE' } });
    expect(done.warnings).toEqual([
      { kind: 'script_error', text: 'Error: no total', message: 'A script in the document failed: Error: no total' },
    ]);
  });
});

describe('getRender', () => {
  const report: RenderReport = {
    id: 'rnd_0123456789abcdef01234567',
    created_at: '2026-11-25T22:00:00.000Z',
    duration_ms: 412,
    source: 'api',
    job_id: null,
    status: 'succeeded',
    error: null,
    pages: 1,
    bytes: 20480,
    warnings: [{ kind: 'resource_failed', url: 'https://cdn.example/logo.png', status: 404, message: 'logo.png was not loaded' }],
    claims: [],
  };
  let server: http.Server;
  let base: string;
  const seen: Array<{ url?: string; authorization?: string }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ url: req.url, authorization: req.headers.authorization });
      res.setHeader('x-render-id', 'rnd_asked');
      if (req.url === `/v1/renders/${report.id}`) {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(report));
      } else {
        res.statusCode = 404;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'no render with this id' } }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('returns the report, and a render it cannot see is NOT_FOUND', async () => {
    const remote = new RenderClient({ baseUrl: base, apiKey: 'pwr_live_key' });
    expect(await remote.getRender(report.id)).toEqual(report);
    expect(seen[0]).toEqual({ url: `/v1/renders/${report.id}`, authorization: 'Bearer pwr_live_key' });
    const err = await remote.getRender('rnd_other').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderApiError);
    expect(err).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});
