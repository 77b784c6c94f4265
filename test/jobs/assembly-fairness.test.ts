/**
 * An assembly job's parts take their turns like renders, with the real worker and Chromium: another
 * account's one-line job, submitted while a 50-part job runs on the worker's one job slot, finishes in a
 * few seconds, not after the 50 parts. Each part counts against the account's render limit (a job larger
 * than what the window has left waits for the next window) and as usage.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { jobRequest, submitJob, waitForJob } from './helpers.js';

const part = (i: number) => ({ html: `<title>Part ${i}</title><h1>Part ${i}</h1><p>${'Statement line. '.repeat(40)}</p>` });

/** The account's usage answered `ok` (a refused request is usage too, as rate_limited). */
async function usageOf(core: CoreDeps, accountId: string): Promise<number> {
  await core.usage.flush();
  const rows = await core.store.usageSince(accountId, '2000-01-01');
  return rows.filter((u) => u.outcome === 'ok').reduce((n, u) => n + u.count, 0);
}

async function waitForStatus(app: FastifyInstance, key: string, id: string, status: string): Promise<void> {
  const until = Date.now() + 60_000;
  while ((await jobRequest(app, key, 'GET', `/v1/jobs/${id}`)).json().status !== status) {
    if (Date.now() > until) throw new Error(`job ${id} never ${status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('an assembly job beside another account', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  beforeAll(async () => {
    // Two render slots: one job slot (the other is kept for sync renders), as on a 2-core `render` instance.
    core = await createTestCore({ RENDER_CONCURRENCY: '2', RENDER_RATE_LIMIT: '1000' });
    app = await buildRenderApp(core, { lookup: noDns });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    if (core) await closeTestCore(core);
  });

  it("does not hold back another account's one-line job; its usage is its 50 parts", async () => {
    const a = await createKey(core, 'render');
    const b = await createKey(core, 'render');
    const big = await submitJob(app, a.key, { parts: Array.from({ length: 50 }, (_, i) => part(i)) });
    expect(big.statusCode, big.body).toBe(202);
    await waitForStatus(app, a.key, big.json().id, 'running');
    const submittedAt = Date.now();
    const small = await submitJob(app, b.key, { html: '<p>One line</p>' });
    expect(small.statusCode).toBe(202);
    const done = await waitForJob(app, b.key, small.json().id);
    const waitedMs = Date.now() - submittedAt;
    const bigNow = (await jobRequest(app, a.key, 'GET', `/v1/jobs/${big.json().id}`)).json();
    console.log(`assembly fairness: the one-line job took ${waitedMs} ms beside a 50-part job (still ${bigNow.status})`);
    expect(done.status).toBe('succeeded');
    // The 50-part job is still making its parts: the one-line job did not wait for it.
    expect(bigNow.status).toBe('running');
    expect(waitedMs).toBeLessThan(5_000);
    const bigDone = await waitForJob(app, a.key, big.json().id, 180_000);
    expect(bigDone.status).toBe('succeeded');
    expect(bigDone.pdf.pages).toBe(50);
    expect(await usageOf(core, a.accountId)).toBe(50);
    expect(await usageOf(core, b.accountId)).toBe(1);
  }, 240_000);
});

describe('parts against the render limit', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  beforeAll(async () => {
    core = await createTestCore({ RENDER_CONCURRENCY: '2', RENDER_RATE_LIMIT: '5', RATE_LIMIT_WINDOW_S: '60' });
    app = await buildRenderApp(core, { lookup: noDns });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    if (core) await closeTestCore(core);
  });

  it('an 8-part job on a limit of 5 makes 5 parts now and waits for the next window; usage is 8', async () => {
    const a = await createKey(core, 'render');
    const b = await createKey(core, 'render');
    const over = await submitJob(app, a.key, { parts: Array.from({ length: 8 }, (_, i) => part(i)) });
    expect(over.statusCode, over.body).toBe(202);
    // The window is spent: the account's next render is refused now.
    expect(
      (
        await app.inject({
          method: 'POST',
          url: '/v1/render',
          headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
          payload: '{"html":"<p>x</p>"}',
        })
      ).statusCode,
    ).toBe(429);
    // Another account's 5-part job, the same work as the parts the window has room for, finishes.
    const within = await submitJob(app, b.key, { parts: Array.from({ length: 5 }, (_, i) => part(i)) });
    expect(within.statusCode).toBe(202);
    expect((await waitForJob(app, b.key, within.json().id)).status).toBe('succeeded');
    await new Promise((r) => setTimeout(r, 2_000));
    // The 8-part job's last 3 parts wait for the next window (a minute away).
    expect((await jobRequest(app, a.key, 'GET', `/v1/jobs/${over.json().id}`)).json().status).toBe('running');
    expect(await usageOf(core, a.accountId)).toBe(8);
    expect(await usageOf(core, b.accountId)).toBe(5);
    const canceled = await jobRequest(app, a.key, 'DELETE', `/v1/jobs/${over.json().id}`);
    expect(canceled.json().status).toBe('canceled');
  }, 120_000);
});
