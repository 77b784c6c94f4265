import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountService } from '../accounts/accounts.js';
import type { ActivityLog, ClientInfo } from '../accounts/activity.js';
import type { CertificateService } from '../accounts/certificates.js';
import type { KeyService } from '../accounts/keys.js';
import type { Mailer } from '../accounts/mailer.js';
import type { PasswordResets } from '../accounts/password-reset.js';
import type { LastUsedRecorder, UsageRecorder } from '../accounts/usage.js';
import type { Config } from '../config.js';
import type { ResultStore } from '../jobs/results/result-store.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import type { StrikeCounter } from '../ratelimit/strikes.js';
import type { ServerKey } from '../secrets/server-key.js';
import type { Account, Store } from '../store/store.js';
import type { LoginThrottle } from './login-throttle.js';
import { loginUrlFor } from './return-to.js';
import { type ActiveSession, type SessionManager, sameSecret } from './sessions.js';
import { errorPage } from './views/error-view.js';
import type { PublicUrls } from './views/examples.js';
import type { Viewer } from './views/layout.js';

/** The signed-in account of a request and its session. */
export interface SignedIn {
  session: ActiveSession;
  account: Account;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the dashboard's session hook when the request carries a live session. */
    signedIn?: SignedIn;
  }
}

/** The shared services the dashboard uses (app/core.ts builds them, for every service). */
export interface DashboardCore {
  config: Config;
  store: Store;
  keys: KeyService;
  accounts: AccountService;
  /** Sign-ups per IP per hour count against it. */
  limiter: RateLimiter;
  /** Failure counts behind the log-in and reset throttles. */
  strikes: StrikeCounter;
  usage: UsageRecorder;
  lastUsed: LastUsedRecorder;
  activity: ActivityLog;
  resets: PasswordResets;
  /** Where render job PDFs are kept: the Jobs page serves them. */
  results: ResultStore;
  /** The accounts' signing certificates (the Signing certificates page, /v1/certificates, signing). */
  certificates: CertificateService;
  /** The server's key: the Jobs page reveals and rotates the webhook signing secret, sealed with it. */
  secrets?: ServerKey;
}

/** What every dashboard route is built from. */
export interface DashboardContext {
  core: DashboardCore;
  sessions: SessionManager;
  throttle: LoginThrottle;
  /** Password reset requests, counted per email and per IP (each request is a "failure"). */
  resetThrottle: LoginThrottle;
  /** Present when SMTP_URL is set: password reset by mail. */
  mailer?: Mailer;
  urls: PublicUrls;
  cookies: CookieNames;
  /** Cookie attributes shared by every dashboard cookie. */
  cookieOptions: { path: '/'; httpOnly: true; sameSite: 'lax'; secure: boolean | 'auto' };
}

/** Cookie names; `__Host-` (Secure, Path=/, no Domain) when served over HTTPS. */
export interface CookieNames {
  session: string;
  /** Double-submit token for the forms shown before there is a session (log in, sign up). */
  form: string;
}

/** The cookie names for the configured mode. */
export function cookieNames(secure: boolean): CookieNames {
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}pw_session`, form: `${prefix}pw_form` };
}

/**
 * The signed-in account and session of a request whose route has the `requireSignedIn` preHandler (or
 * `requireCsrf`, which also answers a request without a session itself).
 */
export function signedInOf(request: FastifyRequest): SignedIn {
  const signedIn = request.signedIn;
  if (!signedIn)
    throw new Error(`${request.method} ${request.url}: no signed-in session; the route lacks the requireSignedIn preHandler`);
  return signedIn;
}

/** The page chrome's view of the signed-in user. */
export function viewerOf(signedIn: SignedIn): Viewer {
  return { email: signedIn.account.email, csrfToken: signedIn.session.csrfToken };
}

/** A string field of a urlencoded form body; '' when absent or repeated. */
export function field(request: FastifyRequest, name: string): string {
  const body = request.body as Record<string, unknown> | undefined | null;
  const value = body && typeof body === 'object' ? body[name] : undefined;
  return typeof value === 'string' ? value : '';
}

/** Sends a full HTML page with a status. */
export function sendPage(reply: FastifyReply, status: number, markup: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(markup);
}

/**
 * Where a request without a live session goes: a page (GET) to the log-in page that leads back to it; a
 * form to the log-in page saying the session ended and the form was not sent.
 */
function toLogIn(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const get = request.method === 'GET' || request.method === 'HEAD';
  return reply.redirect(get ? loginUrlFor(request) : '/login?ended', 303);
}

/** preHandler: only signed-in requests pass; others go to the login page. */
export async function requireSignedIn(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  // Returning the reply stops the hook chain: the route handler never runs.
  return request.signedIn ? undefined : toLogIn(request, reply);
}

/** The 403 page for a form whose token is missing or wrong; nothing has been changed. */
export function sendCsrfFailure(reply: FastifyReply, viewer?: Viewer): FastifyReply {
  return sendPage(
    reply,
    403,
    errorPage({
      title: 'This form has expired',
      message: 'Nothing was changed. Go back, reload the page and try again.',
      viewer,
    }),
  );
}

/** preHandler for signed-in forms: the synchronizer token in the body must match the session's. */
export async function requireCsrf(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const signedIn = request.signedIn;
  if (!signedIn) return toLogIn(request, reply);
  return sameSecret(field(request, '_csrf'), signedIn.session.csrfToken) ? undefined : sendCsrfFailure(reply, viewerOf(signedIn));
}

/** The client address and user agent of a request, for the activity log and the sessions list. */
export function clientOf(request: FastifyRequest): ClientInfo {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof agent === 'string' && agent !== '' ? agent : null };
}
