/**
 * Interactive first, and the API alone: with RENDER_WORKER_CONCURRENCY=0 the render service serves
 * /v1/render and /v1/jobs and claims nothing; by default jobs get one slot fewer than the concurrency,
 * so one account's runaway jobs never hold every slot while another account's sync render waits; with
 * one slot, a waiting sync render goes before the next job claim.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { jobRequest, submitJob } from './helpers.js';

const SPIN = '<h1>Spin</h1><script>while (true) {}</script>';
const TIMEOUT_MS = 5000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('interactive renders and jobs in one render process', () => {
  let core: CoreDeps | undefined;
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    if (core) await closeTestCore(core);
    app = undefined;
    core = undefined;
  });

  async function start(env: Record<string, string>): Promise<{ jobs: string; sync: string }> {
    core = await createTestCore({ RENDER_TIMEOUT_MS: String(TIMEOUT_MS), RENDER_RATE_LIMIT: '1000', ...env });
    app = await buildRenderApp(core, { lookup: noDns });
    return { jobs: (await createKey(core, 'render')).key, sync: (await createKey(core, 'render')).key };
  }

  async function untilRunning(key: string, id: string): Promise<void> {
    while ((await jobRequest(app!, key, 'GET', `/v1/jobs/${id}`)).json().status !== 'running') await sleep(25);
  }

  it('RENDER_WORKER_CONCURRENCY=0: a job stays queued and sync renders are served', async () => {
    const keys = await start({ RENDER_CONCURRENCY: '2', RENDER_WORKER_CONCURRENCY: '0' });
    const job = (await submitJob(app!, keys.jobs, { html: '<h1>Queued</h1>' })).json();
    for (let i = 0; i < 3; i++) {
      const res = await postRender(app!, keys.sync, { html: `<p>sync ${i}</p>` });
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    }
    await sleep(1000);
    expect((await jobRequest(app!, keys.jobs, 'GET', `/v1/jobs/${job.id}`)).json()).toMatchObject({
      status: 'queued',
      attempts: 0,
      started_at: null,
    });
  }, 60_000);

  /** Three spinning jobs of one account, the first rendering; then another account's sync render, timed. */
  async function syncBehindSpinningJobs(keys: { jobs: string; sync: string }, slots: number) {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await submitJob(app!, keys.jobs, { html: SPIN })).json().id);
    await untilRunning(keys.jobs, ids[0]!);
    const started = Date.now();
    const res = await postRender(app!, keys.sync, { html: '<h1>Interactive</h1>' });
    const answeredAt = Date.now();
    console.log(`interactive first (${slots} slots, 3 spinning jobs): sync render answered in ${answeredAt - started} ms`);
    expect(res.statusCode).toBe(200);
    return { ids, ms: answeredAt - started, answeredAt };
  }

  it("two slots: three while(true) jobs of one account do not delay another account's sync render", async () => {
    const keys = await start({ RENDER_CONCURRENCY: '2' });
    const { ids, ms } = await syncBehindSpinningJobs(keys, 2);
    // The jobs get one slot of two: the sync render never waits for a spinning job's timeout.
    expect(ms).toBeLessThan(TIMEOUT_MS);
    const statuses = await Promise.all(
      ids.map(async (id) => (await jobRequest(app!, keys.jobs, 'GET', `/v1/jobs/${id}`)).json().status),
    );
    expect(statuses.filter((s) => s === 'running')).toHaveLength(1);
  }, 60_000);

  it('one slot: a waiting sync render goes before the next job claim', async () => {
    const keys = await start({ RENDER_CONCURRENCY: '1' });
    const { ids, ms, answeredAt } = await syncBehindSpinningJobs(keys, 1);
    // It waits for the one spinning job's render timeout at most, not for the next ones.
    expect(ms).toBeLessThan(TIMEOUT_MS + 2000);
    while ((await jobRequest(app!, keys.jobs, 'GET', `/v1/jobs/${ids[1]}`)).json().status === 'queued') await sleep(25);
    const second = (await jobRequest(app!, keys.jobs, 'GET', `/v1/jobs/${ids[1]}`)).json();
    expect(Date.parse(second.started_at)).toBeGreaterThanOrEqual(answeredAt - 1000);
  }, 60_000);
});
