import type { UsageOutcome } from '../../store/schema.js';
import { type SafeHtml, html } from '../html.js';
import { OUTCOMES, type ServiceUsage } from '../usage-series.js';
import { formatCount } from './format.js';

/** Human names of the outcomes. */
export const OUTCOME_LABELS: Record<UsageOutcome, string> = {
  ok: 'OK',
  client_error: 'Client error',
  rate_limited: 'Rate limited',
  server_error: 'Server error',
};

const W = 960;
const H = 220;
const LEFT = 44;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 26;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The smallest "nice" number (1, 2, 2.5, 5 × 10^n) at or above n, so gridlines fall on round values. */
export function niceCeil(n: number): number {
  if (n <= 4) return 4;
  const exp = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * exp >= n) return m * exp;
  return 10 * exp;
}

function dayLabel(day: string): string {
  return `${MONTHS[Number(day.slice(5, 7)) - 1]} ${Number(day.slice(8, 10))}`;
}

/** A stacked bar chart of requests per day by outcome, as inline SVG (no script, no inline style). */
export function usageChart(usage: ServiceUsage): SafeHtml {
  const max = niceCeil(Math.max(...usage.days.map((d) => d.total)));
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const slot = plotW / usage.days.length;
  const barW = Math.max(2, slot * 0.68);
  const y = (v: number) => TOP + plotH - (v / max) * plotH;

  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = max * f;
    return html`<line class="grid" x1="${LEFT}" x2="${W - RIGHT}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/>
<text class="axis" x="${LEFT - 8}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${formatCount(v)}</text>`;
  });

  const bars = usage.days.map((d, i) => {
    const x = LEFT + i * slot + (slot - barW) / 2;
    let base = 0;
    const parts = OUTCOMES.filter((o) => d.counts[o] > 0).map((o) => {
      const top = y(base + d.counts[o]);
      const height = y(base) - top;
      base += d.counts[o];
      return html`<rect class="o-${o}" x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(1, height).toFixed(1)}"/>`;
    });
    const detail = OUTCOMES.filter((o) => d.counts[o] > 0)
      .map((o) => `${OUTCOME_LABELS[o]}: ${formatCount(d.counts[o])}`)
      .join(', ');
    const label = `${dayLabel(d.day)}: ${formatCount(d.total)} request${d.total === 1 ? '' : 's'}${detail ? ` (${detail})` : ''}`;
    const tick =
      i % 5 === (usage.days.length - 1) % 5
        ? html`<text class="axis" x="${(x + barW / 2).toFixed(1)}" y="${H - 8}" text-anchor="middle">${dayLabel(d.day)}</text>`
        : '';
    return html`<g><title>${label}</title>${parts}</g>${tick}`;
  });

  const summary = `Requests per day over the last ${usage.days.length} days for the ${usage.service} service: ${formatCount(usage.total)} in total.`;
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary}" preserveAspectRatio="xMidYMid meet">
${grid}${bars}
</svg>`;
}

/** The colour key of the chart. */
export function legend(): SafeHtml {
  return html`<ul class="legend">${OUTCOMES.map((o) => html`<li><span class="swatch o-${o}"></span>${OUTCOME_LABELS[o]}</li>`)}</ul>`;
}
