/**
 * JobsClient against a real render service whose worker is off, so jobs stay queued: submit with an
 * idempotency key, get, list with paging, cancel, a bounded wait, and the service's errors as typed codes.
 * (Submit → wait → download with a worker is in test/jobs/webhooks-e2e.test.ts.)
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { JobsClient, RenderApiError } from '../../src/client/index.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';

let core: CoreDeps;
let app: FastifyInstance;
let baseUrl: string;
let client: JobsClient;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '1' });
  app = await buildRenderApp(core, { startJobWorker: false });
  baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  client = new JobsClient({ baseUrl, apiKey: (await createKey(core, 'render')).key });
}, 120_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

describe('JobsClient', () => {
  it('submits, gets, lists newest first with a cursor, and cancels a queued job', async () => {
    const first = await client.submit({ html: '<p>one</p>', reference: 'one' }, { idempotencyKey: 'client-one' });
    expect(first).toMatchObject({ status: 'queued', reference: 'one', attempts: 0, error: null, pdf: null });
    expect(first.id).toMatch(/^job_[0-9a-f]{32}$/);
    // The same key and body: the first job again, not a second one.
    expect((await client.submit({ html: '<p>one</p>', reference: 'one' }, { idempotencyKey: 'client-one' })).id).toBe(first.id);
    // A later millisecond, so "newest first" has one answer.
    await new Promise((r) => setTimeout(r, 5));
    const second = await client.submit({ html: '<p>two</p>', reference: 'two' });
    expect(await client.get(first.id)).toEqual(first);

    const page1 = await client.list({ limit: 1 });
    expect(page1.data.map((j) => j.id)).toEqual([second.id]);
    expect(page1.next_cursor).not.toBeNull();
    const page2 = await client.list({ limit: 1, cursor: page1.next_cursor ?? undefined });
    expect(page2.data.map((j) => j.id)).toEqual([first.id]);

    const canceled = await client.cancel(first.id);
    expect(canceled).toMatchObject({ id: first.id, status: 'canceled' });
    expect((await client.list({ status: 'canceled' })).data.map((j) => j.id)).toEqual([first.id]);
    // A canceled job is final: wait returns it at once.
    expect((await client.wait(first.id)).status).toBe('canceled');
  });

  it('wait gives up with TIMEOUT after its bound while the job stays queued', async () => {
    const job = await client.submit({ html: '<p>stays queued</p>' });
    const started = Date.now();
    await expect(client.wait(job.id, { timeoutMs: 600, intervalMs: 100 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('reports the service errors with their codes and statuses', async () => {
    const missing = await client.get('job_00000000000000000000000000000000').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(RenderApiError);
    expect(missing).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const queued = await client.submit({ html: '<p>queued</p>' });
    await expect(client.downloadPdf(queued.id)).rejects.toMatchObject({ code: 'JOB_NOT_DONE', status: 409 });
    await expect(client.submit({ html: '<p>x</p>', reference: 'r'.repeat(201) })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      status: 400,
    });
    await expect(
      client.submit({ html: '<p>other body</p>', reference: 'one' }, { idempotencyKey: 'client-one' }),
    ).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', status: 422 });
    const stranger = new JobsClient({ baseUrl, apiKey: (await createKey(core, 'render')).key });
    await expect(stranger.get(queued.id)).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});
