/**
 * The core pages' own pieces: the new key's one-time reveal, code samples, the log-in and sign-up card,
 * the usage page's limits, chart and totals, and the getting-started steps of the docs page.
 */

/** The keys, log-in, usage and docs pages' own rules. */
export const CORE_PAGE_STYLES = `

.new-key { border: 1px solid #abefc6; background: var(--ok-soft); border-radius: 10px; padding: 18px 20px; margin-bottom: 20px; scroll-margin-top: 12px; }
/* a key's name can be 100 characters of one word: it wraps, never widens the page */
.new-key h3 { margin-top: 0; color: var(--ok); overflow-wrap: anywhere; }
.new-key .warning { color: var(--text); }
.new-key .warning strong { color: var(--warn); }
.key-row { display: flex; gap: 8px; margin: 10px 0 14px; }
.key-row input { flex: 1; min-width: 0; font-family: var(--mono); font-size: 15px; background: var(--surface); }

/* The Copy button sits in its own strip above the code, never over it: a long line scrolls beneath nothing at any width. */
.code { display: flex; flex-direction: column; margin: 8px 0 16px; background: var(--code-bg); border-radius: 8px; min-width: 0; }
.code pre { margin: 0; color: var(--code-text); padding: 10px 16px 14px; overflow-x: auto; font: 13px/1.6 var(--mono); }
.code .btn { order: -1; align-self: flex-end; margin: 8px 8px 0 0; }

.auth { max-width: 420px; margin: 48px auto; }
.auth .card { padding: 28px; }
.auth h1 { margin-bottom: 4px; }
.auth .lead { margin-bottom: 20px; overflow-wrap: anywhere; }
.auth input { width: 100%; min-width: 0; }
.auth .btn { width: 100%; padding: 10px; margin-top: 4px; }
.auth .switch { text-align: center; margin-top: 16px; font-size: 14px; color: var(--muted); }

.limits-card { display: flex; align-items: center; justify-content: space-between; gap: 24px; padding: 18px 24px; }
.limits-card h2 { margin-bottom: 2px; }
.limits-card p { margin: 0; }
.limits { display: flex; gap: 12px; margin: 0; }
.limit { min-width: 210px; }
.limit { border: 1px solid var(--border); border-radius: 8px; padding: 10px 14px; }
.limit dt { color: var(--muted); font-size: 13px; }
.limit dd { margin: 2px 0 0; font-size: 13px; color: var(--muted); white-space: nowrap; }
.limit dd strong { font-size: 20px; color: var(--text); margin-right: 2px; }
.limit dd.source { margin: 0; font-size: 12px; }

/* the y-axis labels beside the bars, both drawn in CSS pixels: the text is 12 px at any width */
.chart-frame { display: flex; }
.chart-y { flex: none; display: block; }
.chart { flex: 1; min-width: 0; display: block; }
.chart .grid { stroke: #e6e8ec; stroke-width: 1; }
.chart .axis, .chart-y .axis { fill: var(--muted); font: 12px system-ui, sans-serif; }
.chart .hit { fill: transparent; }
.chart g:hover .hit { fill: #f0f2f6; }
.card.revoked .chart-frame, .card.revoked .totals { opacity: 0.6; }
option.revoked { color: var(--muted); }
form.filter { margin-bottom: 24px; }
/* a select is as wide as its longest option: a 100-character key name would push Period and Show to a new line */
form.filter select { max-width: 24em; }
.o-ok { fill: #2f6fde; background: #2f6fde; }
.o-client_error { fill: #c27c0e; background: #c27c0e; }
.o-rate_limited { fill: #7a5af8; background: #7a5af8; }
.o-server_error { fill: #d92d20; background: #d92d20; }
.o-target_error { fill: #0e9384; background: #0e9384; }
.legend { display: flex; gap: 18px; flex-wrap: wrap; list-style: none; padding: 0; margin: 12px 0 0; font-size: 13px; color: var(--muted); }
.legend li { display: flex; align-items: center; gap: 6px; }
.swatch { width: 10px; height: 10px; border-radius: 2px; display: inline-block; }
.totals { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 0 0 12px; }
.totals div dt { font-size: 12px; color: var(--muted); }
.totals div dd { margin: 0; font-weight: 700; font-size: 18px; font-variant-numeric: tabular-nums; }
.steps { counter-reset: step; list-style: none; padding: 0; margin: 0; }
.steps > li { position: relative; padding-left: 40px; margin-bottom: 22px; }
.steps > li::before { counter-increment: step; content: counter(step); position: absolute; left: 0; top: 0; width: 26px; height: 26px; border-radius: 50%; background: var(--accent-soft); color: var(--accent); font-weight: 700; font-size: 13px; display: flex; align-items: center; justify-content: center; }`;
