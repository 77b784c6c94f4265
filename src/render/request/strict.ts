/**
 * Strict renders (docs/rendering.md#when-a-document-cannot-get-everything): the request header `Prefer: handling=strict` (RFC 7240)
 * turns any warning into 422 RENDER_INCOMPLETE, for POST /v1/render and POST /v1/jobs alike.
 */
import { Type } from '@sinclair/typebox';
import { RenderError } from '../../errors.js';
import { type ReportEntry, warningCount } from '../../report/report.js';

/** The answer's header that says the preference was honoured (RFC 7240 §3). */
export const STRICT_APPLIED = 'handling=strict';
/** The `Prefer` request header as the OpenAPI documents of POST /v1/render and POST /v1/jobs describe it. */
export const PreferHeaders = Type.Object({
  prefer: Type.Optional(
    Type.String({
      description:
        'RFC 7240 preferences. handling=strict turns any warning of the render report into 422 RENDER_INCOMPLETE ' +
        '(the answer carries Preference-Applied: handling=strict); other preferences are ignored.',
      examples: ['handling=strict'],
    }),
  ),
});

/** Entries quoted in a RENDER_INCOMPLETE message; the report has them all. */
const QUOTED = 3;

/** Splits on `separator` outside quoted strings (a quoted value may hold commas and semicolons). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && quoted) i++;
    else if (c === '"') quoted = !quoted;
    else if (c === separator && !quoted) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/**
 * The fields without the quotes that no quote closes: a client's typo (`handling="strict`) is read as
 * the unquoted value it meant, never as a quoted string swallowing the rest and turning strict silently lenient.
 */
function withoutOpenQuotes(fields: string): string {
  let text = fields;
  for (;;) {
    let open = -1;
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '\\' && open >= 0) i++;
      else if (text[i] === '"') open = open >= 0 ? -1 : i;
    }
    if (open < 0) return text;
    text = text.slice(0, open) + text.slice(open + 1);
  }
}

/**
 * Whether the request's `Prefer` fields ask for `handling=strict`. Preference names and this value are
 * compared case-insensitively, the value may be quoted, parameters after `;` are ignored, and only the
 * first `handling` counts (RFC 7240 §2); every other preference is ignored.
 */
export function prefersStrict(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  const fields = withoutOpenQuotes(Array.isArray(header) ? header.join(',') : header);
  for (const preference of splitOutsideQuotes(fields, ',')) {
    const [head] = splitOutsideQuotes(preference, ';');
    const eq = head.indexOf('=');
    const name = (eq < 0 ? head : head.slice(0, eq)).trim().toLowerCase();
    if (name !== 'handling') continue;
    const raw = eq < 0 ? '' : head.slice(eq + 1).trim();
    const value = raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    return value.toLowerCase() === 'strict';
  }
  return false;
}

/**
 * The RENDER_INCOMPLETE error of a strict render that met `warnings`: the count and the first few in
 * words, then `rest`, which says where the whole list is.
 */
export function incompleteError(warnings: readonly ReportEntry[], rest: string): RenderError {
  const count = warningCount(warnings);
  const first = warnings
    .filter((w) => w.kind !== 'truncated')
    .slice(0, QUOTED)
    .map((w) => w.message);
  const more = count > first.length ? `; and ${count - first.length} more` : '';
  return new RenderError(
    'RENDER_INCOMPLETE',
    `${refused(warnings)} (${count} ${count === 1 ? 'warning' : 'warnings'}, strict handling): ${first.join('; ')}${more} (${rest})`,
  );
}

/**
 * What strict handling refused: when every entry is a profile the PDF could not claim, those profiles
 * (the document got everything it asked for); otherwise that the document could not get everything.
 */
function refused(warnings: readonly ReportEntry[]): string {
  const entries = warnings.filter((w) => w.kind !== 'truncated');
  if (entries.length === 0 || entries.some((w) => w.kind !== 'conformance')) return 'the document could not get everything';
  const profiles = [...new Set(entries.map((w) => (w.kind === 'conformance' ? w.profile : '')))];
  const named = profiles.length === 1 ? profiles[0] : `${profiles.slice(0, -1).join(', ')} and ${profiles.at(-1)}`;
  return `${named} could not be claimed`;
}
