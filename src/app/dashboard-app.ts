import crypto from 'node:crypto';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, LogController } from 'fastify';
import { createMailer } from '../accounts/mailer.js';
import { registerAssets } from '../dashboard/assets.js';
import { cookieNames, type DashboardContext, sendPage, viewerOf } from '../dashboard/context.js';
import { LoginThrottle, type ThrottlePolicy } from '../dashboard/login-throttle.js';
import { registerAccountRoutes } from '../dashboard/routes/account-routes.js';
import { registerActivityRoutes } from '../dashboard/routes/activity-routes.js';
import { registerAuthRoutes } from '../dashboard/routes/auth-routes.js';
import { registerJobsRoutes } from '../dashboard/routes/jobs-routes.js';
import { registerKeysRoutes } from '../dashboard/routes/keys-routes.js';
import { registerRecoveryRoutes } from '../dashboard/routes/recovery-routes.js';
import { registerUsageRoutes } from '../dashboard/routes/usage-routes.js';
import { SessionManager } from '../dashboard/sessions.js';
import { errorPage } from '../dashboard/views/error-view.js';
import { isConnectionError, StoreUnavailableError } from '../store/postgres.js';
import { VERSION } from '../version.js';
import type { CoreDeps } from './core.js';
import { httpServerLimits } from './http-limits.js';
import { installMetrics } from './metrics.js';

const PURGE_EVERY_MS = 15 * 60_000;

/** Reset mails: 3 per email (10 per IP) before a back-off of 5 min, doubling up to an hour. */
const RESET_THROTTLE: ThrottlePolicy = {
  emailThreshold: 3,
  ipThreshold: 10,
  baseDelayMs: 5 * 60_000,
  maxDelayMs: 60 * 60_000,
  forgetAfterMs: 60 * 60_000,
};

/**
 * Builds the account dashboard: server-rendered pages for sign-up, log-in, API keys and usage,
 * with server-side sessions, CSRF tokens on every form and a strict CSP. Never listens.
 */
export async function buildDashboardApp(core: CoreDeps): Promise<FastifyInstance> {
  const secure = core.config.dashboardSecureCookies;
  const app = Fastify({
    loggerInstance: core.log.child({ service: 'dashboard' }) as FastifyBaseLogger,
    genReqId: () => `dsh_${crypto.randomBytes(12).toString('hex')}`,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    // Forms are a few fields; nothing legitimate comes near this.
    bodyLimit: 16 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...httpServerLimits(core.config),
  });
  const ctx: DashboardContext = {
    core,
    sessions: new SessionManager(core.store),
    throttle: new LoginThrottle(),
    resetThrottle: new LoginThrottle(RESET_THROTTLE),
    mailer: createMailer(core.config),
    urls: { render: core.config.renderPublicUrl, metadata: core.config.metadataPublicUrl },
    cookies: cookieNames(secure),
    cookieOptions: { path: '/', httpOnly: true, sameSite: 'lax', secure },
  };

  await app.register(cookie);
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        // Over plain http (local use) upgrading would break every link and form.
        ...(secure ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    strictTransportSecurity: secure ? { maxAge: 31_536_000, includeSubDomains: false } : false,
  });

  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/assets/')) return;
    const session = await ctx.sessions.load(request.cookies[ctx.cookies.session]);
    const account = session && (await core.accounts.findById(session.accountId));
    if (session && account) request.signedIn = { session, account };
  });
  app.addHook('onSend', async (request, reply) => {
    // Pages carry tokens, keys and account data: never cache them anywhere.
    if (!request.url.startsWith('/assets/')) reply.header('Cache-Control', 'no-store');
  });

  registerAssets(app);
  registerAuthRoutes(app, ctx, (forms) => registerRecoveryRoutes(app, ctx, forms));
  registerActivityRoutes(app, ctx);
  registerKeysRoutes(app, ctx);
  registerJobsRoutes(app, ctx);
  registerUsageRoutes(app, ctx);
  registerAccountRoutes(app, ctx);
  app.get('/', async (request, reply) => reply.redirect(request.signedIn ? '/keys' : '/login', 303));
  // Same probe paths and metrics as the API services, so one load-balancer and scrape config fits all three.
  app.get('/v1/health', async () => ({ status: 'healthy', version: VERSION }));
  app.get('/v1/ready', async (_request, reply) => {
    try {
      await core.store.ping();
      return { status: 'ready', checks: { store: 'ok' } };
    } catch (err) {
      return reply.code(503).send({ status: 'not ready', checks: { store: `failing: ${(err as Error).message}` } });
    }
  });
  installMetrics(app, 'dashboard');

  app.setNotFoundHandler(async (request, reply) => {
    const viewer = request.signedIn && viewerOf(request.signedIn);
    return sendPage(reply, 404, errorPage({ title: 'Page not found', message: 'There is nothing at this address.', viewer }));
  });
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const viewer = request.signedIn && viewerOf(request.signedIn);
    if (error instanceof StoreUnavailableError || isConnectionError(error)) {
      request.log.warn({ err: error.message }, 'dashboard request failed: store unavailable');
      reply.header('Retry-After', '30');
      return sendPage(
        reply,
        503,
        errorPage({
          title: 'Temporarily unavailable',
          message: 'The account store cannot be reached right now. Try again in a minute.',
          viewer,
        }),
      );
    }
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'dashboard request failed');
    const message =
      status === 500 ? 'Something went wrong on our side. Try again in a moment.' : 'The request could not be understood.';
    return sendPage(
      reply,
      status,
      errorPage({ title: status === 500 ? 'Something went wrong' : 'Bad request', message, viewer }),
    );
  });

  const purge = setInterval(() => {
    ctx.sessions
      .purgeExpired()
      .catch((err: unknown) => app.log.warn({ err: (err as Error).message }, 'could not purge expired sessions'));
    core.resets
      .purgeExpired()
      .catch((err: unknown) => app.log.warn({ err: (err as Error).message }, 'could not purge expired reset tokens'));
    core.activity
      .prune()
      .catch((err: unknown) => app.log.warn({ err: (err as Error).message }, 'could not prune the activity log'));
  }, PURGE_EVERY_MS);
  purge.unref();
  app.addHook('onClose', async () => {
    clearInterval(purge);
    ctx.mailer?.close();
  });
  return app;
}
