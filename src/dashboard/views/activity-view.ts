import type { ActivityEntry, ActivityKind } from '../../store/store.js';
import { html } from '../html.js';
import { formatDateTime } from './format.js';
import { page, type Viewer } from './layout.js';
import { describeAgent } from './user-agent.js';

/** Everything the activity page shows. */
export interface ActivityPageModel {
  viewer: Viewer;
  entries: ActivityEntry[];
  page: number;
  hasMore: boolean;
  retentionDays: number;
}

const WHAT: Record<ActivityKind, string> = {
  sign_in: 'Signed in',
  sign_in_failed: 'Failed sign-in (wrong password)',
  password_changed: 'Password changed',
  password_reset_requested: 'Password reset link requested',
  password_reset: 'Password reset with a link',
  key_created: 'API key created',
  key_revoked: 'API key revoked',
  limit_changed: 'Rate limit changed',
  session_ended: 'Session ended',
  account_deleted: 'Account deleted',
  webhook_secret_revealed: 'Webhook signing secret revealed',
  webhook_secret_rotated: 'Webhook signing secret rotated',
  certificate_uploaded: 'Signing certificate uploaded',
  certificate_deleted: 'Signing certificate deleted',
};

const BY: Record<ActivityEntry['actor'], string> = {
  dashboard: 'dashboard',
  cli: 'administrator (CLI)',
  system: 'server',
  api: 'API key',
};

/** The account's activity log, newest first, paginated. */
export function activityPage(model: ActivityPageModel): string {
  const rows = model.entries.map(
    (e) => html`<li class="activity-row activity-${e.kind}">
<div><strong>${WHAT[e.kind] ?? e.kind}</strong>${e.detail ? html` <span class="activity-detail">· ${e.detail}</span>` : ''}</div>
<div class="muted"><time datetime="${new Date(e.at).toISOString()}">${formatDateTime(e.at)}</time> · by ${BY[e.actor] ?? e.actor}${e.ip ? html` · ${e.ip}` : ''}${
      e.userAgent ? html` · <span class="activity-agent" title="${e.userAgent}">${describeAgent(e.userAgent)}</span>` : ''
    }</div>
</li>`,
  );
  const pager = html`<nav class="pager" aria-label="Pages">
${model.page > 1 ? html`<a class="btn btn-secondary btn-small" href="/activity?page=${model.page - 1}">Newer</a>` : ''}
${model.hasMore ? html`<a class="btn btn-secondary btn-small" href="/activity?page=${model.page + 1}">Older</a>` : ''}
</nav>`;
  const body = html`<div class="page-head"><div><h1>Activity</h1>
<p class="lead">What happened to this account, newest first. Entries are kept ${model.retentionDays} days.</p></div></div>
<section class="card" aria-label="Activity log">
${model.entries.length === 0 ? html`<p class="muted">Nothing recorded${model.page > 1 ? ' on this page' : ' yet'}.</p>` : html`<ul class="activity-list">${rows}</ul>`}
${pager}
</section>`;
  return page({ title: 'Activity', viewer: model.viewer, current: 'account', body });
}
