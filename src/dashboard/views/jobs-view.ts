import type { WebhookDeliveryRecord } from '../../store/webhook-queries.js';
import { html, type SafeHtml } from '../html.js';
import { formatAgo, formatCount, formatDateTime } from './format.js';
import { alert, copyButton, csrfField, page, type Viewer } from './layout.js';

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
  /** The PDF can still be downloaded (succeeded and not expired or deleted). */
  pdfAvailable: boolean;
  error: { code: string; message: string } | null;
  webhookUrl: string | null;
  /** pending, delivered, exhausted, or null while the job runs or when it has no webhook. */
  webhookState: string | null;
  /** Delivery attempts, newest first. */
  deliveries: WebhookDeliveryRecord[];
}

/** Everything the Jobs page shows. */
export interface JobsPageModel {
  viewer: Viewer;
  jobs: JobView[];
  now: number;
  /** The signing secret, only in the answer to "Reveal". */
  secret?: string;
  notice?: string;
}

/** How many recent jobs the page lists. */
export const JOBS_SHOWN = 50;

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
    ? html`<form method="post" action="/jobs/${job.id}/redeliver" class="redeliver">${csrfField(viewer.csrfToken)}<button class="btn btn-secondary btn-small" type="submit" aria-label="Redeliver the webhook of ${job.reference ?? job.id}">Redeliver</button></form>`
    : '';
  const list =
    job.deliveries.length === 0
      ? html`<p class="muted small">No delivery attempt yet.</p>`
      : html`<ul class="deliveries">${job.deliveries.map((d, i) => deliveryRow(d, job.deliveries.length - i, now))}</ul>`;
  return html`<details class="webhook"><summary>Webhook: ${state} · ${job.deliveries.length} ${job.deliveries.length === 1 ? 'attempt' : 'attempts'}</summary>
<p class="webhook-url small">${job.webhookUrl}</p>${list}${redeliver}</details>`;
}

function jobCard(job: JobView, viewer: Viewer, now: number): SafeHtml {
  const duration = job.startedAt !== null && job.finishedAt !== null ? formatDuration(job.finishedAt - job.startedAt) : null;
  const size =
    job.pdfBytes !== null
      ? `${formatBytes(job.pdfBytes)}${job.pdfPages !== null ? ` · ${formatCount(job.pdfPages)} ${job.pdfPages === 1 ? 'page' : 'pages'}` : ''}`
      : null;
  const download = job.pdfAvailable
    ? html`<a class="btn btn-small" href="/jobs/${job.id}/pdf" download="${job.reference ?? job.id}.pdf">Download PDF</a>`
    : job.status === 'succeeded'
      ? html`<span class="muted small">PDF expired</span>`
      : '';
  return html`<li class="job" data-job-id="${job.id}">
<div class="job-head"><span class="job-name">${job.reference ?? html`<span class="muted">no reference</span>`}</span>
<span class="status status-${job.status}">${STATUS_LABELS[job.status] ?? job.status}</span></div>
<dl class="job-facts">
<div><dt>Job</dt><dd class="mono">${job.id}</dd></div>
<div><dt>Submitted</dt><dd>${time(job.createdAt, now)}</dd></div>
${duration ? html`<div><dt>Duration</dt><dd>${duration}</dd></div>` : ''}
${size ? html`<div><dt>Size</dt><dd>${size}</dd></div>` : ''}
</dl>
${job.error ? html`<p class="job-error"><code>${job.error.code}</code> ${job.error.message}</p>` : ''}
${download ? html`<div class="job-actions">${download}</div>` : ''}
${webhookPart(job, viewer, now)}
</li>`;
}

function secretCard(model: JobsPageModel): SafeHtml {
  const token = model.viewer.csrfToken;
  const shown = model.secret
    ? html`<div class="secret"><code id="webhook-secret">${model.secret}</code>${copyButton('webhook-secret')}</div>`
    : html`<form method="post" action="/jobs/webhook-secret/reveal">${csrfField(token)}<button class="btn btn-secondary btn-small" type="submit">Reveal secret</button></form>`;
  return html`<section class="card" aria-labelledby="secret-title"><div class="card-head"><div><h2 id="secret-title">Webhook signing secret</h2>
<p>Every webhook is signed with it (Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). Verify each delivery before trusting it.</p></div></div>
${shown}
<form method="post" action="/jobs/webhook-secret/rotate" class="rotate">${csrfField(token)}<button class="btn btn-danger-outline btn-small" type="submit">Rotate secret</button>
<span class="hint">Deliveries are signed with the new secret at once; the old one stops verifying.</span></form></section>`;
}

/** The Jobs page: recent render jobs with their PDFs and webhook deliveries, and the signing secret. */
export function jobsPage(model: JobsPageModel): string {
  const list =
    model.jobs.length === 0
      ? html`<p class="empty">No render jobs yet. Submit one with <code>POST /v1/jobs</code> (see <a href="/docs">Docs</a>).</p>`
      : html`<ul class="job-list">${model.jobs.map((j) => jobCard(j, model.viewer, model.now))}</ul>`;
  const body = html`<div class="page-head"><div><h1>Render jobs</h1>
<p class="lead">Your ${JOBS_SHOWN} most recent jobs. Each job counts as one render request when it is submitted.</p></div></div>
${model.notice ? alert('ok', model.notice) : ''}
${secretCard(model)}
<section class="card" aria-label="Recent jobs">${list}</section>`;
  return page({ title: 'Render jobs', viewer: model.viewer, current: 'jobs', body });
}
