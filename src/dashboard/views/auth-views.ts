import { MIN_PASSWORD_LENGTH } from '../../accounts/password.js';
import { html, type SafeHtml } from '../html.js';
import { alert, csrfField, page } from './layout.js';

/** What the login and sign-up forms need besides their token. */
export interface AuthFormState {
  csrfToken: string;
  email?: string;
  error?: string;
  notice?: string;
  /** The notice's colour: ok (default) or a warning. */
  noticeKind?: 'ok' | 'warn';
  /** Log-in only: the page to go to afterwards (already checked to be a path of this site). */
  next?: string;
  signupOpen: boolean;
  /** SMTP_URL is set: "Forgot password?" sends a link; else the page says to ask the administrator. */
  resetByMail?: boolean;
}

/** The centred card of the pages shown before log-in. */
export function authCard(title: string, lead: string, state: AuthFormState, form: SafeHtml, footer: SafeHtml): string {
  const body = html`<div class="auth">
<div class="card">
<h1>${title}</h1>
<p class="lead">${lead}</p>
${state.error ? alert('error', state.error) : ''}${state.notice ? alert(state.noticeKind ?? 'ok', state.notice) : ''}
${form}
</div>
<p class="switch">${footer}</p>
</div>`;
  return page({ title, body });
}

/** The login page. */
export function loginPage(state: AuthFormState): string {
  const form = html`<form method="post" action="/login" novalidate>
${csrfField(state.csrfToken)}${state.next ? html`<input type="hidden" name="next" value="${state.next}">` : ''}
<div class="field"><label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${state.email ?? ''}" autofocus></div>
<div class="field"><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required></div>
<button class="btn" type="submit">Log in</button>
</form>
${forgotHint(state.resetByMail === true)}`;
  const footer = state.signupOpen
    ? html`New to Pageworks? <a href="/signup">Create an account</a>`
    : html`Accounts are created by the administrator of this server.`;
  return authCard('Log in', 'Manage your API keys and usage.', state, form, footer);
}

function forgotHint(byMail: boolean): SafeHtml {
  if (byMail) return html`<p class="forgot"><a href="/forgot-password">Forgot password?</a></p>`;
  return html`<p class="forgot hint">Forgot your password? Ask the administrator of this server for a reset link:
<code>pageworks accounts reset-password --email you@example.com</code></p>`;
}

/** The sign-up page. */
export function signupPage(state: AuthFormState): string {
  const form = html`<form method="post" action="/signup" novalidate>
${csrfField(state.csrfToken)}
<div class="field"><label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${state.email ?? ''}" autofocus></div>
<div class="field"><label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required aria-describedby="password-hint">
<span class="hint" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters.</span></div>
<div class="field"><label for="password_confirm">Confirm password</label>
<input id="password_confirm" name="password_confirm" type="password" autocomplete="new-password" required></div>
<button class="btn" type="submit">Create account</button>
</form>`;
  return authCard(
    'Create your account',
    'Render PDFs and fetch page metadata with one account.',
    state,
    form,
    html`Already have an account? <a href="/login">Log in</a>`,
  );
}

/** Shown instead of the sign-up form when DASHBOARD_SIGNUP=closed. */
export function signupClosedPage(): string {
  const body = html`<div class="auth"><div class="card">
<h1>Sign-up is closed</h1>
<p class="lead">This server does not accept new accounts from the web. Ask its administrator to create one with
<code>pageworks accounts create --email you@example.com</code>.</p>
<p><a href="/login">Back to log in</a></p>
</div></div>`;
  return page({ title: 'Sign-up is closed', body });
}
