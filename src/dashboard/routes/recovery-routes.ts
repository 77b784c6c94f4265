import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AccountError } from '../../accounts/accounts.js';
import type { ClientInfo } from '../../accounts/activity.js';
import { RESET_TOKEN_TTL_MS, resetLink } from '../../accounts/password-reset.js';
import { clientOf, type DashboardContext, field, sendCsrfFailure, sendPage } from '../context.js';
import { type Jitter, JitteredQueue } from '../jittered-queue.js';
import {
  forgotByAdminPage,
  forgotPasswordPage,
  forgotSentPage,
  resetInvalidPage,
  resetPasswordPage,
} from '../views/recovery-views.js';
import type { FormTokens } from './auth-routes.js';

/** A reset mail goes out between a quarter second and three seconds after it was asked for. */
export const RESET_MAIL_JITTER: Jitter = { minMs: 250, maxMs: 3000 };

function resetMailText(email: string, link: string): string {
  return `Someone (hopefully you) asked to reset the password of the Pageworks account ${email}.

Open this link within ${RESET_TOKEN_TTL_MS / 60_000} minutes to choose a new password:

${link}

The link works once. Setting a new password signs out every session of the account.
If you did not ask for this, ignore this mail: your password stays as it is.
`;
}

/** "Forgot password?" (a mailed link when SMTP_URL is set) and the reset page the link opens. */
export function registerRecoveryRoutes(app: FastifyInstance, ctx: DashboardContext, forms: FormTokens): void {
  const { core, mailer, resetThrottle, cookies, cookieOptions } = ctx;
  const byMail = mailer !== undefined;

  // Everything that depends on whether the email has an account (the lookup, the token, the mail) runs
  // later, at a random moment among other requests, and an unknown address costs the same kind of work
  // (a token drawn and looked up, a mail composed): neither the answer nor the next request's latency
  // tells the two apart.
  const sendResetMail = async ({ email, client }: { email: string; client: ClientInfo }) => {
    try {
      const account = await core.accounts.findByEmail(email);
      if (!account) {
        await core.resets.usable(crypto.randomBytes(32).toString('base64url'));
        resetMailText(email, resetLink(core.config.dashboardPublicUrl, ''));
        return;
      }
      // Only queued when byMail; the admin-reset page is shown otherwise.
      if (!mailer) throw new Error('a password reset mail without SMTP_URL configured');
      const token = await core.resets.issue(account.id);
      await mailer.send({
        to: account.email,
        subject: 'Reset your Pageworks password',
        text: resetMailText(account.email, resetLink(core.config.dashboardPublicUrl, token)),
      });
      await core.activity.record(account.id, 'password_reset_requested', 'dashboard', { client, detail: 'link sent by mail' });
    } catch (err) {
      app.log.error({ err: (err as Error).message }, 'could not send a password reset mail');
    }
  };
  const resetMails = new JitteredQueue(sendResetMail, RESET_MAIL_JITTER);
  app.addHook('onClose', () => resetMails.close());

  app.get('/forgot-password', async (request, reply) => {
    if (!byMail) return sendPage(reply, 200, forgotByAdminPage());
    return sendPage(reply, 200, forgotPasswordPage({ csrfToken: forms.token(request, reply), signupOpen: false }));
  });

  app.post('/forgot-password', async (request, reply) => {
    if (!byMail) return sendPage(reply, 200, forgotByAdminPage());
    if (!forms.ok(request)) return sendCsrfFailure(reply);
    const email = field(request, 'email').trim();
    const fail = (status: number, error: string) =>
      sendPage(reply, status, forgotPasswordPage({ csrfToken: forms.token(request, reply), signupOpen: false, email, error }));
    if (email === '' || email.length > 254 || !email.includes('@')) return fail(400, 'Enter the email address of your account.');
    // Counted per email and per IP whether or not the email has an account: the limit itself tells nothing.
    const wait = await resetThrottle.retryAfterMs(email, request.ip);
    if (wait > 0) {
      reply.header('Retry-After', String(Math.ceil(wait / 1000)));
      return fail(429, `Too many reset requests. Try again in ${Math.ceil(wait / 60_000)} minutes.`);
    }
    await resetThrottle.fail(email, request.ip);
    resetMails.push({ email, client: clientOf(request) });
    return sendPage(reply, 200, forgotSentPage());
  });

  // The token is a password for 30 minutes: every logger redacts it from URLs (redact-url.ts).
  app.get('/reset-password', async (request, reply) => {
    const token = String((request.query as Record<string, unknown>).token ?? '');
    if (!(await core.resets.usable(token))) return sendPage(reply, 400, resetInvalidPage(byMail));
    return sendPage(reply, 200, resetPasswordPage({ csrfToken: forms.token(request, reply), signupOpen: false, token }));
  });

  app.post('/reset-password', async (request, reply) => {
    if (!forms.ok(request)) return sendCsrfFailure(reply);
    const token = field(request, 'token');
    const password = field(request, 'new_password');
    const fail = (error: string) =>
      sendPage(reply, 400, resetPasswordPage({ csrfToken: forms.token(request, reply), signupOpen: false, token, error }));
    if (password !== field(request, 'new_password_confirm')) return fail('The two passwords do not match.');
    let accountId: string | undefined;
    try {
      accountId = await core.resets.complete(token, password);
    } catch (err) {
      if (err instanceof AccountError) return fail(err.message);
      throw err;
    }
    if (!accountId) return sendPage(reply, 400, resetInvalidPage(byMail));
    await core.activity.record(accountId, 'password_reset', 'dashboard', {
      client: clientOf(request),
      detail: 'every session ended',
    });
    request.log.info({ accountId }, 'password reset with a link; all sessions ended');
    // The account's sessions are gone; this browser's cookie (if any) named one of them or another account's.
    reply.clearCookie(cookies.session, cookieOptions);
    return reply.redirect('/login?reset', 303);
  });
}
