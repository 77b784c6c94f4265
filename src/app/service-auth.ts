/**
 * API key authentication of the render and metadata services, as onRequest hooks (before the body is
 * read): the key a request presents (`Authorization: Bearer` for render, `X-API-Key` for metadata), the
 * account's rate limit with its RateLimit fields, and the key's last use. `authenticate` spends the
 * limit; `authenticateKey` (reads: polling a job, listing, downloading) has a bucket of its own.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { KeyCheck } from '../accounts/keys.js';
import { type ApiService, defaultLimit } from '../config.js';
import { windowUnit } from '../ratelimit/window.js';
import type { SendError, ServiceApp } from '../service-app-type.js';
import type { CoreDeps } from './core.js';

/** Reads (authenticateKey) are limited at this many times the account's limit. */
export const READS_PER_LIMIT = 10;

const BEARER = /^bearer ([!-~]+)$/i;

/**
 * The challenge of a render 401 (RFC 9110 §15.5.2 requires one; RFC 6750 §3 gives its form): the realm
 * alone when the request sent no Bearer credentials, `invalid_token` when it sent a key that was refused.
 * A metadata key travels in X-API-Key, which no registered authentication scheme describes: no challenge.
 */
const BEARER_CHALLENGE = 'Bearer realm="pageworks"';
const INVALID_TOKEN_CHALLENGE = `${BEARER_CHALLENGE}, error="invalid_token"`;

/** The WWW-Authenticate value of a refused render request, by whether its Authorization header used the Bearer scheme. */
function bearerChallenge(request: FastifyRequest): string {
  return /^bearer(?: |$)/i.test(request.headers.authorization ?? '') ? INVALID_TOKEN_CHALLENGE : BEARER_CHALLENGE;
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

/** What authentication is built from. */
export interface ServiceAuthOptions {
  service: ApiService;
  core: Pick<CoreDeps, 'config' | 'keys' | 'lastUsed' | 'limiter'>;
  sendError: SendError;
}

/** Decorates the app with the `authenticate` and `authenticateKey` hooks (the app's metrics must be installed). */
export function installServiceAuth(app: ServiceApp, opts: ServiceAuthOptions): void {
  const { service, core, sendError } = opts;
  const windows = new WeakMap<FastifyRequest, { key: string; policy: string; limit: number; windowS: number }>();
  const unauthorized = (request: FastifyRequest, reply: FastifyReply, message: string) => {
    if (service === 'render') reply.header('WWW-Authenticate', bearerChallenge(request));
    return (sendError(reply, 401, 'UNAUTHORIZED', message), reply);
  };
  const authenticate = async (request: FastifyRequest, reply: FastifyReply, metered: boolean) => {
    const presented = presentedKey(service, request);
    if (presented === undefined) return unauthorized(request, reply, MISSING_KEY[service]);
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
      return unauthorized(request, reply, message);
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
    if (metered) windows.set(request, { key: `${policy}:${check.accountId}`, policy, limit, windowS });
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
  app.decorate('spendMore', async (request: FastifyRequest, reply: FastifyReply, extra: number) => {
    const window = windows.get(request);
    if (request.auth && extra > 0) request.auth.units = 1 + extra;
    if (!window || extra <= 0) return { allowed: true, limit: window?.limit ?? 0, retryAfterS: 0, charged: 1 };
    // One request counts at most one window's worth: larger than the limit, it takes the whole window
    // (and needs it untouched), instead of being refused for ever. A job counts the rest as its parts start.
    const weight = Math.min(extra, window.limit - 1);
    const charged = 1 + Math.max(0, weight);
    const decision = weight <= 0 ? undefined : await core.limiter.hit(window.key, window.limit, window.windowS * 1000, weight);
    if (!decision) return { allowed: true, limit: window.limit, retryAfterS: 0, charged };
    const resetS = Math.ceil(decision.resetMs / 1000);
    reply.header('RateLimit', `"${window.policy}";r=${decision.remaining};t=${resetS}`);
    if (!decision.allowed) app.metrics.rateLimitRejections.inc({ service });
    return { allowed: decision.allowed, limit: window.limit, retryAfterS: Math.max(1, resetS), charged };
  });
  app.decorate('authenticate', (request: FastifyRequest, reply: FastifyReply) => authenticate(request, reply, true));
  app.decorate('authenticateKey', (request: FastifyRequest, reply: FastifyReply) => authenticate(request, reply, false));
}
