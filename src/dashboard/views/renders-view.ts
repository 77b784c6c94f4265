import { escapeUnshowable } from '../../accounts/user-text.js';
import { type RenderRecord, warningCount } from '../../render/index.js';
import type { RenderSummary } from '../../store/store.js';
import { html, type SafeHtml } from '../html.js';
import { assemblyPartsCard } from './assembly-parts-view.js';
import { formatAgo, formatCount, formatDateTime } from './format.js';
import { formatBytes, formatDuration, type PdfState, warningsLabel } from './jobs-view.js';
import { alert, page, type Viewer } from './layout.js';
import { adviceFor } from './render-advice.js';

/** Everything the Renders page shows. */
export interface RendersPageModel {
  viewer: Viewer;
  rows: RenderSummary[];
  now: number;
  /** Only failed renders and renders with warnings. */
  problemsOnly: boolean;
  /** Only renders whose PDF claims a standard. */
  claimedOnly: boolean;
  /** The text searched for in titles and references, if any. */
  search?: string;
  /** The first page with the same filters. */
  newestHref: string;
  /** The link to the next (older) page, or undefined on the last page. */
  olderHref?: string;
  /** Whether this is a later page (a link back to the newest is shown). */
  paged: boolean;
  /** The id searched for, when the search found nothing. */
  notFound?: string;
  retentionDays: number;
}

/** The job a render was made for, as its page shows it. */
export interface RenderJobFacts {
  reference: string | null;
  /** Where the job's PDF is now. */
  pdf: PdfState;
}

