/**
 * Two render instances on one PostgreSQL database, each with file results on its own data dir (a
 * result store that is not shared, the misconfiguration): the instance without the PDF answers 503
 * naming RESULT_STORE with one error line naming both stores, never 410; its sweeper leaves the row
 * and the other instance's file alone; the instance that holds the PDF serves and sweeps it.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { DATABASE_URL } from '../helpers/backends.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { type FreshDatabase, freshDatabase } from '../scale/backends.js';
import { expectJobError, jobRequest, submitJob, waitForJob } from './helpers.js';

/** Whether the core's result store holds the key (the stream is closed again). */
async function holds(core: CoreDeps, key: string): Promise<boolean> {
  const found = await core.results.get(key);
  found?.body.destroy();
  return found !== undefined;
}

describe.skipIf(!DATABASE_URL)('file results on separate disks behind one PostgreSQL', () => {
  let db: FreshDatabase;
  let holder: { core: CoreDeps; app: FastifyInstance };
  let other: { core: CoreDeps; app: FastifyInstance };
  const otherLog: Array<Record<string, unknown>> = [];
  let key: string;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!, 'pw_results');
    const env = { DATABASE_URL: db.url, RENDER_CONCURRENCY: '1' };
    const holderCore = await createTestCore(env);
    holder = { core: holderCore, app: await buildRenderApp(holderCore, { lookup: noDns }) };
    const otherCore = await createTestCore({ ...env, LOG_LEVEL: 'info' }, otherLog);
    other = { core: otherCore, app: await buildRenderApp(otherCore, { lookup: noDns, startJobWorker: false }) };
    key = (await createKey(holderCore, 'render')).key;
  }, 90_000);

  afterAll(async () => {
    for (const side of [other, holder]) {
      await side?.app.close();
      if (side) await closeTestCore(side.core);
    }
    await db?.drop();
  });

  it('the instance without the PDF answers 503 SERVICE_UNAVAILABLE naming RESULT_STORE, with one error line naming both stores', async () => {
    expect(holder.core.results.id).not.toBe(other.core.results.id);
    const job = await waitForJob(holder.app, key, (await submitJob(holder.app, key, { html: '<p>kept</p>' })).json().id);
    expect(job.status).toBe('succeeded');
    const before = otherLog.length;
    const res = await jobRequest(other.app, key, 'GET', `/v1/jobs/${job.id}/pdf`);
    expectJobError(
      res,
      503,
      'SERVICE_UNAVAILABLE',
      `the PDF of job ${job.id} is not in the result store of the instance that answered: RESULT_STORE is not shared by every render instance; retry, and tell the operator if it persists`,
    );
    expect(res.headers['retry-after']).toBe('5');
    expect(res.headers['x-render-id']).toBe(job.id);
    const errors = otherLog.slice(before).filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors[0])).toContain(`recorded in ${holder.core.results.id}`);
    expect(JSON.stringify(errors[0])).toContain(`this instance's RESULT_STORE is ${other.core.results.id}`);
    // The job still says it has a PDF, and the instance that holds it serves it.
    expect((await jobRequest(other.app, key, 'GET', `/v1/jobs/${job.id}`)).json().pdf).not.toBeNull();
    const pdf = await jobRequest(holder.app, key, 'GET', `/v1/jobs/${job.id}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    // DELETE there would orphan the file: refused the same way, and nothing is cleared.
    expectJobError(await jobRequest(other.app, key, 'DELETE', `/v1/jobs/${job.id}`), 503, 'SERVICE_UNAVAILABLE', /RESULT_STORE/);
    expect((await jobRequest(holder.app, key, 'GET', `/v1/jobs/${job.id}/pdf`)).statusCode).toBe(200);
  });

  it('each sweeper clears only the rows of PDFs its own store held; after expiry the answer is 410 everywhere', async () => {
    const job = await waitForJob(holder.app, key, (await submitJob(holder.app, key, { html: '<p>swept</p>' })).json().id);
    const row = (await holder.core.store.findJob(job.id))!;
    const sweeper = (core: CoreDeps) =>
      new JobQueue({
        store: core.store,
        results: core.results,
        maxQueuedPerAccount: 1,
        now: () => Number(row.pdf_expires_at) + 60_000,
      });
    expect(await sweeper(other.core).sweepExpired()).toBe(0);
    expect((await holder.core.store.findJob(job.id))?.pdf_key).toBe(row.pdf_key);
    expect(await holds(holder.core, row.pdf_key!)).toBe(true);
    expect(await sweeper(holder.core).sweepExpired()).toBeGreaterThanOrEqual(1);
    expect((await holder.core.store.findJob(job.id))?.pdf_key).toBeNull();
    expect(await holds(holder.core, row.pdf_key!)).toBe(false);
    for (const side of [holder, other])
      expectJobError(await jobRequest(side.app, key, 'GET', `/v1/jobs/${job.id}/pdf`), 410, 'GONE');
  });
});
