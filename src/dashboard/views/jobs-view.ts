import type { RenderJobRow } from '../../store/store.js';
import type { WebhookDeliveryRecord } from '../../store/webhook-queries.js';
import { html, type SafeHtml } from '../html.js';
import { formatAgo, formatCount, formatDateTime } from './format.js';
import { alert, csrfField, page, type Viewer } from './layout.js';
import { secretCard } from './webhook-secret-view.js';

/** One job as the Jobs page shows it. */
export interface JobView {
  id: string;
  status: string;
  reference: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  pdfBytes: number | null;
  pdfPages: number | null;
  /** Where the job's PDF is: downloadable, expired, deleted through the API or the dashboard, or never made. */
  pdf: PdfState;
  error: { code: string; message: string } | null;
  webhookUrl: string | null;
  /** pending, delivered, exhausted, or null while the job runs or when it has no webhook. */
  webhookState: string | null;
  /** Delivery attempts, newest first. */
  deliveries: WebhookDeliveryRecord[];
  /** What the render report lists: things the document could not get (0 for a clean or unfinished job). */
  warningCount: number;
}

/** Everything the Jobs page shows. */
export interface JobsPageModel {
  viewer: Viewer;
  jobs: JobView[];
  now: number;
  /** The signing secret, only in the answer to "Reveal" and "Rotate". */
  secret?: string;
  /** After a rotation: until when the old secret still signs (null: there was none). */
  rotatedUntil?: number | null;
  /** After a rotation made during the previous one's overlap: the secret before that one was dropped. */
  droppedPrevious?: boolean;
  notice?: JobNotice;
  /** The cursor of the next (older) page, or null on the last one. */
  olderCursor: string | null;
  /** This is not the first page. */
  paged: boolean;
}

/** How many jobs one page lists. */
export const JOBS_SHOWN = 50;

/** The notices the page can show after an action, by name (`/jobs?notice=…`); nothing else is shown. */
export const JOB_NOTICES = [
  'redelivered',
  'redeliver-waits',
  'redeliver-too-soon',
  'canceled',
  'canceled-running',
  'cancel-too-late',
  'rotated-already',
] as const;

/** One of JOB_NOTICES. */
export type JobNotice = (typeof JOB_NOTICES)[number];

const NOTICE_TEXT: Record<JobNotice, [kind: 'ok' | 'warn', text: string]> = {
  redelivered: ['ok', 'The webhook is queued for delivery again, with a fresh retry schedule.'],
  'redeliver-waits': ['ok', 'An attempt for this webhook is in flight; it is sent again once that attempt ends.'],
  'redeliver-too-soon': ['warn', 'This webhook was redelivered less than a minute ago. Redeliver works once a minute per job.'],
  canceled: ['ok', 'The job was canceled before it started. It will not be rendered, and no webhook is sent for it.'],
  'canceled-running': [
    'ok',
    'The job was canceled while it was rendering. Its render was stopped, no PDF is kept, and no webhook is sent for it.',
  ],
  'cancel-too-late': ['warn', 'The job had already finished, so there was nothing to cancel.'],
  'rotated-already': [
    'warn',
    'The secret was not rotated again: that form was for a secret that has been replaced already (a reload, or another tab). Reveal the secret to see the current one.',
  ],
};

/** Where a job's PDF is. */
export type PdfState = 'available' | 'expired' | 'deleted' | 'none';

/**
 * The PDF's state from the row: a deleted PDF loses its key and its expiry (clearJobPdf), an expired one
 * only its key (or keeps it until the sweep runs), so the two read apart for as long as the row lives.
 */
export function pdfStateOf(row: Pick<RenderJobRow, 'status' | 'pdf_key' | 'pdf_expires_at'>, now: number): PdfState {
  if (row.status !== 'succeeded') return 'none';
  if (row.pdf_expires_at === null) return 'deleted';
  if (Number(row.pdf_expires_at) <= now) return 'expired';
  return row.pdf_key === null ? 'deleted' : 'available';
}

const STATUS_LABELS: Record<string, string> = {
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Succeeded',
  failed: 'Failed',
  canceled: 'Canceled',
};

