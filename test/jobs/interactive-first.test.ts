/**
 * Interactive first, and the API alone: with RENDER_WORKER_CONCURRENCY=0 the render service serves
 * /v1/render and /v1/jobs and claims nothing; by default jobs get one slot fewer than the concurrency,
 * so one account's runaway jobs never hold every slot while another account's sync render waits; with
 * one slot, a waiting sync render goes before the next job claim; while sync renders are being served, a
 * job render is followed by a pause as long as itself, and jobs alone run back to back.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { jobRequest, submitJob } from './helpers.js';

const SPIN = '<h1>Spin</h1><script>while (true) {}</script>';
/** A job that takes its time: ready 800 ms after load, so its render lasts at least that long. */
const READY_MS = 800;
const SLOW = `<h1>Slow</h1><script>window.pageworksReady = new Promise((r) => setTimeout(r, ${READY_MS}));</script>`;
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

  /** Three slow jobs in a row (one job slot): the gap between each one's end and the next one's start. */
  async function gapsBetweenJobs(keys: { jobs: string; sync: string }): Promise<{ gapMs: number; renderMs: number }[]> {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await submitJob(app!, keys.jobs, { html: SLOW })).json().id);
    const jobs: { started_at: string; finished_at: string }[] = [];
    for (const id of ids) {
      let job = (await jobRequest(app!, keys.jobs, 'GET', `/v1/jobs/${id}`)).json();
      while (job.status !== 'succeeded') {
        expect(['queued', 'running']).toContain(job.status);
        await sleep(50);
        job = (await jobRequest(app!, keys.jobs, 'GET', `/v1/jobs/${id}`)).json();
      }
      jobs.push(job);
    }
    return jobs.slice(1).map((job, i) => ({
      gapMs: Date.parse(job.started_at) - Date.parse(jobs[i].finished_at),
      renderMs: Date.parse(jobs[i].finished_at) - Date.parse(jobs[i].started_at),
    }));
  }

  it('beside sync renders a job render is followed by a pause as long as itself; alone, jobs run back to back', async () => {
    const keys = await start({ RENDER_CONCURRENCY: '2' });
    const alone = await gapsBetweenJobs(keys);
    console.log(`jobs alone: gaps ${alone.map((g) => `${g.gapMs} ms after ${g.renderMs} ms`).join(', ')}`);
    for (const { gapMs } of alone) expect(gapMs).toBeLessThan(READY_MS / 2);

    let syncing = true;
    const statuses: number[] = [];
    const client = (async () => {
      while (syncing) statuses.push((await postRender(app!, keys.sync, { html: '<p>interactive</p>' })).statusCode);
    })();
    const paced = await gapsBetweenJobs(keys).finally(() => (syncing = false));
    await client;
    console.log(`jobs beside sync renders: gaps ${paced.map((g) => `${g.gapMs} ms after ${g.renderMs} ms`).join(', ')}`);
    // The pause lasts as long as the render's turn (at least READY_MS) and starts at its end, before the
    // job is final (its PDF stored): half of READY_MS leaves that bookkeeping room on a loaded machine.
    for (const { gapMs } of paced) expect(gapMs).toBeGreaterThan(READY_MS / 2);
    expect(statuses.length).toBeGreaterThan(5);
    expect(new Set(statuses)).toEqual(new Set([200]));
  }, 90_000);
});
