/**
 * The render pages: render jobs, each a card that wraps at any width with its webhook deliveries and
 * signing secret, and the render log, a table of renders (cards on narrow screens) and one render's warnings.
 */

/** The jobs page and the render log's rules. */
export const RENDER_STYLES = `
/* render jobs: each job a small card that wraps at any width */
.job-list, .deliveries { list-style: none; padding: 0; margin: 0; }
.job { padding: 14px 0; border-top: 1px solid var(--border); min-width: 0; }
.job:first-child { border-top: none; padding-top: 0; }
.job-head { display: flex; justify-content: space-between; align-items: baseline; gap: 8px 16px; flex-wrap: wrap; }
.job-name { font-weight: 600; overflow-wrap: anywhere; min-width: 0; }
.status { font: 600 12px/1 var(--mono); padding: 5px 7px; border-radius: 6px; background: var(--bg); color: var(--muted); }
.status-succeeded { background: var(--ok-soft); color: var(--ok); }
.status-failed { background: var(--danger-soft); color: var(--danger); }
.status-running { background: var(--accent-soft); color: var(--accent); }
/* succeeded, but the document could not get everything: amber, and a link to its report */
a.status-warned { background: var(--warn-soft); color: var(--warn); text-decoration: none; border: 1px solid #fedf89; }
a.status-warned:hover { text-decoration: underline; }
.webhook-canceled p { margin: 0 0 4px; }
.job-facts { display: flex; flex-wrap: wrap; gap: 4px 24px; margin: 8px 0; font-size: 14px; }
.job-facts dt { font-size: 12px; color: var(--muted); }
.job-facts dd { margin: 0; overflow-wrap: anywhere; min-width: 0; }
.job-facts div { min-width: 0; }
.mono { font-family: var(--mono); font-size: 13px; }
.job-error { font-size: 14px; color: var(--danger); overflow-wrap: anywhere; }
.job-actions { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 12px; margin: 8px 0; }
.job-actions form { margin: 0; }
.pager { display: flex; flex-wrap: wrap; gap: 8px; justify-content: flex-end; margin-top: 16px; }
.webhook summary { cursor: pointer; font-size: 14px; color: var(--muted); }
.webhook-url { overflow-wrap: anywhere; color: var(--muted); margin: 6px 0; }
.delivery { display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 13px; padding: 4px 0; }
.delivery-status { font-family: var(--mono); font-weight: 600; min-width: 3em; }
.delivery-ok .delivery-status { color: var(--ok); }
.delivery-failed .delivery-status { color: var(--danger); }
.delivery-error { color: var(--muted); flex-basis: 100%; overflow-wrap: anywhere; }
.redeliver { margin: 8px 0 0; }
.secret { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin-bottom: 12px; }
.secret code { overflow-wrap: anywhere; min-width: 0; }
/* the render log: the table of renders (cards on narrow screens, with the keys' rules above) and one render's warnings */
.render-tools { display: flex; flex-wrap: wrap; align-items: flex-end; justify-content: space-between; gap: 12px 24px; margin-bottom: 16px; }
.render-tools form { margin: 0; }
label.check { display: inline-flex; align-items: center; gap: 8px; font-weight: 500; }
label.check input { width: 18px; height: 18px; margin: 0; }
/* break-word, not anywhere: anywhere shrinks the columns' minimum width, so ids split with room to spare */
table.renders td.render-id { overflow-wrap: break-word; }
table.renders td.render-id .small { white-space: nowrap; }
table.renders td.key-name { overflow-wrap: break-word; }
/* a document's title can be 300 characters of one word: it wraps within its column, never widens the page */
table.renders td.doc-title { min-width: 8em; max-width: 14em; overflow-wrap: anywhere; }
table.renders td.doc-title .cell-text { display: flex; flex-direction: column; gap: 2px; }
/* two lines of a long title in the list (the whole of it on the render's page and in its tooltip) */
table.renders td.doc-title .title-text { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 2; line-clamp: 2; overflow: hidden; }
table.renders td.doc-title .job-ref { color: var(--muted); }
table.renders td.claims .claim { white-space: nowrap; }
/* nine columns in a laptop's card: narrower gaps and a slightly smaller type keep the table inside it */
@media (min-width: 901px) {
  /* wide enough for its placeholder (ids, or part of a title) on a laptop */
  .render-search input[type='search'] { width: 19em; }
  table.renders { font-size: 13px; }
  table.renders td.render-id a, table.renders td code { font-size: 12px; }
  table.renders th, table.renders td { padding-left: 4px; padding-right: 4px; }
}
table.renders td:first-child, table.renders th { white-space: nowrap; }
/* on a card an id is a flex item: it may shrink and break anywhere rather than widen the card */
@media (max-width: 900px) {
  table.renders td.render-id a { min-width: 0; overflow-wrap: anywhere; }
  table.renders td.doc-title { max-width: none; min-width: 0; }
  table.renders td.doc-title .cell-text { min-width: 0; align-items: flex-end; }
}
.warn-count { color: var(--warn); }
.crumbs { margin: 0 0 12px; font-size: 14px; }
.render-title { overflow-wrap: anywhere; }
.render-title .mono { font-size: 0.8em; }
.warnings { list-style: none; padding: 0; margin: 0; counter-reset: warning; }
.warning { padding: 16px 0; border-top: 1px solid var(--border); min-width: 0; }
.warning:first-child { border-top: none; padding-top: 0; }
.warning h3 { margin: 0 0 4px; }
.warning-message { color: var(--muted); overflow-wrap: anywhere; }
.warning-facts { display: grid; grid-template-columns: minmax(0, max-content) minmax(0, 1fr); gap: 4px 16px; margin: 0 0 10px; font-size: 14px; }
.warning-facts div { display: contents; }
.warning-facts dt { color: var(--muted); font-size: 13px; }
.warning-facts dd { margin: 0; overflow-wrap: anywhere; min-width: 0; }
.warning-advice { background: var(--warn-soft); border: 1px solid #fedf89; border-radius: 8px; padding: 10px 12px; margin: 0; font-size: 14px; }
@media (max-width: 900px) {
  .warning-facts { grid-template-columns: minmax(0, 1fr); gap: 0; }
  .warning-facts dd { margin-bottom: 6px; }
}
.rotate { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 12px; margin-top: 12px; }`;