/** "850 ms", "12.4 s", "3 min 5 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** 1234 → "1.2 KB", 3456789 → "3.5 MB". */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)} KB`;
  return `${(n / 1_000_000).toFixed(1)} MB`;
}

function time(ms: number, now: number): SafeHtml {
  return html`<time datetime="${new Date(ms).toISOString()}" title="${formatDateTime(ms)}">${formatAgo(ms, now)}</time>`;
}

/** One attempt; `ordinal` counts every attempt of the job (a redelivery starts a fresh retry schedule in the store). */
function deliveryRow(d: WebhookDeliveryRecord, ordinal: number, now: number): SafeHtml {
  const ok = d.statusCode !== null && d.statusCode >= 200 && d.statusCode < 300;
  const status = d.statusCode === null ? html`<span class="muted">no answer</span>` : html`${d.statusCode}`;
  return html`<li class="delivery ${ok ? 'delivery-ok' : 'delivery-failed'}" data-attempt="${ordinal}">
<span class="delivery-status">${status}</span><span>attempt ${ordinal}</span><span>${time(d.createdAt, now)}</span>
${d.error ? html`<span class="delivery-error">${d.error}</span>` : ''}</li>`;
}

function webhookPart(job: JobView, viewer: Viewer, now: number): SafeHtml {
  if (job.webhookUrl === null) return html``;
  // Only succeeded and failed jobs announce themselves; a canceled job's owner canceled it and knows.
  if (job.status === 'canceled')
    return html`<div class="webhook webhook-canceled small"><p class="muted">Webhook: not sent. No webhook is sent for a canceled job.</p>
<p class="webhook-url">${job.webhookUrl}</p></div>`;
  const final = job.status === 'succeeded' || job.status === 'failed';
  const state =
    job.webhookState === 'delivered'
      ? 'delivered'
      : job.webhookState === 'exhausted'
        ? 'gave up after retries'
        : job.webhookState === 'pending'
          ? 'pending'
          : 'after the job ends';
  const redeliver = final
    ? html`<form method="post" action="/jobs/${job.id}/redeliver" class="redeliver">${csrfField(viewer.csrfToken)}<button class="btn btn-secondary btn-small" type="submit" aria-label="Redeliver the webhook of ${job.reference ?? job.id}">Redeliver</button>
<span class="hint">Once a minute per job; an attempt in flight ends first.</span></form>`
    : '';
  const list =
    job.deliveries.length === 0
      ? html`<p class="muted small">No delivery attempt yet.</p>`
      : html`<ul class="deliveries">${job.deliveries.map((d, i) => deliveryRow(d, job.deliveries.length - i, now))}</ul>`;
  return html`<details class="webhook"><summary>Webhook: ${state} · ${job.deliveries.length} ${job.deliveries.length === 1 ? 'attempt' : 'attempts'}</summary>
<p class="webhook-url small">${job.webhookUrl}</p>${list}${redeliver}</details>`;
}

/** "3 warnings", "1 warning". */
export function warningsLabel(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'warning' : 'warnings'}`;
}

/**
 * The status badge. A succeeded job whose document could not get everything says so beside "Succeeded",
 * and leads to its report: a green badge alone reads as complete.
 */
function statusBadge(job: JobView): SafeHtml {
  const label = STATUS_LABELS[job.status] ?? job.status;
  if (job.status === 'succeeded' && job.warningCount > 0)
    return html`<a class="status status-warned" href="/renders/${job.id}" title="See what the document could not get">${label} · ${warningsLabel(job.warningCount)}</a>`;
  return html`<span class="status status-${job.status}">${label}</span>`;
}

