/**
 * Fair claiming across accounts, measured with the real worker and Chromium: account A has 200 jobs
 * queued, account B submits one after them; B's job is among the first few to finish.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { jobRequest, submitJob, waitForJob } from './helpers.js';

let core: CoreDeps;
let app: FastifyInstance;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '2', RENDER_RATE_LIMIT: '1000' });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

it("one account's 200 queued jobs do not hold back another account's one", async () => {
  const a = await createKey(core, 'render');
  const b = await createKey(core, 'render');
  for (let i = 0; i < 200; i++) expect((await submitJob(app, a.key, { html: `<p>A ${i}</p>` })).statusCode).toBe(202);
  const bJob = (await submitJob(app, b.key, { html: '<p>B</p>' })).json();
  app.jobs.startWorker();
  const done = await waitForJob(app, b.key, bJob.id);
  expect(done.status).toBe('succeeded');
  // How many of A's jobs had started before B's: with 2 renders at a time, B's is claimed within the first round.
  const aStartedBefore = (await core.store.listJobs(a.accountId, { limit: 100, status: 'succeeded' })).rows.filter(
    (r) => Number(r.started_at) < Date.parse(done.started_at),
  ).length;
  const aRunning = (await core.store.listJobs(a.accountId, { limit: 100, status: 'running' })).rows.filter(
    (r) => Number(r.started_at) < Date.parse(done.started_at),
  ).length;
  console.log(`fairness: ${aStartedBefore + aRunning} of account A's 200 jobs started before account B's one`);
  expect(aStartedBefore + aRunning).toBeLessThanOrEqual(3);
  // Leave the rest: cancel A's queue.
  for (;;) {
    const page = (await jobRequest(app, a.key, 'GET', '/v1/jobs?status=queued&limit=100')).json();
    if (page.data.length === 0) break;
    for (const job of page.data) await jobRequest(app, a.key, 'DELETE', `/v1/jobs/${job.id}`);
  }
}, 180_000);
