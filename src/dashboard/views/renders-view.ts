import { escapeUnshowable } from '../../accounts/user-text.js';
import { type RenderRecord, warningCount } from '../../render/report.js';
import type { RenderSummary } from '../../store/store.js';
import { html, type SafeHtml } from '../html.js';
import { formatAgo, formatCount, formatDateTime } from './format.js';
import { formatBytes, formatDuration } from './jobs-view.js';
import { alert, page, type Viewer } from './layout.js';
import { adviceFor } from './render-advice.js';

/** Everything the Renders page shows. */
export interface RendersPageModel {
  viewer: Viewer;
  rows: RenderSummary[];
  now: number;
  /** Only failed renders and renders with warnings. */
  problemsOnly: boolean;
  /** The link to the next (older) page, or undefined on the last page. */
  olderHref?: string;
  /** Whether this is a later page (a link back to the newest is shown). */
  paged: boolean;
  /** The id searched for, when the search found nothing. */
  notFound?: string;
  retentionDays: number;
}

/** Everything one render's page shows. */
export interface RenderPageModel {
  viewer: Viewer;
  record: RenderRecord;
  /** The key's name (or display prefix), or null when the key is gone. */
  keyLabel: string | null;
  now: number;
}

/** How many renders a page lists. */
export const RENDERS_SHOWN = 50;

/** The key as a person recognises it: its name, else its prefix. */
export function keyLabelOf(name: string | null, prefix: string | null): string | null {
  if (name) return escapeUnshowable(name);
  return prefix ? `${prefix}…` : null;
}

function time(ms: number, now: number): SafeHtml {
  return html`<time datetime="${new Date(ms).toISOString()}" title="${formatDateTime(ms)}">${formatAgo(ms, now)}</time>`;
}

function status(s: RenderRecord['status']): SafeHtml {
  return html`<span class="status status-${s}">${s === 'succeeded' ? 'Succeeded' : 'Failed'}</span>`;
}

function warningsCell(count: number): SafeHtml {
  return count === 0 ? html`<span class="muted">none</span>` : html`<strong class="warn-count">${formatCount(count)}</strong>`;
}

function row(r: RenderSummary, now: number): SafeHtml {
  const key = keyLabelOf(r.keyName, r.keyPrefix);
  return html`<tr data-render-id="${r.id}">
<td data-label="Time">${time(r.createdAt, now)}</td>
<td data-label="Render" class="render-id"><a class="mono" href="/renders/${r.id}">${r.id}</a>${r.source === 'job' ? html` <span class="muted small">job</span>` : ''}</td>
<td data-label="Key" class="key-name">${key ?? html`<span class="muted">deleted key</span>`}</td>
<td data-label="Status">${status(r.status)}${r.error ? html` <code class="small">${r.error.code}</code>` : ''}</td>
<td data-label="Duration" class="num">${formatDuration(r.durationMs)}</td>
<td data-label="Pages" class="num">${r.pages === null ? html`<span class="muted">–</span>` : formatCount(r.pages)}</td>
<td data-label="Warnings" class="num">${warningsCell(r.warningCount)}</td>
</tr>`;
}

function tools(model: RendersPageModel): SafeHtml {
  return html`<div class="render-tools">
<form method="get" action="/renders" class="inline render-filter">
<label class="check"><input type="checkbox" name="problems" value="1"${model.problemsOnly ? html` checked` : ''}> Only renders with warnings or that failed</label>
<button class="btn btn-secondary btn-small" type="submit">Apply</button>
</form>
<form method="get" action="/renders" class="inline render-search" role="search">
<div class="field"><label for="render-id">Render id</label>
<input type="text" id="render-id" name="id" placeholder="rnd_… or job_…" autocomplete="off" spellcheck="false"></div>
<button class="btn btn-small" type="submit">Find</button>
</form></div>`;
}

