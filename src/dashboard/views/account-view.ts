import { MIN_PASSWORD_LENGTH } from '../../accounts/password.js';
import { html } from '../html.js';
import { formatDate } from './format.js';
import { type Viewer, alert, csrfField, page } from './layout.js';

/** Everything the account page shows. */
export interface AccountPageModel {
  viewer: Viewer;
  createdAt: number;
  error?: string;
  notice?: string;
}

/** Account details and the change-password form. */
export function accountPage(model: AccountPageModel): string {
  const body = html`<div class="page-head"><div><h1>Account</h1>
<p class="lead">${model.viewer.email} · member since ${formatDate(model.createdAt)}</p></div></div>
<section class="card" aria-labelledby="password-title">
<div class="card-head"><div><h2 id="password-title">Change password</h2>
<p>Changing it signs you out everywhere else.</p></div></div>
${model.error ? alert('error', model.error) : ''}${model.notice ? alert('ok', model.notice) : ''}
<form class="stack" method="post" action="/account/password" novalidate>
${csrfField(model.viewer.csrfToken)}
<input type="text" name="username" autocomplete="username" value="${model.viewer.email}" hidden>
<div class="field"><label for="current_password">Current password</label>
<input id="current_password" name="current_password" type="password" autocomplete="current-password" required></div>
<div class="field"><label for="new_password">New password</label>
<input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required aria-describedby="new-password-hint">
<span class="hint" id="new-password-hint">At least ${MIN_PASSWORD_LENGTH} characters.</span></div>
<div class="field"><label for="new_password_confirm">Confirm new password</label>
<input id="new_password_confirm" name="new_password_confirm" type="password" autocomplete="new-password" required></div>
<button class="btn" type="submit">Change password</button>
</form>
</section>`;
  return page({ title: 'Account', viewer: model.viewer, current: 'account', body });
}
