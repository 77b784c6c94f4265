import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestSeries } from '../../src/app/request-series.js';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const counter = { name: 'pageworks_http_requests_total', help: 'HTTP requests by route, method and status' };
const histogram = { name: 'pageworks_http_request_duration_seconds', help: 'HTTP request latency by route, method and status' };

/** Requests as [route, method, status, seconds]: several series, values on a bound, between bounds and past the last. */
const REQUESTS: Array<[string, string, number, number]> = [
  ['/v1/fetch', 'GET', 200, 0.0004],
  ['/v1/fetch', 'GET', 200, 0.001],
  ['/v1/fetch', 'GET', 200, 0.0031],
  ['/v1/fetch', 'GET', 502, 0.25],
  ['unmatched', 'GET', 404, 0.00002],
  ['/v1/render', 'POST', 200, 31.5],
  ['/v1/fetch', 'GET', 200, 7],
];

/** prom-client's own Counter and Histogram fed the same requests: what /metrics showed before. */
function promClientRegistry(): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'metadata' });
  const labelNames = ['route', 'method', 'status'] as const;
  const c = new Counter({ ...counter, labelNames, registers: [registry] });
  const h = new Histogram({ ...histogram, labelNames, buckets: BUCKETS, registers: [registry] });
  for (const [route, method, status, seconds] of REQUESTS) {
    const labels = { route, method, status: String(status) };
    c.labels(labels).inc();
    h.labels(labels).observe(seconds);
  }
  return registry;
}

function seriesRegistry(): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'metadata' });
  const series = new RequestSeries(registry, { counter, histogram: { ...histogram, buckets: BUCKETS } });
  for (const [route, method, status, seconds] of REQUESTS) series.observe(route, method, status, seconds);
  return registry;
}

describe('request series', () => {
  it('writes the same /metrics text as prom-client’s own counter and histogram', async () => {
    const ours = await seriesRegistry().metrics();
    expect(ours).toBe(await promClientRegistry().metrics());
    expect(ours).toContain(
      'pageworks_http_request_duration_seconds_bucket{le="0.001",service="metadata",route="/v1/fetch",method="GET",status="200"} 2',
    );
    expect(ours).toContain('pageworks_http_requests_total{route="/v1/fetch",method="GET",status="200",service="metadata"} 4');
  });

  it('gives the same JSON as prom-client (what a cluster aggregates)', async () => {
    expect(await seriesRegistry().getMetricsAsJSON()).toEqual(await promClientRegistry().getMetricsAsJSON());
  });

  it('starts over when the registry is reset', async () => {
    const registry = seriesRegistry();
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('route=');
  });
});
