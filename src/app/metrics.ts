import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

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
  const requests = new Counter({
    name: 'pageworks_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'pageworks_http_request_duration_seconds',
    help: 'HTTP request latency by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
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

  // The children of one route, method and status, kept: prom-client would otherwise hash the label object
  // twice per request. Few keys: route patterns (not raw URLs), the methods and the statuses the app sends.
  const children = new Map<string, { count: Counter.Internal; duration: Histogram.Internal<'route' | 'method' | 'status'> }>();
  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, not the raw URL, so label values stay few; unknown routes share one label.
    const route = request.routeOptions.url ?? 'unmatched';
    if (route !== '/metrics') {
      const key = `${route} ${request.method} ${reply.statusCode}`;
      let child = children.get(key);
      if (child === undefined) {
        const labels = { route, method: request.method, status: String(reply.statusCode) };
        child = { count: requests.labels(labels), duration: latency.labels(labels) };
        children.set(key, child);
      }
      child.count.inc();
      child.duration.observe(reply.elapsedTime / 1000);
    }
    done();
  });

  app.get('/metrics', { schema: { hide: true } as object }, async (_request, reply) => {
    reply.header('Content-Type', registry.contentType);
    return registry.metrics();
  });

  return { registry, rateLimitRejections };
}
