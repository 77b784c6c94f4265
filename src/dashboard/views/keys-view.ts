import { escapeUnshowable } from '../../accounts/user-text.js';
import type { ApiService } from '../../config.js';
import type { ApiKeyRecord } from '../../store/store.js';
import { html, type SafeHtml } from '../html.js';
import { type KeyActivity, OUTCOMES } from '../usage-series.js';
import { docsUrl, metadataCurl, type PublicUrls, renderCurl } from './examples.js';
import { formatAgo, formatCount, formatDate, formatDateTime } from './format.js';
import { alert, codeBlock, copyButton, csrfField, fieldAttrs, formError, page, type Viewer } from './layout.js';
import { OUTCOME_LABELS } from './usage-chart.js';

/** Everything the API keys page shows. */
export interface KeysPageModel {
  viewer: Viewer;
  keys: ApiKeyRecord[];
  urls: PublicUrls;
  now: number;
  /** Requests per key over the last ACTIVITY_DAYS days (keys without requests are absent). */
  activity: Map<string, KeyActivity>;
  /** A key created just before this view: shown in full, this once. */
  created?: { service: ApiService; key: string; record: ApiKeyRecord };
  notice?: string;
  /** A key whose one display has passed (the page was reloaded): it is not shown again. */
  shownBefore?: ApiKeyRecord;
  /** A refused "Create key": the service's form shows the message and the name to try again with. */
  error?: { service: ApiService; message: string; name: string };
}

/** Longest key name accepted. */
export const MAX_KEY_NAME = 100;

/** The keys page counts each key's requests over this many days. */
export const ACTIVITY_DAYS = 7;

const SERVICES: Array<{ id: ApiService; title: string; what: string; prefix: string }> = [
  { id: 'render', title: 'Render', what: 'HTML to PDF · POST /v1/render', prefix: 'pwr_live_' },
  { id: 'metadata', title: 'Metadata', what: 'Page title, description, Open Graph tags · GET /v1/fetch', prefix: 'pwm_live_' },
];

function when(ms: number): SafeHtml {
  return html`<time datetime="${new Date(ms).toISOString()}" title="${formatDateTime(ms)}">${formatDate(ms)}</time>`;
}

function lastUsed(ms: number | null, now: number): SafeHtml {
  if (ms === null) return html`<span class="muted">never</span>`;
  return html`<time datetime="${new Date(ms).toISOString()}" title="${formatDateTime(ms)}">${formatAgo(ms, now)}</time>`;
}

function keyName(record: ApiKeyRecord): SafeHtml {
  // Names stored before control and format characters were refused still must not reorder the row.
  return record.name === null ? html`<span class="muted">unnamed</span>` : html`${escapeUnshowable(record.name)}`;
}

/** "12", titled with the split by outcome; a muted 0 for an idle key; links to the key's chart. */
function requests(record: ApiKeyRecord, activity: KeyActivity | undefined): SafeHtml {
  if (!activity || activity.total === 0) return html`<span class="muted idle">0</span>`;
  const split = OUTCOMES.filter((o) => activity.counts[o] > 0)
    .map((o) => `${OUTCOME_LABELS[o]}: ${formatCount(activity.counts[o])}`)
    .join(', ');
  return html`<a href="/usage?key=${record.id}" title="${split}">${formatCount(activity.total)}</a>`;
}

const REQUESTS_HEAD = `Requests (${ACTIVITY_DAYS} d)`;

