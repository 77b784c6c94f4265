import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { AccountError } from '../../accounts/accounts.js';
import type { ClientInfo } from '../../accounts/activity.js';
import { RESET_TOKEN_TTL_MS, resetLink } from '../../accounts/password-reset.js';
import { clientOf, type DashboardContext, field, sendCsrfFailure, sendPage } from '../context.js';
import {
  forgotByAdminPage,
  forgotPasswordPage,
  forgotSentPage,
  resetInvalidPage,
  resetPasswordPage,
} from '../views/recovery-views.js';
import type { FormTokens } from './auth-routes.js';

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

  // Runs after the answer is sent: the request takes the same time whether the email has an account or not.
  const sendResetMail = async (email: string, client: ClientInfo, log: FastifyBaseLogger) => {
    try {
      const account = await core.accounts.findByEmail(email);
      if (!account) return;
      // Only called when byMail; the admin-reset page is shown otherwise.
      if (!mailer) throw new Error('a password reset mail without SMTP_URL configured');
      const token = await core.resets.issue(account.id);
      await mailer.send({
        to: account.email,
        subject: 'Reset your Pageworks password',
        text: resetMailText(account.email, resetLink(core.config.dashboardPublicUrl, token)),
      });
      await core.activity.record(account.id, 'password_reset_requested', 'dashboard', { client, detail: 'link sent by mail' });
    } catch (err) {
      log.error({ err: (err as Error).message }, 'could not send a password reset mail');
    }
  };

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
    // Started only after this reply is on the wire (setImmediate runs after the current I/O phase), so
    // not even the account lookup happens before the answer: it cannot take longer for a known email.
    const client = clientOf(request);
    setImmediate(() => void sendResetMail(email, client, request.log));
    return sendPage(reply, 200, forgotSentPage());
  });

  // The token is a password for 30 minutes: the request log gets the path without it.
  const logSerializers = {
    req: (req: FastifyRequest) => ({
      method: req.method,
      url: req.url.replace(/token=[^&]*/, 'token=[redacted]'),
      remoteAddress: req.ip,
    }),
  };

  app.get('/reset-password', { logSerializers }, async (request, reply) => {
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
