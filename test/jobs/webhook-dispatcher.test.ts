/**
 * The dispatcher over a real store (SQLite, and PostgreSQL when DATABASE_URL is set) and loopback
 * receivers: what a receiver gets, what the store records, retries, exhaustion, redelivery, and several
 * dispatchers sharing one outbox.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { startWebhookDispatcher, type WebhookDispatcher } from '../../src/jobs/webhook-dispatcher.js';
import { createWebhookMetrics } from '../../src/jobs/webhook-metrics.js';
import { WebhookSecrets } from '../../src/jobs/webhook-secrets.js';
import { createPinnedAgent } from '../../src/net/pinned-agent.js';
import { createEgressPolicy } from '../../src/net/policy.js';
import { SecretBox } from '../../src/secrets/sealing.js';
import type { Store } from '../../src/store/store.js';
import { noDns } from '../helpers/render.js';
import { storeBackends } from '../helpers/store-backends.js';
import { finishedJob as finishedJobIn, storeAccount, until } from '../helpers/webhook-jobs.js';

const agent = createPinnedAgent();
const policy = createEgressPolicy({ allow: ['127.0.0.1/32'], lookup: noDns });
const BASE = 'http://render.test';
const quiet = { warn: () => {} };
// The server's key: the accounts' signing secrets are sealed with it.
const box = new SecretBox(crypto.randomBytes(32));

interface Hit {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver answering each request with the status `answer` picks (null: never answers). */
async function receiver(answer: (n: number) => number | null) {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      hits.push({ headers: req.headers, body });
      const status = answer(hits.length);
      if (status !== null) res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
  return {
    url,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

afterAll(() => agent.close());

for (const backend of storeBackends('webhooks')) {
  describe.skipIf(!backend.enabled)(`webhook dispatcher on ${backend.name}`, () => {
    let store: Store;
    const dispatchers: WebhookDispatcher[] = [];
    const receivers: Array<{ close(): Promise<void> }> = [];

    beforeAll(async () => {
      store = await backend.open();
    });
    afterEach(async () => {
      for (const d of dispatchers.splice(0)) await d.stop();
      for (const r of receivers.splice(0)) await r.close();
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });

    const account = () => storeAccount(store);
    const finishedJob = (accountId: string, url: string, outcome: 'succeeded' | 'failed' = 'succeeded') =>
      finishedJobIn(store, accountId, url, outcome);

    function start(opts: { retryScale?: number; timeoutMs?: number; concurrency?: number; registry?: Registry } = {}) {
      const d = startWebhookDispatcher({
        store,
        secrets: box,
        policy,
        agent,
        publicBaseUrl: BASE,
        log: quiet,
        pollMs: 50,
        metrics: opts.registry ? createWebhookMetrics(opts.registry) : undefined,
        ...opts,
      });
      dispatchers.push(d);
      return d;
    }

    it('delivers job.succeeded signed with the account secret; the store records the attempt and the state', async () => {
      const r = await receiver(() => 204);
      receivers.push(r);
      const acc = await account();
      const jobId = await finishedJob(acc, r.url);
      const registry = new Registry();
      start({ registry });
      await until(() => r.hits.length === 1, 'the delivery');
      const hit = r.hits[0] as Hit;
      const secret = await new WebhookSecrets(store, box).get(acc);
      const event = new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>) as {
        type: string;
        data: { id: string; status: string; reference: string; pdf: { url: string; bytes: number } };
      };
      expect(event.type).toBe('job.succeeded');
      expect(event.data).toMatchObject({
        id: jobId,
        status: 'succeeded',
        pdf: { url: `${BASE}/v1/jobs/${jobId}/pdf`, bytes: 1234 },
      });
      expect(hit.headers['webhook-id']).toBe(`msg_${jobId}`);
      await until(async () => (await store.findJob(jobId))?.webhook_state === 'delivered', 'state delivered');
      const [attempt] = await store.listWebhookDeliveries(acc, [jobId]);
      expect(attempt).toMatchObject({ jobId, attempt: 1, statusCode: 204, error: null, webhookId: `msg_${jobId}` });
      expect(await registry.metrics()).toContain('pageworks_webhook_deliveries_total{outcome="delivered"} 1');

      // Deleting the account takes its secret and its delivery attempts with it.
      const tombstone = {
        id: newId('act'),
        accountId: acc,
        at: Date.now(),
        kind: 'account_deleted',
        actor: 'cli',
        ip: null,
        userAgent: null,
        detail: null,
      } as const;
      expect(await store.deleteAccount(acc, tombstone)).toBe(true);
      expect(await store.findWebhookSecret(acc)).toBeUndefined();
      expect(await store.listWebhookDeliveries(acc, [jobId])).toEqual([]);
    });

    it('delivers job.failed with the error; retries a 500 with the same webhook-id and body', async () => {
      const r = await receiver((n) => (n === 1 ? 500 : 200));
      receivers.push(r);
      const acc = await account();
      const jobId = await finishedJob(acc, r.url, 'failed');
      // 5 s × 0.001: the first retry is due 5 ms later.
      start({ retryScale: 0.001 });
      await until(() => r.hits.length === 2, 'the retry');
      const [first, second] = r.hits as [Hit, Hit];
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(second.body).toBe(first.body);
      const event = JSON.parse(second.body);
      expect(event).toMatchObject({
        type: 'job.failed',
        data: { id: jobId, status: 'failed', error: { code: 'RENDER_TIMEOUT' } },
      });
      await until(async () => (await store.findJob(jobId))?.webhook_state === 'delivered', 'state delivered');
      const attempts = await store.listWebhookDeliveries(acc, [jobId]);
      expect(attempts.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
        [2, 200, null],
        [1, 500, 'receiver answered 500'],
      ]);
    });

    it('gives up after 8 attempts (exhausted); Redeliver queues it again, for the owner only', async () => {
      const r = await receiver((n) => (n <= 8 ? 503 : 200));
      receivers.push(r);
      const acc = await account();
      const jobId = await finishedJob(acc, r.url);
      const registry = new Registry();
      start({ retryScale: 0, registry });
      await until(async () => (await store.findJob(jobId))?.webhook_state === 'exhausted', 'state exhausted');
      expect(r.hits).toHaveLength(8);
      const metrics = await registry.metrics();
      expect(metrics).toContain('pageworks_webhook_deliveries_total{outcome="failed"} 7');
      expect(metrics).toContain('pageworks_webhook_deliveries_total{outcome="exhausted"} 1');

      expect(await store.redeliverWebhook(await account(), jobId, Date.now(), 60_000)).toEqual({ kind: 'not_found' });
      expect(await store.redeliverWebhook(acc, jobId, Date.now(), 60_000)).toEqual({ kind: 'queued' });
      await until(async () => (await store.findJob(jobId))?.webhook_state === 'delivered', 'redelivered');
      expect(r.hits).toHaveLength(9);
      expect(r.hits[8]?.headers['webhook-id']).toBe(`msg_${jobId}`);
    });

    it('a receiver that hangs holds one slot for its deadline only; other events go out meanwhile', async () => {
      const hanging = await receiver(() => null);
      const ok = await receiver(() => 200);
      receivers.push(hanging, ok);
      const acc = await account();
      const stuck = await finishedJob(acc, hanging.url);
      const fine = await finishedJob(acc, ok.url);
      start({ timeoutMs: 3000, concurrency: 2, retryScale: 1 });
      await until(() => ok.hits.length === 1, 'the other delivery');
      await until(async () => (await store.findJob(fine))?.webhook_state === 'delivered', 'the other one delivered');
      // Still within the hanging receiver's deadline: the other event did not wait for it.
      expect(await store.listWebhookDeliveries(acc, [stuck])).toEqual([]);
      await until(async () => (await store.listWebhookDeliveries(acc, [stuck])).length === 1, 'the timed-out attempt');
      const [attempt] = await store.listWebhookDeliveries(acc, [stuck]);
      expect(attempt).toMatchObject({ statusCode: null, error: 'no answer within 3 s' });
      // The attempt is recorded, then the job settles: read the job once it has.
      await until(async () => Number((await store.findJob(stuck))?.webhook_attempts) === 1, 'the attempt settled');
      const row = await store.findJob(stuck);
      expect(row?.webhook_state).toBe('pending');
      // Next attempt 5 s after the failure (retryScale 1), counted from when the attempt ended, not from now.
      const failedAt = (attempt?.createdAt ?? 0) + (attempt?.durationMs ?? 0);
      expect(Number(row?.webhook_next_at) - failedAt).toBeGreaterThanOrEqual(5000);
      expect(Number(row?.webhook_next_at) - failedAt).toBeLessThan(7000);
    });

    it('three dispatchers on one store deliver each of 30 events once', async () => {
      const r = await receiver(() => 200);
      receivers.push(r);
      const acc = await account();
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push(await finishedJob(acc, r.url));
      start();
      start();
      start();
      await until(() => r.hits.length >= 30, '30 deliveries');
      // Leave time for a duplicate to show up if the leases did not hold.
      await new Promise((res) => setTimeout(res, 300));
      const delivered = r.hits.map((h) => h.headers['webhook-id']);
      expect(new Set(delivered).size).toBe(30);
      expect(delivered).toHaveLength(30);
      expect(new Set(delivered)).toEqual(new Set(ids.map((id) => `msg_${id}`)));
    });
  });
}
