import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CoreDeps, closeCore, createCore } from '../../src/app/core.js';
import { loggerOptions } from '../../src/app/logger.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { loadConfig } from '../../src/config.js';
import { REDIS_URL, uniqueName } from '../helpers/backends.js';
import { createKey } from '../helpers/core.js';
import { parseMetrics, sample } from '../helpers/prometheus.js';
import { type Origin, startOrigin } from './origin.js';

/** One metadata instance: its own core (own SQLite store, own Redis client), app, key and log lines. */
interface Instance {
  core: CoreDeps;
  app: FastifyInstance;
  key: string;
  logs: string[];
  close(): Promise<void>;
}

async function instance(env: Record<string, string>, redisPrefix?: string): Promise<Instance> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-shared-'));
  const config = loadConfig({ PAGEWORKS_DATA_DIR: dir, EGRESS_ALLOW: '127.0.0.1/32', LOG_LEVEL: 'info', ...env });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const core = await createCore(config, pino(loggerOptions(config), sink));
  const app = await buildMetadataApp(core, { redisPrefix });
  const { key } = await createKey(core, 'metadata');
  return {
    core,
    app,
    key,
    logs,
    close: async () => {
      await app.close();
      await closeCore(core);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('coalescing and cache across instances', () => {
  let origin: Origin;
  const hits = new Map<string, number>();
  beforeAll(async () => {
    origin = await startOrigin((req, res) => {
      const n = (hits.get(req.url!) ?? 0) + 1;
      hits.set(req.url!, n);
      // Slow, so the second instance asks while the first one is still fetching.
      setTimeout(() => {
        const fail = req.url!.startsWith('/fails-once') && n === 1;
        res.writeHead(fail ? 404 : 200, { 'content-type': 'text/html' });
        res.end(`<title>page ${req.url}</title>`);
      }, 300);
    });
  });
  afterAll(async () => origin?.close());

  const get = (i: Instance, p: string) =>
    i.app.inject({ url: `/v1/fetch?url=${encodeURIComponent(origin.base + p)}`, headers: { 'x-api-key': i.key } });
  const shared = async (i: Instance) =>
    parseMetrics((await i.app.inject({ url: '/metrics' })).body).get(
      sample('pageworks_metadata_coalesced_total', { scope: 'shared', service: 'metadata' }),
    );

  describe.skipIf(!REDIS_URL)('with Redis', () => {
    for (const ttl of ['300', '0']) {
      it(`simultaneous misses on two instances make one upstream fetch, same answer (cache TTL ${ttl} s)`, async () => {
        const prefix = `${uniqueName('pwtest')}:`;
        const env = { REDIS_URL: REDIS_URL!, METADATA_CACHE_TTL_S: ttl };
        const [a, b] = await Promise.all([instance(env, prefix), instance(env, prefix)]);
        try {
          const p = `/together-${ttl}`;
          const [ra, rb] = await Promise.all([get(a, p), get(b, p)]);
          expect([ra.statusCode, rb.statusCode]).toEqual([200, 200]);
          expect(ra.json()).toEqual(rb.json());
          expect(ra.json().title).toBe(`page ${p}`);
          expect(hits.get(p)).toBe(1);
          expect((await shared(a))! + (await shared(b))!).toBe(1);
        } finally {
          await Promise.all([a.close(), b.close()]);
        }
      });
    }

    it('the waiting instance fetches itself when the fetching one fails', async () => {
      const prefix = `${uniqueName('pwtest')}:`;
      const env = { REDIS_URL: REDIS_URL!, METADATA_CACHE_TTL_S: '300' };
      const [a, b] = await Promise.all([instance(env, prefix), instance(env, prefix)]);
      try {
        const [ra, rb] = await Promise.all([get(a, '/fails-once'), get(b, '/fails-once')]);
        expect([ra.statusCode, rb.statusCode].sort()).toEqual([200, 502]);
        expect(hits.get('/fails-once')).toBe(2);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    it('instances with different prefixes do not wait for each other', async () => {
      const env = { REDIS_URL: REDIS_URL!, METADATA_CACHE_TTL_S: '0' };
      const [a, b] = await Promise.all([instance(env, `${uniqueName('pwtest')}:`), instance(env, `${uniqueName('pwtest')}:`)]);
      try {
        await Promise.all([get(a, '/apart'), get(b, '/apart')]);
        expect(hits.get('/apart')).toBe(2);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });
  });

  it('Redis unreachable: fetches still work, per instance coalescing still holds, the outage is logged once', async () => {
    // A port that was just free: nothing listens there.
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const i = await instance({ REDIS_URL: `redis://127.0.0.1:${port}`, METADATA_CACHE_TTL_S: '300' });
    try {
      const together = await Promise.all([1, 2, 3].map(() => get(i, '/no-redis')));
      expect(together.map((r) => r.statusCode)).toEqual([200, 200, 200]);
      for (let n = 0; n < 5; n++) expect((await get(i, '/no-redis')).statusCode).toBe(200);
      expect(hits.get('/no-redis')).toBe(6);
      const warnings = i.logs.filter((l) => l.includes('metadata cache unavailable'));
      expect(warnings).toHaveLength(1);
    } finally {
      await i.close();
    }
  });
});
