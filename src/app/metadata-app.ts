/**
 * The metadata service app: the common service base plus GET /v1/fetch, OpenAPI (/openapi.json, /docs)
 * and error handlers that give every failure the `{"detail": "…"}` shape.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { MetadataError } from '../errors.js';
import { createMetadataMetrics } from '../metadata/metrics.js';
import { registerMetadataRoutes, sendMetadataError } from '../metadata/routes.js';
import { createMetadataService } from '../metadata/service.js';
import type { LookupFn } from '../net/policy.js';
import { outageLog } from '../outage-log.js';
import type { CoreDeps } from './core.js';
import { createServiceApp } from './service-app.js';

/** Test seams: a resolver for the egress policy (tests must never ask real DNS), a Redis key prefix. */
export interface MetadataAppOptions {
  lookup?: LookupFn;
  redisPrefix?: string;
}

/** Builds the metadata service; its onClose releases the outbound connection pool. */
export async function buildMetadataApp(core: CoreDeps, opts: MetadataAppOptions = {}): Promise<FastifyInstance> {
  const { config } = core;
  const app = await createServiceApp({
    service: 'metadata',
    core,
    requestIdHeader: 'X-Request-ID',
    sendError: sendMetadataError,
    openapi: {
      title: 'Pageworks metadata service',
      description: "A page's title, description, Open Graph tags, canonical link and favicon.",
      serverUrl: config.metadataPublicUrl,
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A metadata key (pwm_live_…)' },
      },
      requestIdDescription: "This answer's id (req_ and 24 hex characters): quote it when asking for support.",
    },
  });
  const cacheLog = core.log.child({ service: 'metadata', component: 'cache' });
  const service = createMetadataService(config, {
    lookup: opts.lookup,
    redis: core.redis,
    redisPrefix: opts.redisPrefix,
    cache: true,
    // Logged when Redis goes away, every 30 s while it stays away, and when it is back; not per request.
    redisHealth: outageLog(cacheLog, {
      down: 'metadata cache unavailable; treated as a miss',
      up: 'metadata cache available again',
    }),
    metrics: createMetadataMetrics(app.metrics.registry),
  });
  app.addHook('onClose', async () => service.close());
  await service.ready();

  registerMetadataRoutes(app, service);

  app.setErrorHandler(async (error: FastifyError | MetadataError, request, reply) => {
    if (error instanceof MetadataError) {
      if (error.status >= 500)
        request.log.warn({ err: error.cause ?? error, status: error.status }, `fetch failed: ${error.detail}`);
      else request.log.info({ status: error.status, reason: error.detail }, 'fetch refused');
      return sendMetadataError(reply, error.status, '', error.detail);
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return sendMetadataError(reply, error.statusCode, '', error.message);
    }
    request.log.error({ err: error }, 'metadata request failed');
    return sendMetadataError(reply, 500, '', 'internal error');
  });

  return app;
}
