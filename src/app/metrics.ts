import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { RequestSeries } from './request-series.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This service's Prometheus registry; services register their own gauges and counters on it. */
    metrics: ServiceMetrics;
  }
}

/** One service's Prometheus registry with the HTTP metrics every service has. */
export interface ServiceMetrics {
  registry: Registry;
  rateLimitRejections: Counter<'service'>;
}

/**
 * Registers request counts and latency histograms (by route, method and status) and serves
 * `GET /metrics` in Prometheus text format. Each service app has its own registry, so several
 * services in one process do not mix their numbers.
 */
export function installMetrics(
  app: FastifyInstance,
  service: string,
  state: { limiterDegraded?: () => boolean } = {},
): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const requests = new RequestSeries(registry, {
    counter: { name: 'pageworks_http_requests_total', help: 'HTTP requests by route, method and status' },
    histogram: {
      name: 'pageworks_http_request_duration_seconds',
      help: 'HTTP request latency by route, method and status',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    },
  });
  const rateLimitRejections = new Counter({
    name: 'pageworks_rate_limit_rejections_total',
    help: 'Requests refused with 429 because the account was over its limit',
    labelNames: ['service'] as const,
    registers: [registry],
  });

  const { limiterDegraded } = state;
  if (limiterDegraded) {
    new Gauge({
      name: 'pageworks_rate_limiter_degraded',
      help: '1 while the shared (Redis) limiter is unreachable and this instance counts limits on its own',
      registers: [registry],
      collect() {
        this.set(limiterDegraded() ? 1 : 0);
      },
    });
  }

  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, not the raw URL, so label values stay few; unknown routes share one label.
    const route = request.routeOptions.url ?? 'unmatched';
    if (route !== '/metrics') requests.observe(route, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } as object }, async (_request, reply) => {
    reply.header('Content-Type', registry.contentType);
    return registry.metrics();
  });

  return { registry, rateLimitRejections };
}
