import { sql } from 'kysely';

/**
 * The Renders list's filters over the render log's stored report (report/stored-report.ts), a JSON text
 * column: no column of their own, so no migration and nothing to keep in step. Each is a LIKE over the text of
 * one account's rows (the query is bounded by account_id, its index and the account's 64 MiB budget).
 *
 * A title or reference is matched as the JSON holds it: the term is JSON-escaped first, so it can contain no
 * unescaped `"` and never matches across the end of a string. `reference` and `title` are the report's last
 * keys, so text after `"reference":"` or `"title":"` is one of the two, never an entry's (whose `"` are
 * escaped too). LIKE's own `%` and `_` (and the escape character) are escaped.
 */

const ESCAPE = '!';

/** The term as a LIKE pattern matches it literally inside the stored JSON. */
function likeLiteral(term: string): string {
  return JSON.stringify(term)
    .slice(1, -1)
    .replace(/[!%_]/g, (c) => `${ESCAPE}${c}`);
}

/** Renders whose title or job reference contains `term` (case-insensitively: ASCII on SQLite, Unicode on PostgreSQL). */
export function titleOrReference(kind: 'sqlite' | 'postgres', term: string) {
  const literal = likeLiteral(term);
  // SQLite's LIKE ignores ASCII case by itself; PostgreSQL's ILIKE does it for every script.
  const like = kind === 'postgres' ? sql.raw('ilike') : sql.raw('like');
  return sql<boolean>`(render_log.warnings ${like} ${`%"reference":"%${literal}%`} escape '!' or render_log.warnings ${like} ${`%"title":"%${literal}%`} escape '!')`;
}

/** Renders whose PDF claims at least one standard (`"claims":[` followed by a claim, never an empty array). */
export const CLAIMED_RENDERS = sql<boolean>`(render_log.warnings like '%"claims":["%')`;

/** The longest search term taken: longer ones cannot match a 300-character title anyway. */
export const MAX_SEARCH = 300;
