/**
 * Cancelling a running job stops its render at once: the never-ready document's page is closed and its
 * slot freed, so the next job renders within seconds, not after the render timeout; the job stays
 * `canceled` and no webhook goes out. The cancel may reach another instance than the one rendering:
 * that worker notices through the store (SQLite, polling) or Redis (PostgreSQL) within a second.
 */
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CoreDeps, closeCore, createCore } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { loadConfig } from '../../src/config.js';
import { JobsRuntime } from '../../src/jobs/runtime.js';
import { DATABASE_URL, REDIS_URL } from '../helpers/backends.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { type Delivery, startWebhookSink, type WebhookSink } from '../helpers/webhook-sink.js';
import { type FreshDatabase, freshDatabase } from '../scale/backends.js';
import { jobRequest, submitJob, waitForJob } from './helpers.js';

/** Never prints on its own: only the render timeout (30 s here) or a cancel ends it. */
const NEVER_READY = '<h1>Waiting forever</h1><script>window.pageworksReady = false;</script>';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitForStatus(app: FastifyInstance, key: string, id: string, status: string): Promise<void> {
  const until = Date.now() + 30_000;
  while ((await jobRequest(app, key, 'GET', `/v1/jobs/${id}`)).json().status !== status) {
    if (Date.now() > until) throw new Error(`job ${id} never became ${status}`);
    await sleep(25);
  }
}

const backends = [
  { name: 'sqlite, polling', enabled: true },
  { name: 'postgres, redis', enabled: Boolean(DATABASE_URL && REDIS_URL) },
];

describe.each(backends)('cancelling a running job ($name)', ({ name, enabled }) => {
  let db: FreshDatabase | undefined;
  let core: CoreDeps;
  let app: FastifyInstance;
  let other: { core: CoreDeps; runtime: JobsRuntime };
  let sink: WebhookSink;
  const hooks: Delivery[] = [];
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    if (!enabled) return;
    const shared: Record<string, string> = { EGRESS_ALLOW: '127.0.0.1/32' };
    if (name.startsWith('postgres')) {
      db = await freshDatabase(DATABASE_URL!, 'pw_cancel');
      // At scale every instance is given the same SECRETS_KEY: the webhook signing secret is sealed with it.
      Object.assign(shared, { DATABASE_URL: db.url, REDIS_URL: REDIS_URL!, SECRETS_KEY: crypto.randomBytes(32).toString('hex') });
    }
    // Two render slots: one for jobs (interactive first), one kept for sync renders.
    core = await createTestCore({ ...shared, RENDER_CONCURRENCY: '2', RENDER_TIMEOUT_MS: '30000', RENDER_RATE_LIMIT: '1000' });
    app = await buildRenderApp(core, { lookup: noDns });
    // Another instance on the same store: it takes API requests and renders nothing.
    const otherCore = await createCore(
      loadConfig({ ...shared, PAGEWORKS_DATA_DIR: core.config.dataDir, LOG_LEVEL: 'silent' }),
      pino({ level: 'silent' }),
    );
    other = {
      core: otherCore,
      runtime: JobsRuntime.start({
        core: otherCore,
        pool: { render: () => Promise.reject(new Error('this instance does not render')) },
        registry: new (await import('prom-client')).Registry(),
        log: otherCore.log,
        startWorker: false,
      }),
    };
    sink = await startWebhookSink(hooks);
    ({ key, accountId } = await createKey(core, 'render'));
  }, 60_000);

  afterAll(async () => {
    if (!enabled) return;
    await other?.runtime.stop();
    if (other) await closeCore(other.core);
    await app?.close();
    if (core) await closeTestCore(core);
    await sink?.close();
    await db?.drop();
  });

  it.skipIf(!enabled)(
    'DELETE on the rendering instance: the next job succeeds within 4 s, no webhook',
    async () => {
      const stuck = (await submitJob(app, key, { html: NEVER_READY, webhook: { url: sink.url } })).json();
      await waitForStatus(app, key, stuck.id, 'running');
      const next = (await submitJob(app, key, { html: '<h1>Next</h1>', webhook: { url: sink.url } })).json();
      await sleep(300);
      // One job slot: the next job waits behind the never-ready one.
      expect((await jobRequest(app, key, 'GET', `/v1/jobs/${next.id}`)).json().status).toBe('queued');

      const canceledAt = Date.now();
      const res = await jobRequest(app, key, 'DELETE', `/v1/jobs/${stuck.id}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: stuck.id, status: 'canceled', pdf: null });
      const done = await waitForJob(app, key, next.id, 4000);
      expect(done.status).toBe('succeeded');
      const ms = Date.now() - canceledAt;
      console.log(`cancel (${name}): the next job succeeded ${ms} ms after the DELETE`);
      expect(ms).toBeLessThan(4000);

      // The next job's webhook arrives; the canceled one's never does, and it stays canceled.
      const until = Date.now() + 10_000;
      while (!hooks.some((h) => h.body.includes(next.id)) && Date.now() < until) await sleep(50);
      await sleep(500);
      expect(hooks.map((h) => JSON.parse(h.body).data.id)).toEqual([next.id]);
      expect((await jobRequest(app, key, 'GET', `/v1/jobs/${stuck.id}`)).json()).toMatchObject({ status: 'canceled', pdf: null });
    },
    60_000,
  );

  it.skipIf(!enabled)(
    'DELETE on another instance: the rendering one frees the slot within 1 s',
    async () => {
      const stuck = (await submitJob(app, key, { html: NEVER_READY })).json();
      await waitForStatus(app, key, stuck.id, 'running');
      const next = (await submitJob(app, key, { html: '<h1>Next, elsewhere</h1>' })).json();
      await sleep(300);
      expect((await jobRequest(app, key, 'GET', `/v1/jobs/${next.id}`)).json().status).toBe('queued');

      const canceledAt = Date.now();
      const row = await other.runtime.queue.cancel(accountId, stuck.id);
      expect(row.status).toBe('canceled');
      const done = await waitForJob(app, key, next.id, 4000);
      expect(done.status).toBe('succeeded');
      // The slot was freed (and the next job claimed) within a second of the cancel on the other instance.
      const ms = Date.parse(done.started_at) - canceledAt;
      console.log(`cancel elsewhere (${name}): the next job started ${ms} ms after the cancel`);
      expect(ms).toBeLessThan(1000);
      expect((await jobRequest(app, key, 'GET', `/v1/jobs/${stuck.id}`)).json().status).toBe('canceled');
    },
    60_000,
  );
});