/** Everything one render's page shows. */
export interface RenderPageModel {
  viewer: Viewer;
  record: RenderRecord;
  /** The key's name (or display prefix), or null when the key is gone. */
  keyLabel: string | null;
  now: number;
  /** The job, for a job's render while the job is kept. */
  job?: RenderJobFacts;
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

/**
 * The badge of one render's page: a render that printed without everything says so beside "Succeeded"
 * and leads to its warnings, as a job's badge does (a green badge alone reads as complete).
 */
function pageStatus(s: RenderRecord['status'], warnings: number): SafeHtml {
  if (s === 'succeeded' && warnings > 0)
    return html`<a class="status status-warned" href="#warnings-title">Succeeded · ${warningsLabel(warnings)}</a>`;
  return status(s);
}

function warningsCell(count: number): SafeHtml {
  return count === 0 ? html`<span class="muted">none</span>` : html`<strong class="warn-count">${formatCount(count)}</strong>`;
}

/** The document's title and a job's reference: text from the document and the customer, shown escaped. */
function titleCell(r: RenderSummary): SafeHtml {
  const title =
    r.title === null
      ? html`<span class="muted">untitled</span>`
      : html`<span class="title-text" title="${escapeUnshowable(r.title)}">${escapeUnshowable(r.title)}</span>`;
  const reference =
    r.reference === null
      ? ''
      : html`<span class="job-ref small">Reference <strong>${escapeUnshowable(r.reference)}</strong></span>`;
  return html`<span class="cell-text">${title}${reference}</span>`;
}

/** Each claim whole on its line; several wrap between claims, never inside one. */
function claimsList(claims: readonly string[]): SafeHtml {
  return html`<span class="cell-text">${claims.map((c, i) => html`${i > 0 ? ' ' : ''}<span class="claim">${c}</span>`)}</span>`;
}

function row(r: RenderSummary, now: number): SafeHtml {
  const key = keyLabelOf(r.keyName, r.keyPrefix);
  return html`<tr data-render-id="${r.id}">
<td data-label="Time">${time(r.createdAt, now)}</td>
<td data-label="Render" class="render-id"><a class="mono" href="/renders/${r.id}">${r.id}</a>${r.source === 'job' ? html` <span class="muted small">job</span>` : ''}</td>
<td data-label="Title" class="doc-title">${titleCell(r)}</td>
<td data-label="Key" class="key-name">${key ?? html`<span class="muted">deleted key</span>`}</td>
<td data-label="Status">${status(r.status)}${r.error ? html` <code class="small">${r.error.code}</code>` : ''}</td>
<td data-label="Claims" class="claims">${r.claims.length === 0 ? html`<span class="muted">none</span>` : claimsList(r.claims)}</td>
<td data-label="Duration" class="num">${formatDuration(r.durationMs)}</td>
<td data-label="Pages" class="num">${r.pages === null ? html`<span class="muted">–</span>` : formatCount(r.pages)}</td>
<td data-label="Warnings" class="num">${warningsCell(r.warningCount)}</td>
</tr>`;
}

function tools(model: RendersPageModel): SafeHtml {
  const checked = (on: boolean) => (on ? html` checked` : '');
  return html`<div class="render-tools">
<form method="get" action="/renders" class="inline render-filter">
<label class="check"><input type="checkbox" name="problems" value="1"${checked(model.problemsOnly)}> Only renders with warnings or that failed</label>
<label class="check"><input type="checkbox" name="claims" value="1"${checked(model.claimedOnly)}> Only renders that claim a standard</label>
${model.search ? html`<input type="hidden" name="q" value="${model.search}">` : ''}
<button class="btn btn-secondary btn-small" type="submit">Apply</button>
</form>
<form method="get" action="/renders" class="inline render-search" role="search">
<div class="field"><label for="render-id">Render id, title or reference</label>
<input type="search" id="render-id" name="q" value="${model.search ?? ''}" maxlength="300" placeholder="rnd_…, job_…, or part of a title" autocomplete="off" spellcheck="false"></div>
${model.problemsOnly ? html`<input type="hidden" name="problems" value="1">` : ''}
${model.claimedOnly ? html`<input type="hidden" name="claims" value="1">` : ''}
<button class="btn btn-small" type="submit">Find</button>
</form></div>`;
}

/** What an empty list says, by what it was filtered by. */
function emptyText(model: RendersPageModel): SafeHtml | string {
  if (model.search !== undefined)
    return `No render whose title or reference contains “${escapeUnshowable(model.search)}”${model.problemsOnly || model.claimedOnly ? ' among the renders the filters keep' : ''}.`;
  if (model.claimedOnly) return 'No render whose PDF claims a standard (PDF/A, PDF/UA, Factur-X).';
  if (model.problemsOnly) return 'No render with warnings or a failure. Everything printed whole.';
  return html`No renders yet. Every <code>POST /v1/render</code> and every job appears here.`;
}

/** The Renders page: the account's recent renders, newest first, with a filter, a search and paging. */
export function rendersPage(model: RendersPageModel): string {
  const empty = emptyText(model);
  const table =
    model.rows.length === 0
      ? html`<p class="empty">${empty}</p>`
      : html`<table class="renders"><thead><tr><th>Time</th><th>Render</th><th>Title</th><th>Key</th><th>Status</th><th>Claims</th><th class="num">Duration</th><th class="num">Pages</th><th class="num">Warnings</th></tr></thead>
<tbody>${model.rows.map((r) => row(r, model.now))}</tbody></table>`;
  const pager = html`<nav class="pager" aria-label="Pages">
${model.paged ? html`<a class="btn btn-secondary btn-small" href="${model.newestHref}">Newest</a>` : ''}
${model.olderHref ? html`<a class="btn btn-secondary btn-small" href="${model.olderHref}">Older</a>` : ''}
</nav>`;
  const body = html`<div class="page-head"><div><h1>Renders</h1>
<p class="lead">Every render of your account, sync and jobs, newest first: what each printed and what its document could not get. Kept ${model.retentionDays} days.</p></div></div>
${model.notFound !== undefined ? alert('warn', `No render ${model.notFound} in your account (renders are kept ${model.retentionDays} days).`) : ''}
<section class="card" aria-label="Recent renders">${tools(model)}${table}${pager}</section>`;
  return page({ title: 'Renders', viewer: model.viewer, current: 'renders', body });
}

function warningItem(entry: RenderRecord['warnings'][number], delivered: boolean): SafeHtml {
  const advice = adviceFor(entry, delivered);
  // In an assembly, the part whose render met it comes first.
  const partFact: Array<[string, string]> = entry.part ? [['Part', entry.part]] : [];
  const facts = [...partFact, ...advice.facts].map(
    ([label, value]) => html`<div><dt>${label}</dt><dd class="mono">${escapeUnshowable(value)}</dd></div>`,
  );
  // The heading and the facts already say what the report's message says; it is shown only when it adds a cause.
  return html`<li class="warning warning-${entry.kind}">
<h3>${escapeUnshowable(advice.title)}</h3>
${facts.length > 0 ? html`<dl class="warning-facts">${facts}</dl>` : ''}
<p class="warning-advice"><strong>What to do:</strong> ${escapeUnshowable(advice.advice)}${
    advice.link ? html` <a href="${advice.link.href}">${advice.link.text}</a>.` : ''
  }</p>
</li>`;
}

/**
 * The red block of a failed render. A strict render's error quotes its first warnings and points to the
 * API that lists them; on this page they are listed below, so the block says only why nothing was delivered.
 */
function errorBlock(r: RenderRecord): SafeHtml {
  if (!r.error) return html``;
  const message =
    r.error.code === 'RENDER_INCOMPLETE'
      ? `Strict handling was asked for and ${refusedFor(r)}, so no PDF was delivered. ${
          warningCount(r.warnings) === 1
            ? 'The warning below is why.'
            : `The ${warningsLabel(warningCount(r.warnings))} below are why.`
        }`
      : r.error.message;
  return html`<p class="job-error"><code>${r.error.code}</code> ${escapeUnshowable(message)}</p>`;
}

/** What a strict render was refused for: the profiles it could not claim when that is all, else what it could not get. */
function refusedFor(r: RenderRecord): string {
  const entries = r.warnings.filter((w) => w.kind !== 'truncated');
  const profiles = [...new Set(entries.flatMap((w) => (w.kind === 'conformance' ? [w.profile] : [])))];
  if (entries.length === 0 || entries.some((w) => w.kind !== 'conformance')) return 'the document could not get everything';
  return `${profiles.join(' and ')} could not be claimed`;
}

/**
 * The standards the PDF claims, as a fact of what it printed; "No standard claimed" only when the
 * document declared one and the PDF met none (its conformance warnings below say why); nothing for a
 * document that declared nothing.
 */
function claimsFact(r: RenderRecord): SafeHtml {
  if (r.claims.length > 0) return html`<div><dt>Standards</dt><dd>Claims ${r.claims.join(' · ')}</dd></div>`;
  if (r.bytes !== null && r.warnings.some((w) => w.kind === 'conformance'))
    return html`<div><dt>Standards</dt><dd>No standard claimed</dd></div>`;
  return html``;
}

/** Where a job's PDF is, as a link or a word. */
function pdfAction(job: RenderJobFacts, id: string): SafeHtml {
  if (job.pdf === 'available')
    return html`<div class="job-actions"><a class="btn btn-small" href="/jobs/${id}/pdf" download="${job.reference ?? id}.pdf">Download PDF</a></div>`;
  if (job.pdf === 'expired') return html`<p class="muted small pdf-state">The PDF has expired.</p>`;
  if (job.pdf === 'deleted') return html`<p class="muted small pdf-state">The PDF was deleted.</p>`;
  return html``;
}

/** One render's page: its facts, its error if it failed, and each warning in plain words with what to do. */
export function renderPage(model: RenderPageModel): string {
  const r = model.record;
  const size =
    r.bytes !== null
      ? `${formatBytes(r.bytes)}${r.pages !== null ? ` · ${formatCount(r.pages)} ${r.pages === 1 ? 'page' : 'pages'}` : ''}`
      : null;
  const count = warningCount(r.warnings);
  const warnings =
    r.warnings.length === 0
      ? html`<p class="empty">The document got everything it asked for.</p>`
      : html`<ol class="warnings">${r.warnings.map((w) => warningItem(w, r.status === 'succeeded'))}</ol>`;
  const from =
    r.source === 'job'
      ? html`from the render job${model.job?.reference ? html` <strong class="job-name">${escapeUnshowable(model.job.reference)}</strong>` : ''}`
      : html`from <code>${r.assembly ? 'POST /v1/assemble' : 'POST /v1/render'}</code>`;
  const jobId = r.jobId ?? (r.source === 'job' ? r.id : null);
  const body = html`<p class="crumbs"><a href="${r.source === 'job' ? '/jobs' : '/renders'}">← ${r.source === 'job' ? 'All jobs' : 'All renders'}</a></p>
<div class="page-head"><div><h1 class="render-title">Render <span class="mono">${r.id}</span></h1>
<p class="lead">Rendered ${time(r.createdAt, model.now)} (${formatDateTime(r.createdAt)}), ${from}.</p></div>${pageStatus(r.status, count)}</div>
<section class="card" aria-labelledby="facts-title"><h2 id="facts-title">What it printed</h2>
<dl class="job-facts">
${model.job ? html`<div><dt>Reference</dt><dd>${model.job.reference === null ? html`<span class="muted">none</span>` : escapeUnshowable(model.job.reference)}</dd></div>` : ''}
${r.title ? html`<div><dt>Title</dt><dd class="doc-title">${escapeUnshowable(r.title)}</dd></div>` : ''}
${jobId ? html`<div><dt>Job</dt><dd class="mono">${jobId}</dd></div>` : ''}
<div><dt>Key</dt><dd>${model.keyLabel ?? html`<span class="muted">deleted key</span>`}</dd></div>
<div><dt>Duration</dt><dd>${formatDuration(r.durationMs)}</dd></div>
${size ? html`<div><dt>PDF</dt><dd>${size}${r.status === 'failed' ? html` <span class="muted">(printed, not delivered)</span>` : ''}</dd></div>` : ''}
${claimsFact(r)}
</dl>
${errorBlock(r)}
${model.job && jobId ? pdfAction(model.job, jobId) : ''}
</section>
${assemblyPartsCard(r)}
<section class="card" aria-labelledby="warnings-title"><h2 id="warnings-title">${count === 0 ? 'No warnings' : warningsLabel(count)}</h2>
${warnings}</section>`;
  return page({ title: `Render ${r.id}`, viewer: model.viewer, current: 'renders', body });
}

/** A job's id with no render record: canceled before it printed, or not printed yet. */
export function jobNotPrintedPage(
  viewer: Viewer,
  job: { id: string; status: string; reference: string | null; createdAt: number },
  now: number,
): string {
  const canceled = job.status === 'canceled';
  const title = canceled ? 'Canceled before it printed' : 'Not printed yet';
  const message = canceled
    ? 'This job was canceled before it printed, so there is no render to show: nothing was printed, no PDF is kept and no webhook was sent.'
    : job.status === 'failed'
      ? 'This job failed before a render was recorded.'
      : 'This job has not printed yet. Its render appears here once it has.';
  const body = html`<p class="crumbs"><a href="/jobs">← All jobs</a></p>
<div class="page-head"><div><h1 class="render-title">${title}</h1>
<p class="lead">${message}</p></div></div>
<section class="card" aria-label="The job"><dl class="job-facts">
<div><dt>Reference</dt><dd>${job.reference === null ? html`<span class="muted">none</span>` : escapeUnshowable(job.reference)}</dd></div>
<div><dt>Job</dt><dd class="mono">${job.id}</dd></div>
<div><dt>Submitted</dt><dd>${time(job.createdAt, now)}</dd></div>
</dl></section>`;
  return page({ title, viewer, current: 'jobs', body });
}
