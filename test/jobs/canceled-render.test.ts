/**
 * A job's id leads to its render, or says why there is none: a job canceled while it ran (before it
 * printed) answers GET /v1/renders/{id} with 404 "the job was canceled before it printed", through the
 * typed client as a user calls it.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { JobsClient, RenderClient } from '../../src/client/index.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { until } from '../helpers/webhook-jobs.js';

let core: CoreDeps;
let app: FastifyInstance;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '1' });
  app = await buildRenderApp(core);
  await app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

it('a job canceled before it printed: its render id says so; a queued one says it has not printed yet', async () => {
  const options = {
    baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    apiKey: (await createKey(core, 'render')).key,
  };
  const jobs = new JobsClient(options);
  const renders = new RenderClient(options);
  const running = await jobs.submit({
    html: '<script>window.pageworksReady = new Promise(() => {});</script><h1>Never ready</h1>',
  });
  await until(async () => (await core.store.findJob(running.id))?.status === 'running', 'the job to run', 60_000);
  const queued = await jobs.submit({ html: '<h1>Behind it</h1>' });
  await expect(renders.getRender(queued.id)).rejects.toMatchObject({
    status: 404,
    code: 'NOT_FOUND',
    message: `no render ${queued.id} yet: the job is queued`,
  });
  await jobs.cancel(running.id);
  expect((await jobs.get(running.id)).status).toBe('canceled');
  await expect(renders.getRender(running.id)).rejects.toMatchObject({
    status: 404,
    code: 'NOT_FOUND',
    message: `no render ${running.id}: the job was canceled before it printed`,
  });
  // The one behind it runs and is recorded as every render is.
  expect((await jobs.wait(queued.id, { timeoutMs: 60_000, intervalMs: 100 })).status).toBe('succeeded');
  await expect
    .poll(
      () =>
        renders.getRender(queued.id).then(
          (r) => r.status,
          () => 'none',
        ),
      { timeout: 10_000 },
    )
    .toBe('succeeded');
}, 120_000);
