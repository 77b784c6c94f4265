/** The dashboard's whole stylesheet, served from the app (no CDN). Colours meet WCAG AA contrast. */
export const STYLES = `
:root {
  --bg: #f5f6f8; --surface: #fff; --text: #17191e; --muted: #545b67; --border: #dcdfe5;
  --accent: #2347c9; --accent-hover: #1a3aa8; --accent-soft: #eef2fd;
  --danger: #b42318; --danger-soft: #fef3f2; --ok: #067647; --ok-soft: #ecfdf3;
  --warn: #8a4b00; --warn-soft: #fffaeb; --code-bg: #10141c; --code-text: #e4e7ec;
  --radius: 10px; --mono: ui-monospace, SFMono-Regular, "DejaVu Sans Mono", Menlo, Consolas, monospace;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--text); line-height: 1.5; min-height: 100vh; display: flex; flex-direction: column;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "Liberation Sans", Arial, sans-serif;
}
a { color: var(--accent); }
a:hover { color: var(--accent-hover); }
:focus-visible { outline: 3px solid #6d8ef5; outline-offset: 2px; border-radius: 4px; }
h1 { font-size: 26px; line-height: 1.25; margin: 0 0 6px; letter-spacing: -0.01em; }
h2 { font-size: 18px; margin: 0; }
h3 { font-size: 15px; margin: 20px 0 8px; }
p { margin: 0 0 12px; }
code { font-family: var(--mono); font-size: 0.92em; background: #eceef2; padding: 1px 5px; border-radius: 4px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 12px; top: 12px; background: var(--surface); padding: 8px 12px; z-index: 10; }

.topbar { background: var(--surface); border-bottom: 1px solid var(--border); }
.topbar-inner { max-width: 1080px; margin: 0 auto; padding: 0 24px; min-height: 60px; display: flex; align-items: center; gap: 28px; }
.brand { display: flex; align-items: center; gap: 9px; font-weight: 700; font-size: 17px; color: var(--text); text-decoration: none; }
.brand svg { display: block; }
.nav { display: flex; flex-wrap: wrap; gap: 4px; flex: 1; min-width: 0; }
.nav a { color: var(--muted); text-decoration: none; padding: 7px 12px; border-radius: 7px; font-weight: 500; white-space: nowrap; }
.nav a:hover { background: var(--bg); color: var(--text); }
.nav a[aria-current="page"] { color: var(--accent); background: var(--accent-soft); }
.who { display: flex; align-items: center; gap: 12px; color: var(--muted); font-size: 14px; min-width: 0; }
.who span { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.who form { margin: 0; }

main { max-width: 1080px; width: 100%; margin: 0 auto; padding: 32px 24px 64px; flex: 1; }
.page-head { display: flex; align-items: flex-end; justify-content: space-between; gap: 16px; margin-bottom: 24px; }
.lead { color: var(--muted); margin: 0; }
.card { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); padding: 24px; margin-bottom: 24px; box-shadow: 0 1px 2px rgba(16, 24, 40, 0.04); }
.card-head { display: flex; align-items: center; justify-content: space-between; gap: 8px 16px; margin-bottom: 16px; flex-wrap: wrap; }
.card > h2 { margin-bottom: 10px; }
.card-head p { margin: 2px 0 0; color: var(--muted); font-size: 14px; }
.service-title { display: flex; align-items: center; gap: 10px; }
.badge { display: inline-block; font: 600 12px/1 var(--mono); padding: 5px 7px; border-radius: 6px; background: var(--accent-soft); color: var(--accent); }
.muted { color: var(--muted); }
.small { font-size: 13px; }

.btn {
  display: inline-flex; align-items: center; justify-content: center; gap: 6px; font: inherit; font-weight: 600; font-size: 14px;
  padding: 8px 14px; border-radius: 7px; border: 1px solid var(--accent); background: var(--accent); color: #fff;
  cursor: pointer; text-decoration: none; white-space: nowrap; line-height: 22px;
}
.btn:hover { background: var(--accent-hover); color: #fff; }
.btn-secondary { background: var(--surface); color: var(--text); border-color: #868e9b; }
.btn-secondary:hover { background: var(--bg); color: var(--text); }
.btn-danger { background: var(--danger); border-color: var(--danger); }
.btn-danger:hover { background: #912018; }
.btn-link { background: none; border: none; color: var(--muted); padding: 6px 4px; font-weight: 500; }
.btn-link:hover { background: none; color: var(--text); text-decoration: underline; }
.btn-small { padding: 4px 10px; font-size: 13px; line-height: 18px; }
.btn-danger-outline { background: var(--surface); color: var(--danger); border-color: #f1b5af; }
.btn-danger-outline:hover { background: var(--danger-soft); color: #912018; }

form.stack { max-width: 440px; }
form.stack input { width: 100%; min-width: 0; }
form.inline { display: flex; align-items: flex-end; gap: 10px; flex-wrap: wrap; }
.field { display: flex; flex-direction: column; gap: 5px; margin-bottom: 14px; }
form.inline .field { margin-bottom: 0; }
label { font-weight: 600; font-size: 14px; }
.hint { font-size: 13px; color: var(--muted); }
input[type="text"], input[type="email"], input[type="password"], select {
  font: inherit; padding: 8px 11px; border: 1px solid #868e9b; border-radius: 7px; background: var(--surface); color: var(--text); min-width: 260px;
}
input:focus-visible { border-color: var(--accent); outline-offset: 0; }

table { width: 100%; border-collapse: collapse; font-size: 14px; }
table.keys { table-layout: fixed; }
table.keys td.name { overflow-wrap: anywhere; }
table.keys td.date { white-space: nowrap; }
/* The name takes what is left; the key prefix, dates and counts never wrap, so their columns are fixed. */
table.keys th:nth-child(2) { width: 150px; } table.keys th:nth-child(3), table.keys th:nth-child(4) { width: 125px; }
table.keys th:nth-child(5) { width: 135px; } table.keys th:nth-child(6) { width: 100px; }
table.keys th { white-space: nowrap; }
table.revoked-keys td, table.revoked-keys td a { color: var(--muted); }
th { text-align: left; font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); font-weight: 600; padding: 8px 12px; border-bottom: 1px solid var(--border); }
td { padding: 12px; border-bottom: 1px solid #eceef2; vertical-align: middle; }
tr:last-child td { border-bottom: none; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.actions { text-align: right; }
.prefix { font-family: var(--mono); font-size: 13px; white-space: nowrap; }
.empty { text-align: center; color: var(--muted); padding: 28px 12px; border: 1px dashed var(--border); border-radius: 8px; }
details.revoked { margin-top: 14px; font-size: 14px; }
details.revoked summary { cursor: pointer; color: var(--muted); }

.alert { border: 1px solid; border-radius: 8px; padding: 12px 14px; margin-bottom: 18px; font-size: 14px; }
.alert-ok { background: var(--ok-soft); border-color: #abefc6; color: var(--ok); }
.alert-error { background: var(--danger-soft); border-color: #fecdca; color: var(--danger); }
.alert-warn { background: var(--warn-soft); border-color: #fedf89; color: var(--warn); }

.new-key { border: 1px solid #abefc6; background: var(--ok-soft); border-radius: 10px; padding: 18px 20px; margin-bottom: 20px; scroll-margin-top: 12px; }
.new-key h3 { margin-top: 0; color: var(--ok); }
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
.auth .lead { margin-bottom: 20px; }
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

.chart { width: 100%; height: auto; display: block; }
.chart .grid { stroke: #e6e8ec; stroke-width: 1; }
.chart .axis { fill: var(--muted); font: 11px system-ui, sans-serif; }
.chart .hit { fill: transparent; }
.chart g:hover .hit { fill: #f0f2f6; }
.card.revoked .chart, .card.revoked .totals { opacity: 0.6; }
option.revoked { color: var(--muted); }
form.filter { margin-bottom: 24px; }
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
.steps > li::before { counter-increment: step; content: counter(step); position: absolute; left: 0; top: 0; width: 26px; height: 26px; border-radius: 50%; background: var(--accent-soft); color: var(--accent); font-weight: 700; font-size: 13px; display: flex; align-items: center; justify-content: center; }
.footer { max-width: 1080px; width: 100%; margin: 0 auto; padding: 0 24px 32px; color: var(--muted); font-size: 13px; }
@media (max-width: 760px) {
  .limits-card, .limits { flex-direction: column; align-items: stretch; }
  .limit { min-width: 0; }
  .topbar-inner { gap: 4px 12px; flex-wrap: wrap; padding: 8px 16px; }
  .who { margin-left: auto; flex: 1 1 0; justify-content: flex-end; }
  /* The signed-in email stays in view (cut with an ellipsis only when it is very long). */
  .who span { font-size: 13px; }
  /* The navigation takes one row of its own under the brand and "Log out", all six links on it. */
  .nav { order: 3; flex-basis: 100%; margin: 0 -8px; gap: 0; justify-content: flex-start; }
  .nav a { padding: 7px 7px; font-size: 14px; }
  input[type="text"], input[type="email"], input[type="password"], select { min-width: 0; max-width: 100%; }
  main { padding: 20px 12px 48px; }
  .card { padding: 16px; }
  .page-head { flex-wrap: wrap; }
  .footer { padding: 0 12px 24px; }
}
/* A phone: the brand keeps its logo, its name makes room for the signed-in email. */
@media (max-width: 480px) {
  .brand span { position: absolute; left: -9999px; }
  /* Seven sections in one row on a 375 px phone (they wrap on anything narrower). */
  .nav a { padding: 7px 4px; font-size: 13px; }
}
/* Phones and tablets: each key (and each render) is a small card of labelled lines instead of a table row. */
@media (max-width: 900px) {
  table.keys, table.keys tbody, table.keys tr, table.keys td,
  table.renders, table.renders tbody, table.renders tr, table.renders td { display: block; width: auto; }
  table.keys thead, table.renders thead { position: absolute; left: -9999px; }
  table.keys tr, table.renders tr { border: 1px solid var(--border); border-radius: 8px; padding: 8px 12px; margin-bottom: 10px; }
  table.keys td, table.renders td { display: flex; justify-content: space-between; align-items: baseline; gap: 12px; padding: 4px 0; border: none; text-align: right; }
  table.keys td[data-label]::before, table.renders td[data-label]::before { content: attr(data-label); color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; text-align: left; flex: none; }
  table.keys td.actions { justify-content: flex-end; padding-top: 8px; }
  table.keys td.actions:empty { display: none; }
}
@media (max-width: 640px) {
  form.inline { align-items: stretch; }
  form.inline .field { flex: 1 1 100%; min-width: 0; }
  form.inline select { width: 100%; }
  /* The chart scales down about threefold here: larger axis text stays readable (it may use the card's padding). */
  .chart { overflow: visible; }
  .chart .axis { font-size: 24px; }
}
/* account recovery, activity, sessions */
.forgot { margin: 14px 0 0; font-size: 14px; }
.forgot code, pre.command { overflow-wrap: anywhere; white-space: pre-wrap; }
pre.command { font-family: var(--mono); font-size: 13px; background: #eceef2; padding: 10px 12px; border-radius: 6px; }
.session-list, .activity-list { list-style: none; padding: 0; margin: 0; }
.session-row, .activity-row { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 8px 16px; padding: 12px 0; border-top: 1px solid var(--border); }
.activity-row { display: block; }
.session-row:first-child, .activity-row:first-child { border-top: none; }
.session-what { flex: 1 1 240px; min-width: 0; overflow-wrap: anywhere; }
.session-what .muted, .activity-row .muted { display: block; font-size: 13px; margin-top: 2px; }
.activity-detail { color: var(--muted); overflow-wrap: anywhere; }
.danger-zone { border-color: #f1b5af; }
.pager { display: flex; gap: 12px; margin-top: 16px; }
@media (max-width: 760px) {
  .card-head { flex-wrap: wrap; }
}
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
.rotate { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 12px; margin-top: 12px; }
/* signing certificates: the upload form (one fieldset, disabled without a server key) and the list, with the keys' table rules */
form.upload fieldset { border: none; margin: 0; padding: 0; min-width: 0; display: flex; flex-wrap: wrap; align-items: flex-end; gap: 10px 14px; }
form.upload .field { margin-bottom: 0; min-width: 0; }
form.upload input[type="file"] { max-width: 100%; font: inherit; font-size: 14px; }
form.upload fieldset[disabled] { opacity: 0.6; }
table.certs th:nth-child(2), table.certs th:nth-child(3) { width: auto; }
table.certs th:nth-child(4) { width: 140px; } table.certs th:nth-child(5) { width: 115px; }
table.certs td.dn, table.certs td.name { overflow-wrap: anywhere; }
table.certs .cert-id { font: 12px/1.4 var(--mono); color: var(--muted); margin-top: 2px; }
table.certs .badge-expired { display: block; width: fit-content; margin-bottom: 4px; }
table.certs tr.expired td.dn, table.certs tr.expired td.name { color: var(--muted); }
@media (max-width: 900px) { table.certs td > div { min-width: 0; } table.certs .badge-expired { display: inline-block; margin: 0 6px 0 0; } }
.badge-expired { background: var(--danger-soft); color: var(--danger); font-family: inherit; }
@media (max-width: 700px) {
  form.upload .field { flex: 1 1 100%; }
}
/* an assembly's parts and stamps: titles, selections and a stamp's HTML are the customer's and may be long */
table.assembly-table td.part-title, table.assembly-table td.stamp-content { overflow-wrap: anywhere; min-width: 0; }
table.assembly-table .turned, table.assembly-table .count { white-space: nowrap; }
.stamp-source { display: block; width: fit-content; max-width: 100%; margin-top: 4px; font-size: 12px; overflow-wrap: anywhere; white-space: pre-wrap; }
.split-files { margin: 4px 0 8px; padding-left: 24px; font-size: 14px; }
.split-files li { overflow-wrap: anywhere; }
.assembly-finishing h3 { margin: 14px 0 6px; font-size: 15px; }
@media (max-width: 640px) {
  table.assembly-table, table.assembly-table tbody, table.assembly-table tr, table.assembly-table td { display: block; width: auto; }
  table.assembly-table thead { position: absolute; left: -9999px; }
  table.assembly-table tr { border: 1px solid var(--border); border-radius: 8px; padding: 8px 12px; margin-bottom: 10px; }
  table.assembly-table td { display: flex; justify-content: space-between; align-items: baseline; gap: 12px; padding: 4px 0; border: none; text-align: right; }
  table.assembly-table td > * { min-width: 0; }
  /* A stamp's words and HTML take the card's width under their label, read from the left. */
  table.assembly-table td.stamp-content { display: block; text-align: left; }
  table.assembly-table td.stamp-content::before { display: block; margin-bottom: 2px; }
  table.assembly-table td[data-label]::before { content: attr(data-label); color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; text-align: left; flex: none; }
}
`;
