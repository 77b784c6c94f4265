import { MIN_PASSWORD_LENGTH } from '../../accounts/password.js';
import { html } from '../html.js';
import { type AuthFormState, authCard } from './auth-views.js';
import { csrfField } from './layout.js';

/** The "forgot password" form (SMTP_URL set). */
export function forgotPasswordPage(state: AuthFormState): string {
  const form = html`<form method="post" action="/forgot-password" novalidate>
${csrfField(state.csrfToken)}
<div class="field"><label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${state.email ?? ''}" autofocus></div>
<button class="btn" type="submit">Send reset link</button>
</form>`;
  return authCard(
    'Reset your password',
    'We will mail you a link to choose a new password.',
    state,
    form,
    html`<a href="/login">Back to log in</a>`,
  );
}

/**
 * The answer to a reset request: the same page whether the address has an account or not, so the
 * page does not tell who has one.
 */
export function forgotSentPage(): string {
  // The address is not echoed either: the page is byte for byte the same for every request.
  const body = html`<div class="alert alert-ok" role="status">If an account exists for that address, a link to reset its
password is on its way. It works once, for 30 minutes.</div>
<p>Nothing arriving? Check the spam folder, or ask the administrator of this server.</p>`;
  return authCard(
    'Check your mail',
    'Password reset requested.',
    { csrfToken: '', signupOpen: false },
    body,
    html`<a href="/login">Back to log in</a>`,
  );
}

/** Without SMTP_URL: no mail can be sent, the administrator hands out reset links. */
export function forgotByAdminPage(): string {
  const form = html`<p>This server does not send mail. Ask its administrator for a one-time reset link; they create one with</p>
<pre class="command">pageworks accounts reset-password --email you@example.com</pre>`;
  return authCard(
    'Reset your password',
    'Password resets go through the administrator here.',
    { csrfToken: '', signupOpen: false },
    form,
    html`<a href="/login">Back to log in</a>`,
  );
}

/** The form that sets a new password with a reset token. */
export function resetPasswordPage(state: AuthFormState & { token: string }): string {
  const form = html`<form method="post" action="/reset-password" novalidate>
${csrfField(state.csrfToken)}
<input type="hidden" name="token" value="${state.token}">
<div class="field"><label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required aria-describedby="new-password-hint" autofocus>
<span class="hint" id="new-password-hint">At least ${MIN_PASSWORD_LENGTH} characters.</span></div>
<div class="field"><label for="new_password_confirm">Confirm new password</label>
<input id="new_password_confirm" name="new_password_confirm" type="password" autocomplete="new-password" required></div>
<button class="btn" type="submit">Set new password</button>
</form>`;
  return authCard(
    'Choose a new password',
    'Setting it signs out every session of the account.',
    state,
    form,
    html`<a href="/login">Back to log in</a>`,
  );
}

/** A reset link that is unknown, expired or already used. */
export function resetInvalidPage(byMail: boolean): string {
  const next = byMail ? html`<a href="/forgot-password">Ask for a new link</a>` : html`Ask the administrator for a new link.`;
  const form = html`<p>This reset link has expired, has been used already, or was replaced by a password change.</p>`;
  return authCard(
    'This link no longer works',
    'Reset links work once, for 30 minutes.',
    { csrfToken: '', signupOpen: false },
    form,
    next,
  );
}
