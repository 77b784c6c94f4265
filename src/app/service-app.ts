/**
 * The common part of the render and metadata services (and the render worker's), composed from one
 * file per concept: request ids, draining, usage, OpenAPI, health and readiness, metrics, 404/405 and
 * authentication. Routes and the error handler are the service's.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { ApiService } from '../config.js';
import type { SendError, ServiceApp } from '../service-app-type.js';
import { clientErrorHandler } from './client-errors.js';
import type { CoreDeps } from './core.js';
import { closeUnusedOnClose, drainOnClose, refuseWhileDraining } from './drain.js';
import { ignoreEmptyBodies } from './empty-bodies.js';
import { httpServerLimits } from './http-limits.js';
import { OneLineRequestLog, requestLogger } from './logger.js';
import { installMetrics } from './metrics.js';
import { answerUnrouted, routerErrorHandler } from './not-found.js';
import { registerOpenApi, type ServiceOpenApi } from './openapi.js';
import { registerHealthAndReadiness } from './readiness.js';
import { randomRequestId, requestIdPrefix } from './request-ids.js';
import { buildSerializer } from './response-serializers.js';
import { installServiceAuth } from './service-auth.js';
import { recordUsage } from './usage-recording.js';

/** What a service app is built from. */
export interface ServiceAppOptions {
  service: ApiService;
  core: CoreDeps;
  /** Response header that carries the request id on every response (X-Render-ID, X-Request-ID). */
  requestIdHeader: string;
  sendError: SendError;
  /** Largest request body the service accepts, in bytes. */
  bodyLimit?: number;
  /** The OpenAPI document's head; with it the app serves `/openapi.json` and a docs page at `/docs`. */
  openapi?: ServiceOpenApi;
  /** The `service` label of its metrics when it is not the API service's name (`render-worker`). */
  metricsLabel?: string;
}

/**
 * Builds the common part of a service: logger (keys redacted), request ids on every response,
 * OpenAPI and docs, `GET /v1/health`, `GET /v1/ready`, `/metrics`, 404/405 answers in the service's
 * error shape, and the `authenticate` hook. Routes and the error handler are the service's.
 */
export async function createServiceApp(opts: ServiceAppOptions): Promise<ServiceApp> {
  const { service, core, requestIdHeader, sendError } = opts;
  const idPrefix = requestIdPrefix(service);
  const app = Fastify({
    loggerInstance: requestLogger(core.log, { service }) as FastifyBaseLogger,
    genReqId: () => randomRequestId(idPrefix),
    logController: new OneLineRequestLog(),
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    // Our own 503 in the service's shape (the onRequest hook below), never Fastify's default body.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    frameworkErrors: routerErrorHandler(requestIdHeader, sendError),
    clientErrorHandler: clientErrorHandler(service, requestIdHeader),
    // Serializers that write our plain unions without Ajv, so a route's first answer does not wait for it to compile.
    schemaController: { compilersFactory: { buildSerializer } },
    ...httpServerLimits(core.config),
  }).withTypeProvider<TypeBoxTypeProvider>();
  ignoreEmptyBodies(app);
  // First, so that its 405s know every route added after it (OpenAPI's, health's, the service's).
  answerUnrouted(app, sendError);

  const closing = drainOnClose(app);
  closeUnusedOnClose(app);
  // One callback-style hook for both: an async hook costs a promise per request for nothing here.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(requestIdHeader, request.id);
    if (!closing()) return done();
    refuseWhileDraining(reply, service, sendError);
  });
  recordUsage(app, core.usage, service);

  if (opts.openapi) await registerOpenApi(app, opts.openapi, requestIdHeader);
  registerHealthAndReadiness(app, core.store);

  const { limiter } = core;
  const limiterDegraded = () => 'isDegraded' in limiter && limiter.isDegraded === true;
  app.decorate('metrics', installMetrics(app, opts.metricsLabel ?? service, { limiterDegraded }));

  installServiceAuth(app, { service, core, sendError });
  return app;
}
