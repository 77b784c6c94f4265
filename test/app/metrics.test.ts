import type { FastifyInstance, FastifyReply } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { createServiceApp } from '../../src/app/service-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { parseMetrics, sample } from '../helpers/prometheus.js';

describe('metrics and readiness', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  let key: string;

  beforeAll(async () => {
    core = await createTestCore({ METADATA_RATE_LIMIT: '2' });
    app = await createServiceApp({
      service: 'metadata',
      core,
      requestIdHeader: 'X-Request-ID',
      sendError: (reply: FastifyReply, status, _code, message) => reply.code(status).send({ detail: message }),
    });
    app.get('/noop', { onRequest: app.authenticate }, async () => ({ ok: true }));
    ({ key } = await createKey(core, 'metadata'));
  });
  afterAll(async () => {
    await app.close();
    await closeTestCore(core);
  });

  const scrape = async () => {
    const res = await app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseMetrics(res.body);
  };

  it('counts requests by route and status, latency, and rate-limit rejections', async () => {
    const before = await scrape();
    const labels = { route: '/noop', method: 'GET', service: 'metadata' };
    const ok = sample('pageworks_http_requests_total', { ...labels, status: '200' });
    const limited = sample('pageworks_http_requests_total', { ...labels, status: '429' });
    expect(before.get(ok) ?? 0).toBe(0);
    for (let i = 0; i < 3; i++) await app.inject({ url: '/noop', headers: { 'x-api-key': key } });
    await app.inject({ url: '/nowhere' });
    const after = await scrape();
    expect(after.get(ok)).toBe(2);
    expect(after.get(limited)).toBe(1);
    expect(after.get(sample('pageworks_http_requests_total', { ...labels, route: 'unmatched', status: '404' }))).toBe(1);
    expect(after.get(sample('pageworks_rate_limit_rejections_total', { service: 'metadata' }))).toBe(1);
    expect(after.get(sample('pageworks_http_request_duration_seconds_count', { ...labels, status: '200' }))).toBe(2);
    expect(after.get(sample('process_cpu_user_seconds_total', { service: 'metadata' }))).toBeGreaterThan(0);
  });

  it('reports readiness from the store and added checks', async () => {
    const ready = await app.inject({ url: '/v1/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { store: 'ok' } });
    app.addReadinessCheck('browser', async () => {
      throw new Error('chromium is restarting');
    });
    const notReady = await app.inject({ url: '/v1/ready' });
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json()).toEqual({ status: 'not ready', checks: { store: 'ok', browser: 'failing: chromium is restarting' } });
  });
});
