import type { ApiService } from '../../config.js';
import { type SafeHtml, html } from '../html.js';
import { OUTCOMES, type ServiceUsage } from '../usage-series.js';
import { formatCount } from './format.js';
import { type Viewer, page } from './layout.js';
import { OUTCOME_LABELS, legend, usageChart } from './usage-chart.js';

/** An account's effective limit for a service and where it comes from. */
export interface LimitInfo {
  perMinute: number;
  custom: boolean;
}

/** Everything the usage page shows. */
export interface UsagePageModel {
  viewer: Viewer;
  usage: Record<ApiService, ServiceUsage>;
  limits: Record<ApiService, LimitInfo>;
  days: number;
}

const TITLES: Record<ApiService, string> = { render: 'Render', metadata: 'Metadata' };

function totals(usage: ServiceUsage): SafeHtml {
  const items = [
    html`<div><dt>Requests</dt><dd>${formatCount(usage.total)}</dd></div>`,
    ...OUTCOMES.map((o) => html`<div><dt>${OUTCOME_LABELS[o]}</dt><dd>${formatCount(usage.totals[o])}</dd></div>`),
  ];
  return html`<dl class="totals">${items}</dl>`;
}

function serviceCard(usage: ServiceUsage, days: number): SafeHtml {
  const title = TITLES[usage.service];
  const head = html`<div class="card-head"><div><h2 id="usage-${usage.service}">${title}</h2><p>Requests per day, last ${days} days (UTC)</p></div></div>`;
  if (usage.total === 0) {
    return html`<section class="card" aria-labelledby="usage-${usage.service}">${head}
<p class="empty">No ${usage.service} requests in the last ${days} days. <a href="/docs">Send your first one</a>.</p></section>`;
  }
  return html`<section class="card" aria-labelledby="usage-${usage.service}">${head}
${totals(usage)}
${usageChart(usage)}
${legend()}
</section>`;
}

function limitsCard(limits: Record<ApiService, LimitInfo>): SafeHtml {
  const item = (service: ApiService) => {
    const l = limits[service];
    return html`<div class="limit"><dt>${TITLES[service]}</dt><dd><strong>${formatCount(l.perMinute)}</strong> requests / minute</dd>
<dd class="source">${l.custom ? 'set for your account' : 'default limit'}</dd></div>`;
  };
  return html`<section class="card limits-card" aria-labelledby="limits-title">
<div><h2 id="limits-title">Rate limits</h2>
<p class="muted small">Per account, across all of its keys.<br>Over the limit: 429 with Retry-After.</p></div>
<dl class="limits">${item('render')}${item('metadata')}</dl></section>`;
}

/** The usage page: a chart per service and the account's current limits. */
export function usagePage(model: UsagePageModel): string {
  const body = html`<div class="page-head"><div><h1>Usage</h1>
<p class="lead">Authenticated API requests by day and outcome. Counts may lag up to a few seconds.</p></div></div>
${limitsCard(model.limits)}
${serviceCard(model.usage.render, model.days)}
${serviceCard(model.usage.metadata, model.days)}`;
  return page({ title: 'Usage', viewer: model.viewer, current: 'usage', body });
}