function activeTable(service: ApiService, keys: ApiKeyRecord[], model: KeysPageModel): SafeHtml {
  if (keys.length === 0) {
    return html`<p class="empty">No active ${service} keys. Create one to start sending requests.</p>`;
  }
  const rows = keys.map(
    (k) => html`<tr data-key-id="${k.id}">
<td class="name" data-label="Name">${keyName(k)}</td><td class="prefix" data-label="Key">${k.displayPrefix}…</td><td class="date" data-label="Created">${when(k.createdAt)}</td><td class="date" data-label="Last used">${lastUsed(k.lastUsedAt, model.now)}</td>
<td class="num" data-label="${REQUESTS_HEAD}">${requests(k, model.activity.get(k.id))}</td>
<td class="actions"><a class="btn btn-danger-outline btn-small" href="/keys/${k.id}/revoke" aria-label="Revoke key ${k.displayPrefix}… ${escapeUnshowable(k.name ?? '')}">Revoke</a></td>
</tr>`,
  );
  return html`<table class="keys" aria-label="Active ${service} keys">
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col" class="num">${REQUESTS_HEAD}</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

/** A revoked key: `revokedAt` is set. */
type RevokedKey = ApiKeyRecord & { revokedAt: number };

function isRevoked(k: ApiKeyRecord): k is RevokedKey {
  return k.revokedAt !== null;
}

function revokedList(keys: RevokedKey[], model: KeysPageModel): SafeHtml {
  const first = keys[0];
  if (first === undefined) return html``;
  const rows = keys.map(
    (k) => html`<tr data-revoked-key-id="${k.id}">
<td class="name" data-label="Name">${keyName(k)}</td><td class="prefix" data-label="Key">${k.displayPrefix}…</td><td class="date" data-label="Revoked">${when(k.revokedAt)}</td><td class="date" data-label="Last used">${lastUsed(k.lastUsedAt, model.now)}</td>
<td class="num" data-label="${REQUESTS_HEAD}">${requests(k, model.activity.get(k.id))}</td><td class="actions"></td></tr>`,
  );
  // Open while a rotation is recent: its history is what tells whether the old key is still called.
  const recent = keys.some((k) => model.now - k.revokedAt < ACTIVITY_DAYS * 86_400_000);
  return html`<details class="revoked"${recent ? html` open` : ''}><summary>Revoked keys (${keys.length})</summary>
<table class="keys revoked-keys" aria-label="Revoked ${first.service} keys"><thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Revoked</th><th scope="col">Last used</th><th scope="col" class="num">${REQUESTS_HEAD}</th><th scope="col"></th></tr></thead>
<tbody>${rows}</tbody></table></details>`;
}

function newKeyPanel(model: KeysPageModel, service: ApiService): SafeHtml {
  const created = model.created;
  if (!created || created.service !== service) return html``;
  const curl = service === 'render' ? renderCurl(model.urls.render, created.key) : metadataCurl(model.urls.metadata, created.key);
  return html`<div class="new-key" id="new-key" role="status">
<h3>Your new ${service} key${created.record.name ? html` “${escapeUnshowable(created.record.name)}”` : ''} is ready</h3>
<p class="warning"><strong>Copy it now: it will not be shown again.</strong> Pageworks stores only a hash of it.</p>
<label for="new-key-value">API key</label>
<div class="key-row"><input id="new-key-value" type="text" readonly value="${created.key}" spellcheck="false" autocomplete="off" data-select-on-focus>${copyButton('new-key-value', 'Copy key')}</div>
<p class="small">Try it now:</p>
${codeBlock('new-key-curl', curl, `curl example for the new ${service} key`)}
</div>`;
}

function serviceCard(model: KeysPageModel, s: (typeof SERVICES)[number]): SafeHtml {
  const keys = model.keys.filter((k) => k.service === s.id);
  const active = keys.filter((k) => k.revokedAt === null);
  const revoked = keys.filter(isRevoked);
  const failed = model.error?.service === s.id ? model.error : undefined;
  // Named for the action, not "…-error": a redirect (to log in, say) keeps the form's fragment in the address bar.
  const errorId = `create-${s.id}-key`;
  return html`<section class="card" id="${s.id}-keys" aria-labelledby="${s.id}-title">
<div class="card-head"><div><div class="service-title"><h2 id="${s.id}-title">${s.title}</h2><span class="badge">${s.prefix}</span></div>
<p>${s.what}</p></div>
<a href="${docsUrl(model.urls[s.id])}">API reference</a></div>
${newKeyPanel(model, s.id)}${failed ? formError(errorId, failed.message) : ''}
<form class="inline" method="post" action="/keys#${errorId}" aria-label="Create a ${s.id} key">
${csrfField(model.viewer.csrfToken)}<input type="hidden" name="service" value="${s.id}">
<div class="field"><label for="name-${s.id}">Key name <span class="muted">(optional)</span></label>
<input id="name-${s.id}" name="name" type="text" maxlength="${MAX_KEY_NAME}" placeholder="e.g. production" autocomplete="off"${failed ? html` value="${failed.name}"` : ''}${fieldAttrs({ errorId: failed ? errorId : undefined })}></div>
<button class="btn" type="submit">Create ${s.id} key</button>
</form>
<h3>Active keys</h3>
${activeTable(s.id, active, model)}
${revokedList(revoked, model)}
</section>`;
}

function shownBeforeMessage(key: ApiKeyRecord): SafeHtml {
  return html`Key <span class="prefix">${key.displayPrefix}…</span> was shown once, when it was created, and is not shown again.
If you did not copy it, revoke it and create a new one.`;
}

/** The API keys page: one section per service. */
export function keysPage(model: KeysPageModel): string {
  const body = html`<div class="page-head"><div><h1>API keys</h1>
<p class="lead">Keys authenticate your requests; each service has its own. Keep them out of source control and client-side code.</p></div></div>
${model.notice ? alert('ok', model.notice) : ''}
${model.shownBefore ? alert('warn', shownBeforeMessage(model.shownBefore)) : ''}
${SERVICES.map((s) => serviceCard(model, s))}`;
  return page({ title: 'API keys', viewer: model.viewer, current: 'keys', body });
}

/** Whether revoking looks safe: a sentence about the key's recent use, for the confirmation step. */
function revokeAdvice(key: ApiKeyRecord, activity: KeyActivity | undefined, now: number): SafeHtml {
  const total = activity?.total ?? 0;
  const last = key.lastUsedAt === null ? 'never used' : `last used ${formatAgo(key.lastUsedAt, now)}`;
  if (total === 0 && (key.lastUsedAt === null || now - key.lastUsedAt >= ACTIVITY_DAYS * 86_400_000)) {
    return alert(
      'ok',
      html`<strong>No requests in the last ${ACTIVITY_DAYS} days</strong> (${last}): nothing seems to depend on this key.`,
    );
  }
  return alert(
    'warn',
    html`<strong>${formatCount(total)} request${total === 1 ? '' : 's'} in the last ${ACTIVITY_DAYS} days</strong> (${last}).
Whatever still sends this key will get 401: deploy its replacement first.`,
  );
}

/** The confirmation step before a key is revoked, with the key's recent use. */
export function revokePage(viewer: Viewer, key: ApiKeyRecord, activity: KeyActivity | undefined, now: number): string {
  const body = html`<div class="auth"><div class="card">
<h1>Revoke this key?</h1>
<p class="lead"><span class="prefix">${key.displayPrefix}…</span> ${key.name ? html`“${escapeUnshowable(key.name)}”` : ''} · ${key.service} · created ${formatDate(key.createdAt)}</p>
${revokeAdvice(key, activity, now)}
<p>Requests that use it will be refused with 401 from the very next one. This cannot be undone.</p>
<form method="post" action="/keys/${key.id}/revoke">${csrfField(viewer.csrfToken)}
<button class="btn btn-danger" type="submit">Revoke key</button></form>
<p class="switch"><a href="/keys">Cancel</a></p>
</div></div>`;
  return page({ title: 'Revoke key', viewer, current: 'keys', body });
}
