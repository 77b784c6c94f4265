/**
 * Where a log-in leads: the page a logged-out visitor opened (`/login?next=/renders/rnd_…`), carried
 * through the log-in form. Only a path of this site is ever followed, so the parameter cannot send a
 * user who just typed their password to another site (an open redirect).
 */
import type { FastifyRequest } from 'fastify';

/** Where a log-in leads when it names no page (or one that is not a path of this site). */
export const DEFAULT_PAGE = '/keys';

const MAX_PATH = 2048;

/**
 * `raw` when it is a path of this site, else undefined: one leading `/`, then neither `/` nor `\` (a
 * browser reads `//host` and `/\host` as another host), no backslash, space or control character anywhere
 * (the URL parser drops tabs and line breaks, so `/\t/host` is `//host`).
 */
export function safeReturnPath(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.length > MAX_PATH) return undefined;
  if (!/^\/(?![/\\])[^\\\s\p{Cc}]*$/u.test(raw)) return undefined;
  // The same question asked of the URL parser itself: the path must not leave this origin.
  const base = 'http://dashboard.invalid';
  return new URL(raw, base).origin === base ? raw : undefined;
}

/** The log-in page's address for a logged-out GET of this request's page: it names the page unless it is the default. */
export function loginUrlFor(request: FastifyRequest): string {
  const next = safeReturnPath(request.url);
  return next === undefined || next === DEFAULT_PAGE ? '/login' : `/login?next=${encodeURIComponent(next)}`;
}
