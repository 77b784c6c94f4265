/**
 * The job limits as a client meets them through the render app (worker held, real SQLite): job reads
 * have their own limit at 10× the render limit with RateLimit fields and do not spend renders or count
 * as usage; queued HTML is capped at RENDER_JOBS_MAX_QUEUED_MB.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { expectJobError, jobRequest, submitJob } from './helpers.js';

let core: CoreDeps;
let app: FastifyInstance;

beforeAll(async () => {
  core = await createTestCore({ RENDER_RATE_LIMIT: '3', RENDER_JOBS_MAX_QUEUED_MB: '20' });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

describe('job reads', () => {
  it('100 list reads at a render limit of 3/min: 30 answered, then 429; every answer carries RateLimit fields', async () => {
    const { key, accountId } = await createKey(core, 'render');
    const job = (await submitJob(app, key, { html: '<p>one</p>' })).json();
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await jobRequest(app, key, 'GET', '/v1/jobs');
      statuses.push(res.statusCode);
      expect(res.headers['ratelimit-policy']).toBe('"render-reads";q=30;w=60');
      expect(res.headers.ratelimit).toMatch(new RegExp(`^"render-reads";r=${Math.max(0, 29 - i)};t=\\d+$`));
      if (res.statusCode === 429) {
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        expectJobError(res, 429, 'RATE_LIMITED', /^rate limit of 30 render read requests per minute exceeded; retry in \d+ s$/);
      }
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(70);
    // One bucket for every read: the job, its PDF and DELETE are refused too.
    for (const [method, url] of [
      ['GET', `/v1/jobs/${job.id}`],
      ['GET', `/v1/jobs/${job.id}/pdf`],
      ['DELETE', `/v1/jobs/${job.id}`],
    ] as const) {
      const res = await jobRequest(app, key, method, url);
      expectJobError(res, 429, 'RATE_LIMITED');
      expect(res.headers['ratelimit-policy']).toBe('"render-reads";q=30;w=60');
    }
    // Reads spent none of the renders: two more submits fit the limit of 3, the fourth is refused.
    for (const expected of [202, 202, 429]) {
      const res = await submitJob(app, key, { html: '<p>more</p>' });
      expect(res.statusCode).toBe(expected);
      expect(res.headers['ratelimit-policy']).toBe('"render";q=3;w=60');
    }
    // And they are not usage: the account's usage is its four submits.
    await core.usage.flush();
    const usage = await core.store.usageSince(accountId, '2000-01-01');
    expect(usage.reduce((n, u) => n + u.count, 0)).toBe(4);
  });
});

describe('queued HTML', () => {
  it('RENDER_JOBS_MAX_QUEUED_MB=20: two 9 MiB jobs are queued, the third is 429 saying which limit', async () => {
    const { key } = await createKey(core, 'render');
    const html = `<p>big</p>${'x'.repeat(9 * 1024 * 1024 - 10)}`;
    expect((await submitJob(app, key, { html })).statusCode).toBe(202);
    expect((await submitJob(app, key, { html })).statusCode).toBe(202);
    const third = await submitJob(app, key, { html });
    expectJobError(
      third,
      429,
      'RATE_LIMITED',
      "queued HTML limit: this account's queued render jobs hold 18.0 MiB of HTML, and this job's 9.0 MiB would pass the limit of 20 MiB; submit more as these finish",
    );
    expect(third.headers['retry-after']).toBe('30');
  });
});
