/**
 * The render-worker service: no public API (only health, readiness and metrics), it works jobs that
 * another process queued in the shared store, stores PDFs in S3 when RESULT_STORE says so (a real
 * s3rver on loopback), is woken through Redis long before its poll, and on shutdown gives back the
 * jobs it has not finished.
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CoreDeps, closeCore, createCore } from '../../src/app/core.js';
import { buildRenderWorkerApp } from '../../src/app/render-worker-app.js';
import { loadConfig } from '../../src/config.js';
import { JobsRuntime } from '../../src/jobs/runtime.js';
import { REDIS_URL } from '../helpers/backends.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { S3_CREDENTIALS, startS3Server } from '../helpers/s3-server.js';

const submission = (html: string) => ({ request: { html }, reference: null, webhookUrl: null, idempotencyKey: null });

async function waitForStatus(core: CoreDeps, id: string, statuses: string[], timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const row = await core.store.findJob(id);
    if (row && statuses.includes(row.status)) return row;
    if (Date.now() > until) throw new Error(`job ${id} is ${row?.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A second process's view of the same data dir: the API side that queues jobs, with no worker. */
async function apiSide(worker: CoreDeps, env: Record<string, string> = {}) {
  const core = await createCore(
    loadConfig({ PAGEWORKS_DATA_DIR: worker.config.dataDir, LOG_LEVEL: 'silent', ...env }),
    pino({ level: 'silent' }),
  );
  const runtime = JobsRuntime.start({
    core,
    pool: { render: () => Promise.reject(new Error('this side does not render')) },
    registry: new (await import('prom-client')).Registry(),
    log: core.log,
    startWorker: false,
  });
  return { core, runtime, close: async () => (await runtime.stop(), await closeCore(core)) };
}

describe('render-worker with files and polling', () => {
  let core: CoreDeps;
  let app: FastifyInstance;

  beforeAll(async () => {
    core = await createTestCore({ RENDER_CONCURRENCY: '1', RENDER_TIMEOUT_MS: '15000' });
    app = await buildRenderWorkerApp(core, { lookup: noDns });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    if (core) await closeTestCore(core);
  });

  it('answers only /v1/health, /v1/ready and /metrics', async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/health' })).json()).toMatchObject({ status: 'healthy' });
    expect((await app.inject({ method: 'GET', url: '/v1/ready' })).statusCode).toBe(200);
    const metrics = await app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/^pageworks_render_jobs_queued\{service="render-worker"\} \d+$/m);
    for (const [method, url] of [
      ['POST', '/v1/render'],
      ['POST', '/v1/jobs'],
      ['GET', '/v1/jobs'],
      ['GET', '/openapi.json'],
    ] as const) {
      const res = await app.inject({ method, url });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
    }
  });

  it('works a job another process queued, and gives back a job it has not finished when it stops', async () => {
    const { accountId } = await createKey(core, 'render');
    const api = await apiSide(core);
    try {
      const quick = (await api.runtime.queue.submit(accountId, submission('<h1>from the API side</h1>'))).row;
      const done = await waitForStatus(core, quick.id, ['succeeded', 'failed']);
      expect(done).toMatchObject({ status: 'succeeded', pdf_pages: 1 });
      const pdf = await core.results.get(done.pdf_key!);
      expect(pdf?.bytes).toBe(Number(done.pdf_bytes));
      pdf?.body.destroy();

      // A document that never says it is ready, with a 15 s render timeout: still rendering when the worker stops.
      const slow = (await api.runtime.queue.submit(accountId, submission('<script>window.pageworksReady = false</script>'))).row;
      await waitForStatus(core, slow.id, ['running']);
      await app.jobs.stop(200);
      const released = await core.store.findJob(slow.id);
      expect(released).toMatchObject({ status: 'queued', attempts: 0, lease_owner: null, lease_expires_at: null });
    } finally {
      await api.close();
    }
  }, 120_000);
});

describe('render-worker with S3 results and a Redis wake-up', () => {
  let s3: Awaited<ReturnType<typeof startS3Server>>;
  let core: CoreDeps;
  let app: FastifyInstance;
  const saved = { ...process.env };

  beforeAll(async () => {
    s3 = await startS3Server();
    // The SDK reads the standard variables, as in production.
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
    });
    core = await createTestCore({
      RENDER_CONCURRENCY: '1',
      RESULT_STORE: `s3://${s3.bucket}/pdfs`,
      S3_ENDPOINT: s3.endpoint,
      ...(REDIS_URL ? { REDIS_URL } : {}),
    });
    // A poll this long would miss every deadline below: only the Redis message can wake the worker in time.
    app = await buildRenderWorkerApp(core, { lookup: noDns, jobPollMs: REDIS_URL ? 60_000 : undefined });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    if (core) await closeTestCore(core);
    await s3?.close();
    process.env = saved;
  });

  it('stores the PDF in the bucket; with REDIS_URL an idle worker starts within seconds of a submit elsewhere', async () => {
    const { accountId } = await createKey(core, 'render');
    const api = await apiSide(core, {
      RESULT_STORE: `s3://${s3.bucket}/pdfs`,
      S3_ENDPOINT: s3.endpoint,
      ...(REDIS_URL ? { REDIS_URL } : {}),
    });
    try {
      // Let the worker go idle (its first look at the store found nothing) and subscribe.
      await new Promise((r) => setTimeout(r, 1500));
      const job = (await api.runtime.queue.submit(accountId, submission('<h1>to S3</h1>'))).row;
      const running = await waitForStatus(core, job.id, ['running', 'succeeded'], 20_000);
      const waitedMs = Number(running.started_at) - Number(job.created_at);
      console.log(`submit to running: ${waitedMs} ms (${REDIS_URL ? 'Redis wake-up, poll 60 s' : 'no Redis, default poll'})`);
      expect(waitedMs).toBeLessThan(15_000);
      const done = await waitForStatus(core, job.id, ['succeeded', 'failed']);
      expect(done.status).toBe('succeeded');
      // Read back through the API side's own S3 client: any instance serves any job's PDF.
      const stored = await api.core.results.get(done.pdf_key!);
      const chunks: Buffer[] = [];
      for await (const chunk of stored!.body) chunks.push(Buffer.from(chunk));
      expect(Buffer.concat(chunks).subarray(0, 5).toString()).toBe('%PDF-');
      expect(api.core.results.kind).toBe('s3');
    } finally {
      await api.close();
    }
  }, 120_000);
});
