import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { createMemoryCache, createRedisCache, type MetadataCache } from '../../src/metadata/cache.js';
import { withCacheAndCoalescing } from '../../src/metadata/cached-fetch.js';
import { nonHtmlMetadata } from '../../src/metadata/extract.js';
import type { Metadata } from '../../src/metadata/types.js';
import { REDIS_URL, uniqueName } from '../helpers/backends.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { type Origin, startOrigin } from './origin.js';

const sample = (title: string): Metadata => ({ ...nonHtmlMetadata('https://example.com/'), title });

function cacheContract(
  name: string,
  make: (ttlS: number) => Promise<{ cache: MetadataCache; cleanup: () => Promise<void> }>,
): void {
  describe(`${name} cache`, () => {
    it('returns what was stored, misses what was not', async () => {
      const { cache, cleanup } = await make(60);
      await cache.set('https://a.example/', sample('A'));
      expect(await cache.get('https://a.example/')).toEqual(sample('A'));
      expect(await cache.get('https://b.example/')).toBeUndefined();
      await cleanup();
    });

    it('entries expire after the TTL', async () => {
      const { cache, cleanup } = await make(1);
      await cache.set('https://a.example/', sample('A'));
      await new Promise((r) => setTimeout(r, 1100));
      expect(await cache.get('https://a.example/')).toBeUndefined();
      await cleanup();
    });
  });
}

cacheContract('memory', async (ttl) => ({ cache: createMemoryCache(ttl), cleanup: async () => {} }));

describe.skipIf(!REDIS_URL)('redis', () => {
  cacheContract('redis', async (ttl) => {
    const redis = new Redis(REDIS_URL!);
    return {
      cache: createRedisCache(redis, ttl, undefined, `${uniqueName('pwtest')}:`),
      cleanup: async () => void (await redis.quit()),
    };
  });
});

describe('memory cache eviction', () => {
  afterEach(() => vi.useRealTimers());

  it('evicts the least recently used entry beyond its size', async () => {
    const cache = createMemoryCache(60, 2);
    await cache.set('a', sample('A'));
    await cache.set('b', sample('B'));
    await cache.get('a');
    await cache.set('c', sample('C'));
    expect(await cache.get('b')).toBeUndefined();
    expect((await cache.get('a'))?.title).toBe('A');
    expect((await cache.get('c'))?.title).toBe('C');
  });

  it('a Redis that fails is a miss, not an error', async () => {
    const broken = {
      get: async () => Promise.reject(new Error('down')),
      set: async () => Promise.reject(new Error('down')),
    } as unknown as Redis;
    const errors: unknown[] = [];
    const cache = createRedisCache(broken, 60, { failed: (e) => errors.push(e), ok: () => {} });
    await cache.set('a', sample('A'));
    expect(await cache.get('a')).toBeUndefined();
    expect(errors).toHaveLength(2);
  });

  it('failed fetches are not cached', async () => {
    let calls = 0;
    const fetch = withCacheAndCoalescing(async () => {
      calls++;
      throw new Error('upstream down');
    }, createMemoryCache(60));
    await expect(fetch('https://x.example/')).rejects.toThrow('upstream down');
    await expect(fetch('https://x.example/')).rejects.toThrow('upstream down');
    expect(calls).toBe(2);
  });
});

describe('service: cache, coalescing and limits', () => {
  let origin: Origin;
  beforeAll(async () => {
    origin = await startOrigin((req, res) => {
      // Slow enough that concurrent requests overlap.
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<title>page ${req.url}</title>`);
      }, 150);
    });
  });
  afterAll(async () => origin?.close());

  async function service(
    env: Record<string, string>,
  ): Promise<{ core: CoreDeps; app: FastifyInstance; close: () => Promise<void> }> {
    const core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32', ...env });
    const app = await buildMetadataApp(core);
    return { core, app, close: async () => (await app.close(), await closeTestCore(core)) };
  }
  const get = (app: FastifyInstance, key: string, path: string) =>
    app.inject({ url: `/v1/fetch?url=${encodeURIComponent(origin.base + path)}`, headers: { 'x-api-key': key } });

  it('concurrent requests for the same URL share one upstream fetch (cache off)', async () => {
    const { core, app, close } = await service({ METADATA_CACHE_TTL_S: '0' });
    const { key } = await createKey(core, 'metadata');
    const before = origin.requests.length;
    const answers = await Promise.all(Array.from({ length: 6 }, () => get(app, key, '/shared')));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((r) => r.json().title))).toEqual(new Set(['page /shared']));
    expect(origin.requests.length - before).toBe(1);
    await get(app, key, '/shared');
    expect(origin.requests.length - before).toBe(2);
    await close();
  });

  it('results are cached for METADATA_CACHE_TTL_S, the fragment ignored', async () => {
    const { core, app, close } = await service({ METADATA_CACHE_TTL_S: '300' });
    const { key } = await createKey(core, 'metadata');
    const before = origin.requests.length;
    expect((await get(app, key, '/cached')).json().title).toBe('page /cached');
    expect((await get(app, key, '/cached#section')).json().title).toBe('page /cached');
    expect(origin.requests.length - before).toBe(1);
    await close();
  });

  it('cached answers still count: 429 after the account limit across two keys, with Retry-After', async () => {
    const { core, app, close } = await service({ METADATA_CACHE_TTL_S: '300', METADATA_RATE_LIMIT: '3' });
    const email = 'limits@example.com';
    const first = await createKey(core, 'metadata', email);
    const second = await createKey(core, 'metadata', email);
    const other = await createKey(core, 'metadata');
    const before = origin.requests.length;
    const statuses = [];
    for (const key of [first.key, second.key, first.key]) statuses.push((await get(app, key, '/limited')).statusCode);
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await get(app, second.key, '/limited');
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['ratelimit-policy']).toBe('"metadata";q=3;w=60');
    expect(refused.json().detail).toMatch(/^rate limit of 3 metadata requests per minute exceeded/);
    expect(origin.requests.length - before).toBe(1);
    expect((await get(app, other.key, '/limited')).statusCode).toBe(200);
    await close();
  });
});
