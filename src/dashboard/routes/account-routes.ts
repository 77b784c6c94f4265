import type { FastifyInstance } from 'fastify';
import { MIN_PASSWORD_LENGTH } from '../../accounts/password.js';
import { type DashboardContext, field, requireCsrf, requireSignedIn, sendPage, viewerOf } from '../context.js';
import { accountPage } from '../views/account-view.js';

/** The account page: details and password change. */
export function registerAccountRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { core, sessions, throttle, cookies, cookieOptions } = ctx;

  app.get('/account', { preHandler: requireSignedIn }, async (request, reply) => {
    const { account } = request.signedIn!;
    const notice = (request.query as Record<string, unknown>).changed !== undefined ? 'Password changed. Every other session was signed out.' : undefined;
    return sendPage(reply, 200, accountPage({ viewer: viewerOf(request.signedIn!), createdAt: account.createdAt, notice }));
  });

  app.post('/account/password', { preHandler: [requireSignedIn, requireCsrf] }, async (request, reply) => {
    const { account, session } = request.signedIn!;
    const fail = (status: number, error: string) =>
      sendPage(reply, status, accountPage({ viewer: viewerOf(request.signedIn!), createdAt: account.createdAt, error }));
    const next = field(request, 'new_password');
    if (next.length < MIN_PASSWORD_LENGTH || next.length > 1024) {
      return fail(400, `Choose a new password of ${MIN_PASSWORD_LENGTH} to 1024 characters.`);
    }
    if (next !== field(request, 'new_password_confirm')) return fail(400, 'The two new passwords do not match.');
    // Guessing the current password through a stolen session is throttled like logging in.
    const wait = throttle.retryAfterMs(account.email, request.ip);
    if (wait > 0) {
      reply.header('Retry-After', String(Math.ceil(wait / 1000)));
      return fail(429, 'Too many failed attempts. Try again later.');
    }
    if (!(await core.accounts.authenticate(account.email, field(request, 'current_password')))) {
      throttle.fail(account.email, request.ip);
      return fail(400, 'The current password is not correct.');
    }
    await core.accounts.changePassword(account.id, next);
    // Every session ends, this one included; this browser gets a fresh one so it stays signed in.
    await sessions.destroyAllOf(account.id);
    await sessions.destroy(session.idHash);
    const { id } = await sessions.create(account.id);
    reply.setCookie(cookies.session, id, { ...cookieOptions, maxAge: Math.floor(sessions.timeouts.absoluteMs / 1000) });
    request.log.info({ accountId: account.id }, 'password changed; all sessions ended');
    return reply.redirect('/account?changed', 303);
  });
}