function jobCard(job: JobView, viewer: Viewer, now: number): SafeHtml {
  const duration = job.startedAt !== null && job.finishedAt !== null ? formatDuration(job.finishedAt - job.startedAt) : null;
  const size =
    job.pdfBytes !== null
      ? `${formatBytes(job.pdfBytes)}${job.pdfPages !== null ? ` · ${formatCount(job.pdfPages)} ${job.pdfPages === 1 ? 'page' : 'pages'}` : ''}`
      : null;
  const download =
    job.pdf === 'available'
      ? html`<a class="btn btn-small" href="/jobs/${job.id}/pdf" download="${job.reference ?? job.id}.pdf" aria-label="Download PDF of ${job.reference ?? `job ${job.id}`}">Download PDF</a>`
      : job.pdf === 'expired'
        ? html`<span class="muted small pdf-state">PDF expired</span>`
        : job.pdf === 'deleted'
          ? html`<span class="muted small pdf-state">PDF deleted</span>`
          : '';
  const cancel =
    job.status === 'queued' || job.status === 'running'
      ? html`<a class="btn btn-danger-outline btn-small" href="/jobs/${job.id}/cancel" aria-label="Cancel the job ${job.reference ?? job.id}…">Cancel job…</a>`
      : '';
  const actions = download || cancel ? html`<div class="job-actions">${download}${cancel}</div>` : '';
  // A finished job's last attempt is in the render log: what its document could not get, in full; a
  // canceled one's page says whether it printed before the cancel.
  const finished = job.status === 'succeeded' || job.status === 'failed' || job.status === 'canceled';
  return html`<li class="job" data-job-id="${job.id}">
<div class="job-head"><span class="job-name">${job.reference ?? html`<span class="muted">no reference</span>`}</span>
${statusBadge(job)}</div>
<dl class="job-facts">
<div><dt>Job</dt><dd class="mono">${finished ? html`<a href="/renders/${job.id}" aria-label="Render report of ${job.id}">${job.id}</a>` : job.id}</dd></div>
<div><dt>Submitted</dt><dd>${time(job.createdAt, now)}</dd></div>
${duration ? html`<div><dt>Duration</dt><dd>${duration}</dd></div>` : ''}
${size ? html`<div><dt>Size</dt><dd>${size}</dd></div>` : ''}
</dl>
${job.error ? html`<p class="job-error"><code>${job.error.code}</code> ${job.error.message}</p>` : ''}
${actions}
${webhookPart(job, viewer, now)}
</li>`;
}

/** The confirmation step before a job is canceled: what happens to a queued and to a running one. */
export function cancelPage(viewer: Viewer, job: Pick<JobView, 'id' | 'status' | 'reference' | 'webhookUrl'>): string {
  const what =
    job.status === 'running'
      ? 'It is rendering now: the render is stopped and no PDF is kept.'
      : 'It has not started: it will not be rendered.';
  const hook = job.webhookUrl === null ? '' : ' No webhook is sent for a canceled job.';
  const body = html`<div class="auth"><div class="card">
<h1>Cancel this job?</h1>
<p class="lead"><strong class="job-name">${job.reference ?? job.id}</strong> <span class="mono">${job.id}</span></p>
<p>${what}${hook} This cannot be undone.</p>
<form method="post" action="/jobs/${job.id}/cancel">${csrfField(viewer.csrfToken)}
<button class="btn btn-danger" type="submit">Cancel job</button></form>
<p class="switch"><a href="/jobs">Keep it</a></p>
</div></div>`;
  return page({ title: 'Cancel job', viewer, current: 'jobs', body });
}

function pager(model: JobsPageModel): SafeHtml {
  if (!model.paged && model.olderCursor === null) return html``;
  const newest = model.paged ? html`<a class="btn btn-secondary btn-small" href="/jobs">Newest jobs</a>` : '';
  const older =
    model.olderCursor === null
      ? ''
      : html`<a class="btn btn-secondary btn-small" href="/jobs?cursor=${encodeURIComponent(model.olderCursor)}" rel="next">Older jobs</a>`;
  return html`<nav class="pager" aria-label="Job pages">${newest}${older}</nav>`;
}

/** The Jobs page: render jobs (newest first, paged) with their PDFs and webhook deliveries, and the signing secret. */
export function jobsPage(model: JobsPageModel): string {
  const list =
    model.jobs.length === 0
      ? html`<p class="empty">No render jobs yet. Submit one with <code>POST /v1/jobs</code> (see <a href="/docs#docs-jobs">Get started</a>).</p>`
      : html`<ul class="job-list">${model.jobs.map((j) => jobCard(j, model.viewer, model.now))}</ul>`;
  const notice = model.notice ? NOTICE_TEXT[model.notice] : undefined;
  const body = html`<div class="page-head"><div><h1>Render jobs</h1>
<p class="lead">${model.paged ? 'Older jobs' : 'Your most recent jobs'}, ${JOBS_SHOWN} to a page. Each job counts as one render request when it is submitted; an assembly job counts one for each of its parts.</p></div></div>
${notice ? alert(notice[0], notice[1]) : ''}
${secretCard(model)}
<section class="card" aria-label="Jobs">${list}${pager(model)}</section>`;
  return page({ title: 'Render jobs', viewer: model.viewer, current: 'jobs', body });
}
