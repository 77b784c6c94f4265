/**
 * The account's own pages: password recovery, the activity log, the sessions list and the danger zone of
 * account deletion.
 */

/** Recovery, activity, sessions and account deletion rules. */
export const ACCOUNT_STYLES = `
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
}`;
