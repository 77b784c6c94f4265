import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { parseMetrics, sample } from '../helpers/prometheus.js';
import { type Origin, startOrigin } from './origin.js';

describe('metadata metrics on /metrics', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  let origin: Origin;
  let key: string;

  beforeAll(async () => {
    origin = await startOrigin((req, res) => {
      const delay = req.url === '/slow' ? 200 : 0;
      setTimeout(() => {
        res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'text/html' });
        res.end(`<title>${req.url}</title>`);
      }, delay);
    });
    core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32', METADATA_CACHE_TTL_S: '300' });
    app = await buildMetadataApp(core);
    ({ key } = await createKey(core, 'metadata'));
  });
  afterAll(async () => {
    await app?.close();
    await origin?.close();
    if (core) await closeTestCore(core);
  });

  const get = (target: string) =>
    app.inject({ url: `/v1/fetch?url=${encodeURIComponent(target)}`, headers: { 'x-api-key': key } });
  const scrape = async () => parseMetrics((await app.inject({ url: '/metrics' })).body);
  const value = (metrics: Map<string, number>, name: string, labels: Record<string, string>) =>
    metrics.get(sample(name, { ...labels, service: 'metadata' }));

  it('starts every series at 0', async () => {
    const m = await scrape();
    for (const result of ['hit', 'miss']) expect(value(m, 'pageworks_metadata_cache_lookups_total', { result })).toBe(0);
    for (const scope of ['local', 'shared']) expect(value(m, 'pageworks_metadata_coalesced_total', { scope })).toBe(0);
    for (const outcome of ['ok', 'http_error', 'timeout', 'refused', 'too_many_redirects', 'connection_error']) {
      expect(value(m, 'pageworks_metadata_upstream_fetches_total', { outcome })).toBe(0);
    }
  });

  it('counts cache hits and misses, coalesced waits and upstream outcomes as requests are made', async () => {
    const before = await scrape();
    expect((await get(`${origin.base}/page`)).statusCode).toBe(200);
    expect((await get(`${origin.base}/page`)).statusCode).toBe(200);
    expect((await get(`${origin.base}/missing`)).statusCode).toBe(502);
    expect((await get('http://10.0.0.1/')).statusCode).toBe(400);
    const together = await Promise.all([1, 2, 3].map(() => get(`${origin.base}/slow`)));
    expect(together.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) =>
      (value(after, name, labels) ?? 0) - (value(before, name, labels) ?? 0);
    expect(delta('pageworks_metadata_cache_lookups_total', { result: 'hit' })).toBe(1);
    expect(delta('pageworks_metadata_cache_lookups_total', { result: 'miss' })).toBe(4);
    expect(delta('pageworks_metadata_coalesced_total', { scope: 'local' })).toBe(2);
    expect(delta('pageworks_metadata_upstream_fetches_total', { outcome: 'ok' })).toBe(2);
    expect(delta('pageworks_metadata_upstream_fetches_total', { outcome: 'http_error' })).toBe(1);
    expect(delta('pageworks_metadata_upstream_fetches_total', { outcome: 'refused' })).toBe(1);
  });
});
