/**
 * The pieces pages are built from: buttons, form fields, tables and alerts. The key table's fixed column
 * widths stand with the table rules they refine.
 */

/** Buttons, form fields, tables and alerts, shared by the pages. */
export const COMPONENT_STYLES = `

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
input[type="text"], input[type="email"], input[type="password"], input[type="search"], select {
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
/* a form's error is where its page opens (the action's fragment): a little room above it */
.form-error { scroll-margin-top: 16px; }
.alert-warn { background: var(--warn-soft); border-color: #fedf89; color: var(--warn); }`;
