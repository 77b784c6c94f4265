import type { UsageOutcome } from '../../store/schema.js';
import { html, type SafeHtml } from '../html.js';
import { OUTCOMES, type ServiceUsage } from '../usage-series.js';
import { formatCount } from './format.js';

/** Human names of the outcomes. */
export const OUTCOME_LABELS: Record<UsageOutcome, string> = {
  ok: 'OK',
  client_error: 'Client error',
  rate_limited: 'Rate limited',
  server_error: 'Server error',
  target_error: 'Target error',
};

/** What each outcome means, for the legend's tooltips. */
export const OUTCOME_HINTS: Record<UsageOutcome, string> = {
  ok: '2xx and 3xx answers',
  client_error: '4xx answers: the request was refused as sent',
  rate_limited: '429: over the per-minute limit',
  server_error: '5xx: something failed on our side',
  target_error: 'metadata 502/504: the page you asked for failed or timed out',
};

// The chart has no viewBox: it takes its card's width, its height and text stay in CSS pixels (a scaled
// drawing's 11 px labels were 8 px on a phone). Across it, positions are percentages of that width.
const H = 220;
const TOP = 10;
const BOTTOM = 26;
/** The axis text's size (CSS px, `.chart .axis`), for the room the y-axis labels need. */
const FONT_PX = 12;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

// Integer steps only (1, 2, 2.5 × 10^n that are whole numbers): request counts have no fractions.
function* integerSteps(): Generator<number> {
  for (let exp = 1; ; exp *= 10) for (const m of [1, 2, 2.5, 5]) if (Number.isInteger(m * exp)) yield m * exp;
}

/** The y-axis gridline values for a highest bar of `max`: whole numbers from 0, at most 6 lines, 0–4 at least. */
export function integerTicks(max: number): number[] {
  let best: { step: number; top: number } | undefined;
  for (const step of integerSteps()) {
    const intervals = Math.max(1, Math.ceil(Math.max(max, 4) / step));
    if (intervals <= 5 && (!best || step * intervals < best.top)) best = { step, top: step * intervals };
    if (step >= Math.max(max, 4)) break;
  }
  // A step at least max(max, 4) gives one interval, so the loop always finds one before it stops.
  if (!best) throw new Error(`integerTicks: no step for a highest bar of ${max}`);
  const { step, top } = best;
  const ticks: number[] = [];
  for (let v = 0; v <= top; v += step) ticks.push(v);
  return ticks;
}

function dayLabel(day: string): string {
  return `${MONTHS[Number(day.slice(5, 7)) - 1]} ${Number(day.slice(8, 10))}`;
}

function hourLabel(hour: string): string {
  return `${hour.slice(11, 13)}:00`;
}

function bucketTitle(unit: 'day' | 'hour', bucket: string): string {
  if (unit === 'day') return dayLabel(bucket);
  const next = (Number(bucket.slice(11, 13)) + 1) % 24;
  return `${dayLabel(bucket)}, ${hourLabel(bucket)}–${String(next).padStart(2, '0')}:00 UTC`;
}

const pct = (v: number) => `${v.toFixed(2)}%`;

/**
 * A stacked bar chart of requests per day (or hour) by outcome, as inline SVG (no script, no inline style):
 * the y-axis labels in a narrow SVG of their own, the bars and the x-axis in one that takes the rest of the
 * width, both the same height so their gridlines meet.
 */
export function usageChart(usage: ServiceUsage): SafeHtml {
  const buckets = usage.buckets;
  const ticks = integerTicks(Math.max(...buckets.map((d) => d.total)));
  const max = ticks[ticks.length - 1];
  // integerTicks starts at 0, so there is always a last tick.
  if (max === undefined) throw new Error('usageChart: no y-axis ticks');
  const plotH = H - TOP - BOTTOM;
  const slot = 100 / buckets.length;
  const y = (v: number) => TOP + plotH - (v / max) * plotH;
  // Room for the longest y label (digits and commas are about 0.6 em wide).
  const axisW = Math.max(28, Math.ceil(Math.max(...ticks.map((v) => formatCount(v).length)) * FONT_PX * 0.6) + 10);
  // A label every 5 days or every 3 hours, the newest bucket always labelled; a phone shows every other one.
  const every = usage.unit === 'day' ? 5 : 3;
  const last = buckets.length - 1;

  const yLabels = ticks.map(
    (v) =>
      html`<text class="axis axis-y" x="${axisW - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${formatCount(v)}</text>`,
  );
  const grid = ticks.map((v) => html`<line class="grid" x1="0" x2="100%" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/>`);

  const bars = buckets.map((d, i) => {
    let base = 0;
    const parts = OUTCOMES.filter((o) => d.counts[o] > 0).map((o) => {
      const top = y(base + d.counts[o]);
      const height = y(base) - top;
      base += d.counts[o];
      return html`<rect class="o-${o}" x="${pct((i + 0.16) * slot)}" y="${top.toFixed(1)}" width="${pct(slot * 0.68)}" height="${Math.max(1, height).toFixed(1)}"/>`;
    });
    const detail = OUTCOMES.filter((o) => d.counts[o] > 0)
      .map((o) => `${OUTCOME_LABELS[o]}: ${formatCount(d.counts[o])}`)
      .join(', ');
    const label = `${bucketTitle(usage.unit, d.bucket)}: ${formatCount(d.total)} request${d.total === 1 ? '' : 's'}${detail ? ` (${detail})` : ''}`;
    const text = usage.unit === 'day' ? dayLabel(d.bucket) : hourLabel(d.bucket);
    const steps = (last - i) / every;
    // The newest label ends at the chart's right edge: centred under its bar, half of it would be cut off.
    const tick = !Number.isInteger(steps)
      ? ''
      : i === last
        ? html`<text class="axis axis-x" x="100%" y="${H - 8}" text-anchor="end">${text}</text>`
        : html`<text class="axis axis-x${steps % 2 === 1 ? ' tick-minor' : ''}" x="${pct((i + 0.5) * slot)}" y="${H - 8}" text-anchor="middle">${text}</text>`;
    // The whole column (not only the drawn bar) carries the title, so hovering a short bar works too.
    const hit = html`<rect class="hit" x="${pct(i * slot)}" y="${TOP}" width="${pct(slot)}" height="${plotH}"/>`;
    return html`<g><title>${label}</title>${hit}${parts}</g>${tick}`;
  });

  const span =
    usage.unit === 'day' ? `per day over the last ${buckets.length} days` : `per hour over the last ${buckets.length} hours`;
  const summary = `Requests ${span} for the ${usage.service} service: ${formatCount(usage.total)} in total.`;
  return html`<div class="chart-frame"><svg class="chart-y" width="${axisW}" height="${H}" aria-hidden="true">${yLabels}</svg>
<svg class="chart" width="100%" height="${H}" role="img" aria-label="${summary}">
${grid}${bars}
</svg></div>`;
}

/** The colour key of the chart. */
export function legend(): SafeHtml {
  return html`<ul class="legend">${OUTCOMES.map((o) => html`<li title="${OUTCOME_HINTS[o]}"><span class="swatch o-${o}"></span>${OUTCOME_LABELS[o]}</li>`)}</ul>`;
}
