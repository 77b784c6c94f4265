/**
 * The page footer, then the rules for narrow screens (tablets and phones) of what comes before: the frame,
 * form fields, the key and render tables shown as cards, the usage limits and chart. A media query adds no
 * specificity, so these rules must come after the ones they change; that is why they stand together here.
 */

/** The footer and the narrow-screen rules of the frame, the shared pieces and the core pages. */
export const NARROW_SCREEN_STYLES = `
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
  input[type="text"], input[type="email"], input[type="password"], input[type="search"], select { min-width: 0; max-width: 100%; }
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
  /* Half the x-axis labels: a phone's bars are too narrow for a label every 5 days (or 3 hours). */
  .chart .tick-minor { display: none; }
}`;
