import type { ApiService } from '../../config.js';
import type { ApiKeyRecord } from '../../store/store.js';
import { type SafeHtml, html } from '../html.js';
import { type PublicUrls, docsUrl, metadataCurl, renderCurl } from './examples.js';
import { formatAgo, formatDate, formatDateTime } from './format.js';
import { type Viewer, alert, codeBlock, copyButton, csrfField, page } from './layout.js';

/** Everything the API keys page shows. */
export interface KeysPageModel {
  viewer: Viewer;
  keys: ApiKeyRecord[];
  urls: PublicUrls;
  now: number;
  /** A key created by this very request: shown in full, this once. */
  created?: { service: ApiService; key: string; record: ApiKeyRecord };
  notice?: string;
  error?: { service: ApiService; message: string };
}

/** Longest key name accepted. */
export const MAX_KEY_NAME = 100;

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
  return record.name === null ? html`<span class="muted">unnamed</span>` : html`${record.name}`;
}

function activeTable(service: ApiService, keys: ApiKeyRecord[], now: number): SafeHtml {
  if (keys.length === 0) {
    return html`<p class="empty">No active ${service} keys. Create one to start sending requests.</p>`;
  }
  const rows = keys.map(
    (k) => html`<tr data-key-id="${k.id}">
<td>${keyName(k)}</td><td class="prefix">${k.displayPrefix}…</td><td>${when(k.createdAt)}</td><td>${lastUsed(k.lastUsedAt, now)}</td>
<td class="actions"><a class="btn btn-danger-outline btn-small" href="/keys/${k.id}/revoke" aria-label="Revoke key ${k.displayPrefix}… ${k.name ?? ''}">Revoke</a></td>
</tr>`,
  );
  return html`<table class="keys" aria-label="Active ${service} keys">
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="skip">Actions</span></th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function revokedList(keys: ApiKeyRecord[]): SafeHtml {
  if (keys.length === 0) return html``;
  const rows = keys.map(
    (k) => html`<tr><td>${keyName(k)}</td><td class="prefix">${k.displayPrefix}…</td><td>${when(k.createdAt)}</td><td>${when(k.revokedAt!)}</td></tr>`,
  );
  return html`<details class="revoked"><summary>Revoked keys (${keys.length})</summary>
<table class="keys"><thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Revoked</th></tr></thead>
<tbody>${rows}</tbody></table></details>`;
}

function newKeyPanel(model: KeysPageModel, service: ApiService): SafeHtml {
  const created = model.created;
  if (!created || created.service !== service) return html``;
  const curl = service === 'render' ? renderCurl(model.urls.render, created.key) : metadataCurl(model.urls.metadata, created.key);
  return html`<div class="new-key" id="new-key" role="status">
<h3>Your new ${service} key${created.record.name ? html` “${created.record.name}”` : ''} is ready</h3>
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
  const revoked = keys.filter((k) => k.revokedAt !== null);
  const error = model.error?.service === s.id ? alert('error', model.error.message) : '';
  return html`<section class="card" id="${s.id}-keys" aria-labelledby="${s.id}-title">
<div class="card-head"><div><div class="service-title"><h2 id="${s.id}-title">${s.title}</h2><span class="badge">${s.prefix}</span></div>
<p>${s.what}</p></div>
<a href="${docsUrl(model.urls[s.id])}">API reference</a></div>
${newKeyPanel(model, s.id)}${error}
<form class="inline" method="post" action="/keys" aria-label="Create a ${s.id} key">
${csrfField(model.viewer.csrfToken)}<input type="hidden" name="service" value="${s.id}">
<div class="field"><label for="name-${s.id}">Key name <span class="muted">(optional)</span></label>
<input id="name-${s.id}" name="name" type="text" maxlength="${MAX_KEY_NAME}" placeholder="e.g. production" autocomplete="off"></div>
<button class="btn" type="submit">Create ${s.id} key</button>
</form>
<h3>Active keys</h3>
${activeTable(s.id, active, model.now)}
${revokedList(revoked)}
</section>`;
}

/** The API keys page: one section per service. */
export function keysPage(model: KeysPageModel): string {
  const body = html`<div class="page-head"><div><h1>API keys</h1>
<p class="lead">Keys authenticate your requests; each service has its own. Keep them out of source control and client-side code.</p></div></div>
${model.notice ? alert('ok', model.notice) : ''}
${SERVICES.map((s) => serviceCard(model, s))}`;
  return page({ title: 'API keys', viewer: model.viewer, current: 'keys', body });
}

/** The confirmation step before a key is revoked. */
export function revokePage(viewer: Viewer, key: ApiKeyRecord): string {
  const body = html`<div class="auth"><div class="card">
<h1>Revoke this key?</h1>
<p class="lead"><span class="prefix">${key.displayPrefix}…</span> ${key.name ? html`“${key.name}”` : ''} · ${key.service} · created ${formatDate(key.createdAt)}</p>
<p>Requests that use it will be refused with 401 from the very next one. This cannot be undone.</p>
<form method="post" action="/keys/${key.id}/revoke">${csrfField(viewer.csrfToken)}
<button class="btn btn-danger" type="submit">Revoke key</button></form>
<p class="switch"><a href="/keys">Cancel</a></p>
</div></div>`;
  return page({ title: 'Revoke key', viewer, current: 'keys', body });
}
