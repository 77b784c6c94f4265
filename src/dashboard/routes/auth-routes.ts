import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AccountError } from '../../accounts/accounts.js';
import { MIN_PASSWORD_LENGTH } from '../../accounts/password.js';
import type { Account } from '../../store/store.js';
import { clientOf, type DashboardContext, field, requireCsrf, sendCsrfFailure, sendPage, signedInOf } from '../context.js';
import { DEFAULT_PAGE, safeReturnPath } from '../return-to.js';
import { randomToken, sameSecret } from '../sessions.js';
import { type AuthFormState, loginPage, signupClosedPage, signupPage } from '../views/auth-views.js';

/** Longest password accepted: scrypt cost does not depend on it, but the form body should stay small. */
const MAX_PASSWORD_LENGTH = 1024;
/** Sign-ups per client IP per hour: each one costs a password hash. */
const SIGNUPS_PER_HOUR = 10;

function waitText(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 90) return `${s} second${s === 1 ? '' : 's'}`;
  return `${Math.ceil(s / 60)} minutes`;
}

/** The double-submit token of the forms shown before there is a session. */
export interface FormTokens {
  /** The token for a form on this response (set as a cookie when the browser has none yet). */
  token(request: FastifyRequest, reply: FastifyReply): string;
  /** Whether a submitted form carries the browser's token. */
  ok(request: FastifyRequest): boolean;
}

