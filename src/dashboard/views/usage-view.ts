import { escapeUnshowable } from '../../accounts/user-text.js';
import type { ApiService } from '../../config.js';
import type { ApiKeyRecord } from '../../store/store.js';
import { html, type SafeHtml } from '../html.js';
import { OUTCOMES, type ServiceUsage } from '../usage-series.js';
import { formatCount, formatDate } from './format.js';
import { alert, page, type Viewer } from './layout.js';
import { legend, OUTCOME_LABELS, usageChart } from './usage-chart.js';

/** An account's effective limit for a service, the window it counts in, and where it comes from. */
export interface LimitInfo {
  perWindow: number;
  /** "minute" unless RATE_LIMIT_WINDOW_S says otherwise. */
  window: string;
  custom: boolean;
}

/** The window the usage page shows: 30 days by day, or the last 24 hours by hour. */
export type UsageRange = '30d' | '24h';

/** Everything the usage page shows. */
export interface UsagePageModel {
  viewer: Viewer;
  usage: Record<ApiService, ServiceUsage>;
  limits: Record<ApiService, LimitInfo>;
  range: UsageRange;
  /** The account's keys, revoked ones included, for the filter. */
  keys: ApiKeyRecord[];
  /** The one key shown, when filtered. */
  key?: ApiKeyRecord;
  now: number;
}

const TITLES: Record<ApiService, string> = { render: 'Render', metadata: 'Metadata' };
const SPANS: Record<UsageRange, { per: string; window: string }> = {
  '30d': { per: 'Requests per day', window: 'last 30 days' },
  '24h': { per: 'Requests per hour', window: 'last 24 hours' },
};

function totals(usage: ServiceUsage): SafeHtml {
  const items = [
    html`<div><dt>Requests</dt><dd>${formatCount(usage.total)}</dd></div>`,
    ...OUTCOMES.map((o) => html`<div><dt>${OUTCOME_LABELS[o]}</dt><dd>${formatCount(usage.totals[o])}</dd></div>`),
  ];
  return html`<dl class="totals">${items}</dl>`;
}

function keyLabel(k: ApiKeyRecord): string {
  return `${k.name === null ? 'unnamed' : escapeUnshowable(k.name)} (${k.displayPrefix}…)${k.revokedAt === null ? '' : ' · revoked'}`;
}

function serviceCard(usage: ServiceUsage, model: UsagePageModel): SafeHtml {
  const title = TITLES[usage.service];
  const span = SPANS[model.range];
  const whose = model.key ? html` · key <span class="prefix">${model.key.displayPrefix}…</span>` : '';
  const head = html`<div class="card-head"><div><h2 id="usage-${usage.service}">${title}</h2><p>${span.per}, ${span.window} (UTC)${whose}</p></div></div>`;
  const revoked = model.key && model.key.revokedAt !== null ? ' revoked' : '';
  if (usage.total === 0) {
    const what = model.key ? 'requests with this key' : `${usage.service} requests`;
    return html`<section class="card${revoked}" aria-labelledby="usage-${usage.service}">${head}
<p class="empty">No ${what} in the ${span.window}. <a href="/docs">Send your first one</a>.</p></section>`;
  }
  return html`<section class="card${revoked}" aria-labelledby="usage-${usage.service}">${head}
${totals(usage)}
${usageChart(usage)}
${legend()}
</section>`;
}

function limitsCard(limits: Record<ApiService, LimitInfo>): SafeHtml {
  const item = (service: ApiService) => {
    const l = limits[service];
    return html`<div class="limit"><dt>${TITLES[service]}</dt><dd><strong>${formatCount(l.perWindow)}</strong> requests / ${l.window}</dd>
<dd class="source">${l.custom ? 'set for your account' : 'default limit'}</dd></div>`;
  };
  return html`<section class="card limits-card" aria-labelledby="limits-title">
<div><h2 id="limits-title">Rate limits</h2>
<p class="muted small">Per account, across all of its keys.<br>Over the limit: 429 with Retry-After.</p></div>
<dl class="limits">${item('render')}${item('metadata')}</dl></section>`;
}

/**
 * The filter: which key (revoked ones too, so a rotation can be checked) and which window; a plain GET
 * form that applies on "Show" only, never on a change: arrow keys move through a select's options one
 * change at a time, and leaving the page at each would make the later ones unreachable (WCAG 3.2.2).
 */
function filterForm(model: UsagePageModel): SafeHtml {
  const option = (k: ApiKeyRecord) =>
    html`<option value="${k.id}"${k.id === model.key?.id ? html` selected` : ''}${k.revokedAt === null ? '' : html` class="revoked"`}>${keyLabel(k)}</option>`;
  const group = (service: ApiService) => {
    const keys = model.keys.filter((k) => k.service === service);
    return keys.length === 0 ? '' : html`<optgroup label="${TITLES[service]}">${keys.map(option)}</optgroup>`;
  };
  const range = (value: UsageRange, label: string) =>
    html`<option value="${value}"${model.range === value ? html` selected` : ''}>${label}</option>`;
  return html`<form class="inline filter" method="get" action="/usage" aria-label="Filter usage">
<div class="field"><label for="usage-key">Key</label>
<select id="usage-key" name="key"><option value="">All keys</option>${group('render')}${group('metadata')}</select></div>
<div class="field"><label for="usage-range">Period</label>
<select id="usage-range" name="range">${range('30d', 'Last 30 days, by day')}${range('24h', 'Last 24 hours, by hour')}</select></div>
<button class="btn btn-secondary" type="submit">Show</button>
</form>`;
}

/** The usage page: a chart per service (or the chosen key's), by day or by hour, and the account's limits. */
export function usagePage(model: UsagePageModel): string {
  const key = model.key;
  const cards = key
    ? [serviceCard(model.usage[key.service], model)]
    : [serviceCard(model.usage.render, model), serviceCard(model.usage.metadata, model)];
  const revokedNote =
    key && key.revokedAt !== null
      ? alert(
          'warn',
          html`Key <span class="prefix">${key.displayPrefix}…</span> was revoked on ${formatDate(key.revokedAt)}; its history stays here. Requests with it since then were refused and are not counted.`,
        )
      : '';
  const body = html`<div class="page-head"><div><h1>Usage</h1>
<p class="lead">Authenticated API requests by outcome. Counts may lag up to a few seconds.</p>
<p class="lead small">Render counts include <a href="/jobs">render jobs</a>: a job counts as one render request when it is submitted, an assembly job one for each of its parts.</p></div></div>
${limitsCard(model.limits)}
${filterForm(model)}
${revokedNote}
${cards}`;
  return page({ title: 'Usage', viewer: model.viewer, current: 'usage', body });
}
