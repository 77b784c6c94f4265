/**
 * The metadata service app: the common service base plus GET /v1/fetch, OpenAPI (/openapi.json, /docs)
 * and error handlers that give every failure the `{"detail": "…"}` shape.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyError, FastifyInstance } from 'fastify';
import { MetadataError } from '../errors.js';
import { registerMetadataRoutes, sendMetadataError } from '../metadata/routes.js';
import { createMetadataService } from '../metadata/service.js';
import type { LookupFn } from '../net/policy.js';
import { VERSION } from '../version.js';
import type { CoreDeps } from './core.js';
import { createServiceApp } from './service-app.js';

/** Test seams: a resolver for the egress policy (tests must never ask real DNS). */
export interface MetadataAppOptions {
  lookup?: LookupFn;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Builds the metadata service; its onClose releases the outbound connection pool. */
export async function buildMetadataApp(core: CoreDeps, opts: MetadataAppOptions = {}): Promise<FastifyInstance> {
  const { config } = core;
  const app = createServiceApp({ service: 'metadata', core, requestIdHeader: 'X-Request-ID', sendError: sendMetadataError });
  const cacheLog = core.log.child({ service: 'metadata', component: 'cache' });
  const service = createMetadataService(config, {
    lookup: opts.lookup,
    redis: core.redis,
    cache: true,
    onCacheError: (err) => cacheLog.warn({ err: (err as Error).message }, 'metadata cache unavailable; treated as a miss'),
  });
  app.addHook('onClose', async () => service.close());

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Pageworks metadata service',
        version: VERSION,
        description: "A page's title, description, Open Graph tags, canonical link and favicon.",
      },
      servers: [{ url: config.metadataPublicUrl }],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A metadata key (pwm_live_…)' } } },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerMetadataRoutes(app, service);

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = METHODS.filter((method) => app.hasRoute({ url: path, method }));
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendMetadataError(reply, 405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path} (allowed: ${allowed.join(', ')})`);
    }
    return sendMetadataError(reply, 404, 'NOT_FOUND', `not found: ${request.method} ${path}`);
  });

  app.setErrorHandler(async (error: FastifyError | MetadataError, request, reply) => {
    if (error instanceof MetadataError) {
      if (error.status >= 500) request.log.warn({ err: error.cause ?? error, status: error.status }, `fetch failed: ${error.detail}`);
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