/** Log in, sign up and log out; `more` registers other routes that need the pre-session form token. */
export function registerAuthRoutes(app: FastifyInstance, ctx: DashboardContext, more?: (forms: FormTokens) => void): void {
  const { core, sessions, throttle, cookies, cookieOptions } = ctx;
  const signupOpen = core.config.dashboardSignup === 'open';

  // Before there is a session, forms carry a double-submit token: the same random value in an
  // HttpOnly cookie and in the form, so a cross-site page cannot log a victim into its account.
  const formToken = (request: FastifyRequest, reply: FastifyReply): string => {
    const existing = request.cookies[cookies.form];
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const token = randomToken();
    reply.setCookie(cookies.form, token, cookieOptions);
    return token;
  };
  const formTokenOk = (request: FastifyRequest): boolean => {
    const cookie = request.cookies[cookies.form];
    return cookie !== undefined && sameSecret(field(request, '_csrf'), cookie);
  };
  const state = (request: FastifyRequest, reply: FastifyReply, extra: Partial<AuthFormState> = {}): AuthFormState => ({
    csrfToken: formToken(request, reply),
    signupOpen,
    resetByMail: ctx.mailer !== undefined,
    ...extra,
  });
  more?.({ token: formToken, ok: formTokenOk });

  const startSession = async (request: FastifyRequest, reply: FastifyReply, accountId: string, credentialVersion: number) => {
    // A fresh id on every login: an id planted before login (session fixation) never becomes valid.
    if (request.signedIn) await sessions.destroy(request.signedIn.session.idHash);
    const { id } = await sessions.create(accountId, credentialVersion, clientOf(request));
    reply.setCookie(cookies.session, id, { ...cookieOptions, maxAge: Math.floor(sessions.timeouts.absoluteMs / 1000) });
  };

  // Not awaited: the failure answer must not take longer for an email that has an account.
  const recordFailedSignIn = (email: string, request: FastifyRequest) => {
    core.accounts
      .findByEmail(email)
      .then(
        (account) => account && core.activity.record(account.id, 'sign_in_failed', 'dashboard', { client: clientOf(request) }),
      )
      .catch((err: unknown) => request.log.warn({ err: (err as Error).message }, 'could not record a failed sign-in'));
  };

  app.get('/login', async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const next = safeReturnPath(query.next);
    if (request.signedIn) return reply.redirect(next ?? DEFAULT_PAGE, 303);
    if (query.ended !== undefined) {
      const notice = 'Your session has ended, so that form was not sent. Log in to continue.';
      return sendPage(reply, 200, loginPage(state(request, reply, { notice, noticeKind: 'warn' })));
    }
    const notice =
      query.bye !== undefined
        ? 'You have been logged out.'
        : query.changed !== undefined
          ? 'Password changed. Log in with the new one.'
          : query.reset !== undefined
            ? 'Your password was reset and every session signed out. Log in with the new password.'
            : query.deleted !== undefined
              ? 'Your account and its keys were deleted.'
              : undefined;
    return sendPage(reply, 200, loginPage(state(request, reply, { notice, next })));
  });

  app.post('/login', async (request, reply) => {
    if (!formTokenOk(request)) return sendCsrfFailure(reply);
    const email = field(request, 'email').trim();
    const password = field(request, 'password');
    // Kept through a failed try, so the next one still leads to the page that was opened.
    const next = safeReturnPath(field(request, 'next'));
    const wait = await throttle.retryAfterMs(email, request.ip);
    if (wait > 0) {
      reply.header('Retry-After', String(Math.ceil(wait / 1000)));
      const error = `Too many failed attempts. Try again in ${waitText(wait)}.`;
      return sendPage(reply, 429, loginPage(state(request, reply, { email, error, next })));
    }
    if (email === '' || password === '') {
      return sendPage(reply, 400, loginPage(state(request, reply, { email, error: 'Enter your email and password.', next })));
    }
    const account = password.length <= MAX_PASSWORD_LENGTH ? await core.accounts.authenticate(email, password) : undefined;
    if (!account) {
      await throttle.fail(email, request.ip);
      recordFailedSignIn(email, request);
      // One message whatever was wrong: no hint whether the email has an account.
      return sendPage(reply, 401, loginPage(state(request, reply, { email, error: 'Incorrect email or password.', next })));
    }
    await throttle.succeed(email);
    await core.activity.record(account.id, 'sign_in', 'dashboard', { client: clientOf(request) });
    // The version read with the hash just checked: a password change meanwhile makes this session stale.
    await startSession(request, reply, account.id, account.credentialVersion);
    return reply.redirect(next ?? DEFAULT_PAGE, 303);
  });

  app.get('/signup', async (request, reply) => {
    if (!signupOpen) return sendPage(reply, 403, signupClosedPage());
    if (request.signedIn) return reply.redirect('/keys', 303);
    return sendPage(reply, 200, signupPage(state(request, reply)));
  });

  app.post('/signup', async (request, reply) => {
    if (!signupOpen) return sendPage(reply, 403, signupClosedPage());
    if (!formTokenOk(request)) return sendCsrfFailure(reply);
    const email = field(request, 'email').trim();
    const password = field(request, 'password');
    const fail = (status: number, error: string) => sendPage(reply, status, signupPage(state(request, reply, { email, error })));
    if (password.length < MIN_PASSWORD_LENGTH)
      return fail(400, `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`);
    if (password.length > MAX_PASSWORD_LENGTH)
      return fail(400, `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`);
    if (password !== field(request, 'password_confirm')) return fail(400, 'The two passwords do not match.');
    const decision = await core.limiter.hit(`dashboard-signup:${request.ip}`, SIGNUPS_PER_HOUR, 3_600_000);
    if (!decision.allowed) {
      reply.header('Retry-After', String(Math.max(1, Math.ceil(decision.resetMs / 1000))));
      return fail(429, 'Too many sign-ups from your network. Try again later.');
    }
    let account: Account;
    try {
      account = await core.accounts.create(email, password);
    } catch (err) {
      if (err instanceof AccountError) return fail(400, `${err.message.replace(/^./, (c) => c.toUpperCase())}.`);
      throw err;
    }
    await startSession(request, reply, account.id, account.credentialVersion);
    return reply.redirect('/keys?welcome', 303);
  });

  // Logging out of a session that has ended already is done: the page says so, not that a form was lost.
  const endedAlready = async (request: FastifyRequest, reply: FastifyReply) =>
    request.signedIn ? undefined : reply.clearCookie(cookies.session, cookieOptions).redirect('/login?bye', 303);
  app.post('/logout', { preHandler: [endedAlready, requireCsrf] }, async (request, reply) => {
    await sessions.destroy(signedInOf(request).session.idHash);
    reply.clearCookie(cookies.session, cookieOptions);
    return reply.redirect('/login?bye', 303);
  });
}
