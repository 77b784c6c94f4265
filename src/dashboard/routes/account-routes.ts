import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MIN_PASSWORD_LENGTH } from '../../accounts/password.js';
import {
  clientOf,
  type DashboardContext,
  field,
  requireCsrf,
  requireSignedIn,
  sendPage,
  signedInOf,
  viewerOf,
} from '../context.js';
import { type AccountPageModel, accountPage, type PasswordField } from '../views/account-view.js';

/** The account page: details, password change, the sessions list and account deletion. */
export function registerAccountRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const { core, sessions, throttle, cookies, cookieOptions } = ctx;

  const show = async (request: FastifyRequest, reply: FastifyReply, status: number, extra: Partial<AccountPageModel> = {}) => {
    const signedIn = signedInOf(request);
    const { account, session } = signedIn;
    const live = await sessions.list(account.id);
    const model: AccountPageModel = {
      viewer: viewerOf(signedIn),
      createdAt: account.createdAt,
      now: Date.now(),
      sessions: live.map(({ idHash, ...s }) => ({ ...s, current: idHash === session.idHash })),
      ...extra,
    };
    return sendPage(reply, status, accountPage(model));
  };

  // Guessing the password through a stolen session is throttled like logging in; undefined: go ahead.
  const checkPassword = async (request: FastifyRequest, reply: FastifyReply, password: string): Promise<string | undefined> => {
    const { account } = signedInOf(request);
    const wait = await throttle.retryAfterMs(account.email, request.ip);
    if (wait > 0) {
      reply.header('Retry-After', String(Math.ceil(wait / 1000)));
      return 'Too many failed attempts. Try again later.';
    }
    if (!(await core.accounts.authenticate(account.email, password))) {
      await throttle.fail(account.email, request.ip);
      return 'The password is not correct.';
    }
    return undefined;
  };

  app.get('/account', { preHandler: requireSignedIn }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const notice = query.changed !== undefined ? 'Password changed. Every other session was signed out.' : undefined;
    const sessionsNotice =
      query.ended !== undefined
        ? 'The session was ended.'
        : query.others !== undefined
          ? 'Every other session was ended.'
          : undefined;
    const sessionsWarning =
      query['not-ended'] !== undefined
        ? 'No session was ended: none of your live sessions has that id. It may have ended or expired already.'
        : undefined;
    return show(request, reply, 200, { notice, sessionsNotice, sessionsWarning });
  });

  app.post('/account/password', { preHandler: [requireSignedIn, requireCsrf] }, async (request, reply) => {
    const { account } = signedInOf(request);
    const fail = (status: number, error: string, errorField: PasswordField) =>
      show(request, reply, status, { error, errorField });
    const next = field(request, 'new_password');
    if (next.length < MIN_PASSWORD_LENGTH || next.length > 1024) {
      return fail(400, `Choose a new password of ${MIN_PASSWORD_LENGTH} to 1024 characters.`, 'new_password');
    }
    if (next !== field(request, 'new_password_confirm'))
      return fail(400, 'The two new passwords do not match.', 'new_password_confirm');
    const refused = await checkPassword(request, reply, field(request, 'current_password'));
    if (refused)
      return fail(
        reply.getHeader('Retry-After') ? 429 : 400,
        refused.replace('The password', 'The current password'),
        'current_password',
      );
    // Every session ends with the change, this one included; this browser gets a fresh one under the
    // new credential version so it stays signed in.
    const version = await core.accounts.changePassword(account.id, next);
    const { id } = await sessions.create(account.id, version, clientOf(request));
    reply.setCookie(cookies.session, id, { ...cookieOptions, maxAge: Math.floor(sessions.timeouts.absoluteMs / 1000) });
    await core.activity.record(account.id, 'password_changed', 'dashboard', {
      client: clientOf(request),
      detail: 'every other session ended',
    });
    request.log.info({ accountId: account.id }, 'password changed; all sessions ended');
    return reply.redirect('/account?changed', 303);
  });

  app.post('/account/sessions/end', { preHandler: [requireSignedIn, requireCsrf] }, async (request, reply) => {
    const { account } = signedInOf(request);
    // Only the account's own sessions match: another account's public id ends nothing, and says so in
    // the same words as an unknown one.
    if (!(await sessions.destroyByPublicId(account.id, field(request, 'session')))) {
      return reply.redirect('/account?not-ended', 303);
    }
    await core.activity.record(account.id, 'session_ended', 'dashboard', { client: clientOf(request), detail: 'one session' });
    return reply.redirect('/account?ended', 303);
  });

  app.post('/account/sessions/end-others', { preHandler: [requireSignedIn, requireCsrf] }, async (request, reply) => {
    const { account, session } = signedInOf(request);
    await sessions.destroyOthers(account.id, session.idHash);
    await core.activity.record(account.id, 'session_ended', 'dashboard', {
      client: clientOf(request),
      detail: 'every other session',
    });
    return reply.redirect('/account?others', 303);
  });

  app.post('/account/delete', { preHandler: [requireSignedIn, requireCsrf] }, async (request, reply) => {
    const { account } = signedInOf(request);
    const refused = await checkPassword(request, reply, field(request, 'password'));
    if (refused) return show(request, reply, reply.getHeader('Retry-After') ? 429 : 400, { deleteError: refused });
    const tombstone = core.activity.entry(account.id, 'account_deleted', 'dashboard', { client: clientOf(request) });
    await core.accounts.delete(account.id, tombstone);
    request.log.info({ accountId: account.id }, 'account deleted from the dashboard; keys, sessions and usage removed');
    reply.clearCookie(cookies.session, cookieOptions);
    return reply.redirect('/login?deleted', 303);
  });
}
