import crypto from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import type { Logger } from 'pino';
import type { KeyCheck } from '../accounts/keys.js';
import { outcomeOf } from '../accounts/usage.js';
import { type ApiService, defaultLimit } from '../config.js';
import { windowUnit } from '../ratelimit/window.js';
import { VERSION } from '../version.js';
import { withTimeout } from '../with-timeout.js';
import { clientErrorHandler } from './client-errors.js';
import type { CoreDeps } from './core.js';
import { ignoreEmptyBodies } from './empty-bodies.js';
import { httpServerLimits } from './http-limits.js';
import { redactUrl, requestLogger } from './logger.js';
import { installMetrics, type ServiceMetrics } from './metrics.js';

/** Reads (authenticateKey) are limited at this many times the account's limit. */
export const READS_PER_LIMIT = 10;

/** Who an authenticated request is from. */
export interface AuthContext {
  accountId: string;
  keyId: string;
  service: ApiService;
  /** False for requests that neither count against the rate limit nor as usage (reading a job's state). */
  metered?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** This service's Prometheus registry; services register their own gauges and counters on it. */
    metrics: ServiceMetrics;
    /** Adds a named check to `GET /v1/ready` (liveness stays `GET /v1/health`). */
    addReadinessCheck: (name: string, check: () => Promise<void>) => void;
    /** Adds a field to `GET /v1/ready`'s body that informs without deciding readiness (the render service's `fonts`). */
    addReadinessDetail: (name: string, detail: () => unknown) => void;
    /** onRequest hook: key check, rate limit, usage; runs before the body is read. */
    authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
    /**
     * onRequest hook for reads (polling a job, listing, downloading): key check and a limit of its own,
     * READS_PER_LIMIT × the account's limit with its own RateLimit fields; neither spends the rate limit nor counts as usage.
     */
    authenticateKey: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
  }
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

/** Sends a service-shaped error and returns the reply. */
export type SendError = (reply: FastifyReply, status: number, code: string, message: string) => FastifyReply | undefined;

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

/** What the service's OpenAPI document says about itself; paths come from the route schemas. */
export interface ServiceOpenApi {
  title: string;
  description: string;
  /** The public base address (`RENDER_PUBLIC_URL`, `METADATA_PUBLIC_URL`). */
  serverUrl: string;
  securitySchemes: Record<string, SecurityScheme>;
}

/** The two ways the services take a key: a bearer token (render) or a header (metadata). */
type SecurityScheme =
  | { type: 'http'; scheme: 'bearer'; description: string }
  | { type: 'apiKey'; in: 'header'; name: string; description: string };

/** A Fastify instance whose route schemas are TypeBox types. */
export type ServiceApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

const HealthSchema = Type.Object(
  {
    status: Type.Literal('healthy'),
    version: Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+$', examples: ['1.0.0'] }),
  },
  { additionalProperties: false },
);

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const READY_TIMEOUT_MS = 2000;
const BEARER = /^bearer ([!-~]+)$/i;
/** Retry-After of a request refused while draining: another instance (or this one restarted) takes it. */
const DRAIN_RETRY_AFTER_S = 1;

/**
 * One log line per request instead of Fastify's two: no "incoming request" line, and "request completed"
 * (or "request errored") carries the method and URL, and the account once authenticated (bound by
 * `authenticate`), never the key. Flat fields: no serializer pass per line; only the URL is redacted (redactUrl).
 */
class OneLineRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = {
      method: request.method,
      url: redactUrl(request.url),
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/** Random bytes for request ids, drawn in batches: one `randomBytes` call per id costs more than the id is worth. */
const ID_BYTES = 12;
const idPool = Buffer.alloc(ID_BYTES * 512);
let idOffset = idPool.length;

/** `<prefix>_` and 24 random hex characters. */
function randomRequestId(prefix: string): string {
  if (idOffset === idPool.length) {
    crypto.randomFillSync(idPool);
    idOffset = 0;
  }
  idOffset += ID_BYTES;
  return `${prefix}_${idPool.toString('hex', idOffset - ID_BYTES, idOffset)}`;
}

const MISSING_KEY: Record<ApiService, string> = {
  render: 'missing API key: send "Authorization: Bearer <key>"',
  metadata: 'missing API key: send the X-API-Key header',
};

/** The key a request presents; undefined when absent, null when the header is not `Bearer <key>`. */
function presentedKey(service: ApiService, request: FastifyRequest): string | null | undefined {
  if (service === 'metadata') {
    const value = request.headers['x-api-key'];
    return typeof value === 'string' && value !== '' ? value : undefined;
  }
  const header = request.headers.authorization;
  if (header === undefined || header === '') return undefined;
  return BEARER.exec(header)?.[1] ?? null;
}

/**
 * Builds the common part of a service: logger (keys redacted), request ids on every response,
 * OpenAPI and docs, `GET /v1/health`, `GET /v1/ready`, `/metrics`, 404/405 answers in the service's
 * error shape, and the `authenticate` hook. Routes and the error handler are the service's.
 */
export async function createServiceApp(opts: ServiceAppOptions): Promise<ServiceApp> {
  const { service, core, requestIdHeader, sendError } = opts;
  const idPrefix = service === 'render' ? 'rnd' : 'req';
  const app = Fastify({
    loggerInstance: requestLogger(core.log, { service }) as FastifyBaseLogger,
    genReqId: () => randomRequestId(idPrefix),
    logController: new OneLineRequestLog(),
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    // Our own 503 in the service's shape (the onRequest hook below), never Fastify's default body.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // A path parameter over Fastify's 100 characters (a made-up job or render id) or a malformed
    // percent-encoding is answered by the router before any hook, in Fastify's own shape: ours instead.
    frameworkErrors: (error, request, reply) => {
      reply.header(requestIdHeader, request.id);
      const path = (request.url.split('?')[0] ?? '').slice(0, 100);
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
        return sendError(reply, 404, 'NOT_FOUND', `not found: ${request.method} ${path}…`);
      return sendError(reply, 400, 'INVALID_REQUEST', 'the URL path is not valid: a malformed percent-encoding');
    },
    clientErrorHandler: clientErrorHandler(service),
    ...httpServerLimits(core.config),
  }).withTypeProvider<TypeBoxTypeProvider>();
  ignoreEmptyBodies(app);

  // While the app closes, a request that still reaches it (on a keep-alive connection it already
  // holds) gets the service's own 503 instead of Fastify's default body, and answers still sent
  // (requests in flight) end their connection, so a keep-alive client or load balancer cannot hold
  // it open and stall the drain.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback-style hooks: an async hook costs a promise per request for nothing here.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(requestIdHeader, request.id);
    if (!closing) return done();
    reply.header('Retry-After', String(DRAIN_RETRY_AFTER_S));
    sendError(reply, 503, 'OVERLOADED', `the ${service} service is shutting down; retry shortly`);
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    if (request.auth && request.auth.metered !== false)
      core.usage.record(request.auth.accountId, service, outcomeOf(reply.statusCode, service), request.auth.keyId);
    done();
  });

  // Swagger collects routes as they are added, so it comes first: health is in the document too.
  if (opts.openapi) {
    const { title, description, serverUrl, securitySchemes } = opts.openapi;
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: { title, version: VERSION, description },
        servers: [{ url: serverUrl }],
        components: { securitySchemes },
      },
    });
    await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  }

  app.get(
    '/v1/health',
    {
      schema: {
        summary: 'Service status and version (no authentication)',
        tags: ['health'],
        // 503: the onRequest hook above answers every route so while the service drains.
        response: { 200: HealthSchema, 503: { description: 'The instance is shutting down (Retry-After set).' } },
      },
    },
    async () => ({ status: 'healthy' as const, version: VERSION }),
  );

  const { limiter } = core;
  const limiterDegraded = () => 'isDegraded' in limiter && limiter.isDegraded === true;
  app.decorate('metrics', installMetrics(app, opts.metricsLabel ?? service, { limiterDegraded }));

  const readinessChecks = new Map<string, () => Promise<void>>([['store', () => core.store.ping()]]);
  app.decorate('addReadinessCheck', (name: string, check: () => Promise<void>) => void readinessChecks.set(name, check));
  const readinessDetails = new Map<string, () => unknown>();
  app.decorate('addReadinessDetail', (name: string, detail: () => unknown) => void readinessDetails.set(name, detail));
  app.get('/v1/ready', { schema: { hide: true } as object }, async (_request, reply) => {
    const results = await Promise.all(
      [...readinessChecks].map(async ([name, check]) => {
        try {
          await withTimeout(check(), READY_TIMEOUT_MS);
          return [name, 'ok'] as const;
        } catch (err) {
          return [name, `failing: ${(err as Error).message}`] as const;
        }
      }),
    );
    const ready = results.every(([, state]) => state === 'ok');
    const details = Object.fromEntries([...readinessDetails].map(([name, detail]) => [name, detail()]));
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not ready', checks: Object.fromEntries(results), ...details });
  });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = METHODS.filter((method) => app.hasRoute({ url: path, method }));
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendError(
        reply,
        405,
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed on ${path} (allowed: ${allowed.join(', ')})`,
      );
    }
    return sendError(reply, 404, 'NOT_FOUND', `not found: ${request.method} ${path}`);
  });

  const authenticate = async (request: FastifyRequest, reply: FastifyReply, metered: boolean) => {
    const presented = presentedKey(service, request);
    if (presented === undefined) return (sendError(reply, 401, 'UNAUTHORIZED', MISSING_KEY[service]), reply);
    let check: KeyCheck;
    try {
      check = presented === null ? { ok: false, denial: 'malformed' } : await core.keys.verify(presented, service);
    } catch (err) {
      request.log.error({ err }, 'key lookup failed: store unavailable');
      reply.header('Retry-After', '5');
      return (sendError(reply, 503, 'SERVICE_UNAVAILABLE', 'the account store is unavailable; retry shortly'), reply);
    }
    if (!check.ok) {
      const message =
        check.denial === 'malformed'
          ? 'malformed API key'
          : check.denial === 'wrong_service'
            ? `not a ${service} key (${service} keys start with ${service === 'render' ? 'pwr' : 'pwm'}_live_)`
            : check.denial === 'revoked'
              ? 'API key revoked'
              : 'unknown API key';
      return (sendError(reply, 401, 'UNAUTHORIZED', message), reply);
    }
    const now = Date.now();
    request.auth = { accountId: check.accountId, keyId: check.keyId, service, ...(metered ? {} : { metered }) };
    // The rest of this request's log lines, "request completed" included, name the account (never the key).
    // The request's logger is its own child already: binding in place is cheaper than another child.
    // It is a pino logger (the core's, see loggerInstance); Fastify's type only lists the log methods.
    (request.log as unknown as Logger).setBindings({ accountId: check.accountId, keyId: check.keyId });
    core.lastUsed.record(check.keyId, now);
    // Reads have a bucket of their own, so polling never spends the renders an account paid for.
    const policy = metered ? service : `${service}-reads`;
    const limit = (check.limitOverride ?? defaultLimit(core.config, service)) * (metered ? 1 : READS_PER_LIMIT);
    const windowS = core.config.rateLimitWindowS;
    const decision = await core.limiter.hit(`${policy}:${check.accountId}`, limit, windowS * 1000);
    const resetS = Math.ceil(decision.resetMs / 1000);
    reply.header('RateLimit-Policy', `"${policy}";q=${limit};w=${windowS}`);
    reply.header('RateLimit', `"${policy}";r=${decision.remaining};t=${resetS}`);
    if (!decision.allowed) {
      app.metrics.rateLimitRejections.inc({ service });
      reply.header('Retry-After', String(Math.max(1, resetS)));
      return (
        sendError(
          reply,
          429,
          'RATE_LIMITED',
          `rate limit of ${limit} ${metered ? service : `${service} read`} requests per ${windowUnit(windowS)} exceeded; retry in ${Math.max(1, resetS)} s`,
        ),
        reply
      );
    }
    return undefined;
  };
  app.decorate('authenticate', (request: FastifyRequest, reply: FastifyReply) => authenticate(request, reply, true));
  app.decorate('authenticateKey', (request: FastifyRequest, reply: FastifyReply) => authenticate(request, reply, false));

  return app;
}