/** The Renders page: the account's recent renders, newest first, with a filter, a search and paging. */
export function rendersPage(model: RendersPageModel): string {
  const empty = model.problemsOnly
    ? 'No render with warnings or a failure. Everything printed whole.'
    : html`No renders yet. Every <code>POST /v1/render</code> and every job appears here.`;
  const table =
    model.rows.length === 0
      ? html`<p class="empty">${empty}</p>`
      : html`<table class="renders"><thead><tr><th>Time</th><th>Render</th><th>Key</th><th>Status</th><th class="num">Duration</th><th class="num">Pages</th><th class="num">Warnings</th></tr></thead>
<tbody>${model.rows.map((r) => row(r, model.now))}</tbody></table>`;
  const problems = model.problemsOnly ? '&problems=1' : '';
  const pager = html`<nav class="pager" aria-label="Pages">
${model.paged ? html`<a class="btn btn-secondary btn-small" href="/renders${model.problemsOnly ? '?problems=1' : ''}">Newest</a>` : ''}
${model.olderHref ? html`<a class="btn btn-secondary btn-small" href="${model.olderHref}${problems}">Older</a>` : ''}
</nav>`;
  const body = html`<div class="page-head"><div><h1>Renders</h1>
<p class="lead">Every render of your account, sync and jobs, newest first: what each printed and what its document could not get. Kept ${model.retentionDays} days.</p></div></div>
${model.notFound !== undefined ? alert('warn', `No render ${model.notFound} in your account (renders are kept ${model.retentionDays} days).`) : ''}
<section class="card" aria-label="Recent renders">${tools(model)}${table}${pager}</section>`;
  return page({ title: 'Renders', viewer: model.viewer, current: 'renders', body });
}

function warningItem(entry: RenderRecord['warnings'][number]): SafeHtml {
  const advice = adviceFor(entry);
  const facts = advice.facts.map(
    ([label, value]) => html`<div><dt>${label}</dt><dd class="mono">${escapeUnshowable(value)}</dd></div>`,
  );
  return html`<li class="warning warning-${entry.kind}">
<h3>${escapeUnshowable(advice.title)}</h3>
<p class="warning-message">${escapeUnshowable(entry.message)}</p>
${facts.length > 0 ? html`<dl class="warning-facts">${facts}</dl>` : ''}
<p class="warning-advice"><strong>What to do:</strong> ${escapeUnshowable(advice.advice)}</p>
</li>`;
}

/** One render's page: its facts, its error if it failed, and each warning in plain words with what to do. */
export function renderPage(model: RenderPageModel): string {
  const r = model.record;
  const size =
    r.bytes !== null
      ? `${formatBytes(r.bytes)}${r.pages !== null ? ` · ${formatCount(r.pages)} ${r.pages === 1 ? 'page' : 'pages'}` : ''}`
      : null;
  const warnings =
    r.warnings.length === 0
      ? html`<p class="empty">Nothing was missing: the document got everything it asked for.</p>`
      : html`<ol class="warnings">${r.warnings.map(warningItem)}</ol>`;
  const count = warningCount(r.warnings);
  const body = html`<p class="crumbs"><a href="/renders">← All renders</a></p>
<div class="page-head"><div><h1 class="render-title">Render <span class="mono">${r.id}</span></h1>
<p class="lead">${r.source === 'job' ? 'A render job' : 'A POST /v1/render'} asked for ${time(r.createdAt, model.now)} (${formatDateTime(r.createdAt)}).</p></div>${status(r.status)}</div>
<section class="card" aria-labelledby="facts-title"><h2 id="facts-title">What it printed</h2>
<dl class="job-facts">
<div><dt>Key</dt><dd>${model.keyLabel ?? html`<span class="muted">deleted key</span>`}</dd></div>
<div><dt>Duration</dt><dd>${formatDuration(r.durationMs)}</dd></div>
${size ? html`<div><dt>PDF</dt><dd>${size}${r.status === 'failed' ? html` <span class="muted">(printed, not delivered)</span>` : ''}</dd></div>` : ''}
${r.jobId ? html`<div><dt>Job</dt><dd class="mono">${r.jobId}</dd></div>` : ''}
</dl>
${r.error ? html`<p class="job-error"><code>${r.error.code}</code> ${escapeUnshowable(r.error.message)}</p>` : ''}
</section>
<section class="card" aria-labelledby="warnings-title"><h2 id="warnings-title">${count === 0 ? 'No warnings' : `${formatCount(count)} ${count === 1 ? 'warning' : 'warnings'}`}</h2>
${warnings}</section>`;
  return page({ title: `Render ${r.id}`, viewer: model.viewer, current: 'renders', body });
}
