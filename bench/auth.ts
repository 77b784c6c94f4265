import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyReply } from 'fastify';
import { createServiceApp } from '../src/app/service-app.js';
import { closeTestCore, createKey, createTestCore } from '../test/helpers/core.js';
import { fmt, heading, median, quantile, verdict } from './stats.js';

const ROUNDS = 15;
const PER_ROUND = 400;

/** One keep-alive GET, timed in milliseconds. */
function timedGet(agent: http.Agent, port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const req = http.get({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${path}: status ${res.statusCode}`));
        else resolve(Number(process.hrtime.bigint() - start) / 1e6);
      });
    });
    req.on('error', reject);
  });
}

/**
 * Auth + rate-limit overhead: an authenticated no-op route against an unauthenticated one, same
 * process, same run, interleaved rounds at concurrency 1 over keep-alive, embedded store.
 */
export async function runAuthBench(): Promise<void> {
  heading('auth + rate-limit overhead per request (embedded SQLite store, memory limiter)');
  const core = await createTestCore({ RENDER_RATE_LIMIT: '1000000' });
  const { key } = await createKey(core, 'render');
  const app = await createServiceApp({
    service: 'render',
    core,
    requestIdHeader: 'X-Render-ID',
    sendError: (reply: FastifyReply, status, code, message) => reply.code(status).send({ error: { code, message } }),
  });
  app.get('/noop', async () => ({ ok: true }));
  app.get('/noop-auth', { onRequest: app.authenticate }, async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const plain: number[] = [];
  const authed: number[] = [];
  const auth = { authorization: `Bearer ${key}` };
  try {
    for (let i = 0; i < 200; i++) await timedGet(agent, port, '/noop-auth', auth); // warm-up (JIT)
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < PER_ROUND; i++) plain.push(await timedGet(agent, port, '/noop', {}));
      for (let i = 0; i < PER_ROUND; i++) authed.push(await timedGet(agent, port, '/noop-auth', auth));
    }
  } finally {
    agent.destroy();
    await app.close();
    await closeTestCore(core);
  }
  const added = median(authed) - median(plain);
  process.stdout.write(`requests per route: ${plain.length} (concurrency 1, ${ROUNDS} interleaved rounds)\n`);
  process.stdout.write(`route            p50 ms    p95 ms\n`);
  process.stdout.write(`unauthenticated${fmt(median(plain), 3)} ${fmt(quantile(plain, 0.95), 3)}\n`);
  process.stdout.write(`authenticated  ${fmt(median(authed), 3)} ${fmt(quantile(authed, 0.95), 3)}\n`);
  process.stdout.write(
    `added by auth + rate limit (median): ${(added * 1000).toFixed(0)} µs — goal < 200 µs: ${verdict(added < 0.2)}\n`,
  );
}
