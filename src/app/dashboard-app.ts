import crypto from 'node:crypto';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, LogController } from 'fastify';
import { createMailer } from '../accounts/mailer.js';
import { registerAssets } from '../dashboard/assets.js';
import { cookieNames, type DashboardContext, sendPage, viewerOf } from '../dashboard/context.js';
import { KeyReveals } from '../dashboard/key-reveal.js';
import { LoginThrottle, type ThrottlePolicy } from '../dashboard/login-throttle.js';
import { registerAccountRoutes } from '../dashboard/routes/account-routes.js';
import { registerActivityRoutes } from '../dashboard/routes/activity-routes.js';
import { registerAuthRoutes } from '../dashboard/routes/auth-routes.js';
import { registerCertificatesRoutes } from '../dashboard/routes/certificates-routes.js';
import { registerJobsRoutes } from '../dashboard/routes/jobs-routes.js';
import { registerKeysRoutes } from '../dashboard/routes/keys-routes.js';
import { registerRecoveryRoutes } from '../dashboard/routes/recovery-routes.js';
import { registerRendersRoutes } from '../dashboard/routes/renders-routes.js';
import { registerUsageRoutes } from '../dashboard/routes/usage-routes.js';
import { refuseForeignForms } from '../dashboard/same-origin.js';
import { SessionManager } from '../dashboard/sessions.js';
import { errorPage } from '../dashboard/views/error-view.js';
import { isConnectionError, StoreUnavailableError } from '../store/postgres.js';
import { VERSION } from '../version.js';
import type { CoreDeps } from './core.js';
import { closeUnusedOnClose } from './drain.js';
import { httpServerLimits } from './http-limits.js';
import { requestLogger } from './logger.js';
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
    loggerInstance: requestLogger(core.log, { service: 'dashboard' }) as FastifyBaseLogger,
    genReqId: () => `dsh_${crypto.randomBytes(12).toString('hex')}`,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    // Forms are a few fields; nothing legitimate comes near this.
    bodyLimit: 16 * 1024,
    // Our own 503 page while closing (the first onRequest hook below), never Fastify's default JSON body.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    ...httpServerLimits(core.config),
  });
  const ctx: DashboardContext = {
    core,
    sessions: new SessionManager(core.store),
    throttle: new LoginThrottle(core.strikes),
    resetThrottle: new LoginThrottle(core.strikes, RESET_THROTTLE, Date.now, 'reset'),
    mailer: createMailer(core.config),
    urls: { render: core.config.renderPublicUrl, metadata: core.config.metadataPublicUrl },
    cookies: cookieNames(secure),
    // Without DASHBOARD_SECURE_COOKIES, Secure still follows the request's protocol, which a trusted
    // proxy's X-Forwarded-Proto sets (TRUST_PROXY): a cookie set over https is never sent over http.
    cookieOptions: { path: '/', httpOnly: true, sameSite: 'lax', secure: secure ? true : 'auto' },
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
    // Not helmet's no-referrer: under it a browser sends `Origin: null` with the dashboard's own forms, and
    // same-origin.ts needs the real origin to tell them from another site's. Other sites still get no
    // Referer, so a reset link's token never leaves for them.
    referrerPolicy: { policy: 'same-origin' },
  });

  // A request that still reaches a closing instance (a keep-alive connection it already holds) gets
  // the dashboard's own page, before the session lookup touches the store.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  closeUnusedOnClose(app);
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('Connection', 'close').header('Retry-After', '1');
    return sendPage(
      reply,
      503,
      errorPage({ title: 'Temporarily unavailable', message: 'This server is restarting. Try again in a moment.' }),
    );
  });
  app.addHook('onRequest', async (request) => {
    if (request.url.startsWith('/assets/')) return;
    const session = await ctx.sessions.load(request.cookies[ctx.cookies.session]);
    const account = session && (await core.accounts.findById(session.accountId));
    if (session && account) request.signedIn = { session, account };
  });
  refuseForeignForms(app, core.config.dashboardPublicUrl);
  app.addHook('onSend', async (request, reply) => {
    // Pages carry tokens, keys and account data: never cache them anywhere.
    if (!request.url.startsWith('/assets/')) reply.header('Cache-Control', 'no-store');
  });

  registerAssets(app);
  registerAuthRoutes(app, ctx, (forms) => registerRecoveryRoutes(app, ctx, forms));
  registerActivityRoutes(app, ctx);
  registerKeysRoutes(app, ctx);
  registerCertificatesRoutes(app, ctx);
  registerJobsRoutes(app, ctx);
  registerRendersRoutes(app, ctx);
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

  // The 15-minute housekeeping: expired or stale sessions, reset links, old activity, and sealed new
  // keys that were never displayed (refused after 10 minutes anyway; nothing should keep them longer).
  const reveals = new KeyReveals(core.store);
  const chores: Array<[string, () => Promise<number>]> = [
    ['expired sessions', () => ctx.sessions.purgeExpired()],
    ['expired reset tokens', () => core.resets.purgeExpired()],
    ['the activity log', () => core.activity.prune()],
    ['sealed new keys', () => reveals.purgeExpired()],
  ];
  const purge = setInterval(() => {
    for (const [what, chore] of chores) {
      chore().catch((err: unknown) => app.log.warn({ err: (err as Error).message }, `could not purge ${what}`));
    }
  }, PURGE_EVERY_MS);
  purge.unref();
  app.addHook('onClose', async () => {
    clearInterval(purge);
    ctx.mailer?.close();
  });
  return app;
}
