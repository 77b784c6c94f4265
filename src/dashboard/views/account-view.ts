import { MIN_PASSWORD_LENGTH } from '../../accounts/password.js';
import { html, type SafeHtml } from '../html.js';
import { formatAgo, formatDate, formatDateTime } from './format.js';
import { alert, csrfField, fieldAttrs, formError, page, type Viewer } from './layout.js';
import { describeAgent } from './user-agent.js';

/** The fields of the password change form. */
export type PasswordField = 'current_password' | 'new_password' | 'new_password_confirm';

/** Everything the account page shows. */
export interface AccountPageModel {
  viewer: Viewer;
  createdAt: number;
  /** The password change's error, and the field it is about. */
  error?: string;
  errorField?: PasswordField;
  notice?: string;
  /** The account's live sessions (the sessions list); `current` marks this browser's. */
  sessions: Array<{
    publicId: string;
    createdAt: number;
    lastSeenAt: number;
    ip: string | null;
    userAgent: string | null;
    current: boolean;
  }>;
  now: number;
  sessionsNotice?: string;
  /** Shown as a warning: nothing was changed. */
  sessionsWarning?: string;
  deleteError?: string;
}

/** Account details and the change-password form. */
export function accountPage(model: AccountPageModel): string {
  const attrs = (field: PasswordField, hintId?: string) =>
    fieldAttrs({ hintId, errorId: model.error && model.errorField === field ? 'change-password' : undefined });
  // Each form's action names its error: a page answered with one opens on it (formError). The ids are the
  // forms' actions, not "…-error": a success's redirect keeps the fragment in the address bar.
  const body = html`<div class="page-head"><div><h1>Account</h1>
<p class="lead">${model.viewer.email} · member since ${formatDate(model.createdAt)}</p></div></div>
<section class="card" aria-labelledby="password-title">
<div class="card-head"><div><h2 id="password-title">Change password</h2>
<p>Changing it signs you out everywhere else.</p></div></div>
${model.error ? formError('change-password', model.error) : ''}${model.notice ? alert('ok', model.notice) : ''}
<form class="stack" method="post" action="/account/password#change-password" novalidate>
${csrfField(model.viewer.csrfToken)}
<input type="text" name="username" autocomplete="username" value="${model.viewer.email}" hidden>
<div class="field"><label for="current_password">Current password</label>
<input id="current_password" name="current_password" type="password" autocomplete="current-password" required${attrs('current_password')}></div>
<div class="field"><label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required${attrs('new_password', 'new-password-hint')}>
<span class="hint" id="new-password-hint">At least ${MIN_PASSWORD_LENGTH} characters.</span></div>
<div class="field"><label for="new_password_confirm">Confirm new password</label>
<input id="new_password_confirm" name="new_password_confirm" type="password" autocomplete="new-password" required${attrs('new_password_confirm')}></div>
<button class="btn" type="submit">Change password</button>
</form>
</section>
${sessionsSection(model)}
<section class="card" aria-labelledby="activity-title">
<div class="card-head"><div><h2 id="activity-title">Activity</h2>
<p>Sign-ins, password changes, keys created and revoked, ended sessions.</p></div>
<a class="btn btn-secondary btn-small" href="/activity">View activity log</a></div>
</section>
${deleteSection(model)}`;
  return page({ title: 'Account', viewer: model.viewer, current: 'account', body });
}

function sessionsSection(model: AccountPageModel): SafeHtml {
  const rows = model.sessions.map(
    (s) => html`<li class="session-row"${s.current ? html` data-current` : ''}>
<div class="session-what"><strong title="${s.userAgent ?? ''}">${describeAgent(s.userAgent)}</strong>${s.current ? html` <span class="badge">This session</span>` : ''}
<span class="muted">${s.ip ?? 'unknown address'} · signed in <time datetime="${new Date(s.createdAt).toISOString()}">${formatDateTime(s.createdAt)}</time>
· last seen ${formatAgo(s.lastSeenAt, model.now)}</span></div>
${
  s.current
    ? ''
    : html`<form method="post" action="/account/sessions/end#sessions">${csrfField(model.viewer.csrfToken)}
<input type="hidden" name="session" value="${s.publicId}"><button class="btn btn-danger-outline btn-small" type="submit" aria-label="End the session of ${describeAgent(s.userAgent)} at ${s.ip ?? 'an unknown address'}, signed in ${formatDateTime(s.createdAt)}">End</button></form>`
}
</li>`,
  );
  const others = model.sessions.some((s) => !s.current);
  return html`<section class="card" id="sessions" aria-labelledby="sessions-title">
<div class="card-head"><div><h2 id="sessions-title">Sessions</h2>
<p>Browsers signed in to this account. End any you do not recognise, then change your password.</p></div>
${
  others
    ? html`<form method="post" action="/account/sessions/end-others#sessions">${csrfField(model.viewer.csrfToken)}
<button class="btn btn-secondary btn-small" type="submit">End all other sessions</button></form>`
    : ''
}</div>
${model.sessionsNotice ? alert('ok', model.sessionsNotice) : ''}${model.sessionsWarning ? alert('warn', model.sessionsWarning) : ''}
<ul class="session-list">${rows}</ul>
</section>`;
}

function deleteSection(model: AccountPageModel): SafeHtml {
  return html`<section class="card danger-zone" aria-labelledby="delete-title">
<div class="card-head"><div><h2 id="delete-title">Delete account</h2>
<p>Every API key stops working at once, every session ends, and the account, its keys and its usage are removed. This cannot be undone.</p></div></div>
${model.deleteError ? formError('delete-account', model.deleteError) : ''}
<form class="stack" method="post" action="/account/delete#delete-account" novalidate>
${csrfField(model.viewer.csrfToken)}
<div class="field"><label for="delete_password">Password</label>
<input id="delete_password" name="password" type="password" autocomplete="current-password" required${fieldAttrs({ hintId: 'delete-hint', errorId: model.deleteError ? 'delete-account' : undefined })}>
<span class="hint" id="delete-hint">Enter your password to confirm.</span></div>
<button class="btn btn-danger" type="submit">Delete my account</button>
</form>
</section>`;
}
