/**
 * What a response's `Content-Type` says, read as browsers read it: Fetch's "extract a MIME type" over every
 * value the header has (repeated headers and comma-joined values alike; the last valid type counts, and it
 * keeps an earlier value's charset when it names none itself), each value parsed by MIME Sniffing's "parse a
 * MIME type". So `text/html; charset="utf-8` (quote left open) names UTF-8, while in
 * `text/html ; charset = utf-8` the blank before `=` makes no parameter at all.
 *
 * Whitespace is trimmed by loops, not regular expressions: a trailing-blank pattern backtracks quadratically
 * over a long run of blanks, and a header may hold 256 KiB of them.
 */

/** A parsed MIME type: lower-case `type/subtype` and its parameters (the first of each name). */
export interface MimeType {
  essence: string;
  parameters: Map<string, string>;
}

/** HTTP token code points. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** HTTP quoted-string token code points (a header's characters are at most U+00FF). */
const QUOTED_TEXT = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;

const isHttpWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isTabOrSpace = (c: string): boolean => c === ' ' || c === '\t';
const asciiLower = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** `s` from `start` to `end`, without the HTTP whitespace at its end. */
function withoutTrailingWhitespace(s: string, start: number, end: number): string {
  while (end > start && isHttpWhitespace(s[end - 1])) end--;
  return s.slice(start, end);
}

/** `s` without the characters `blank` accepts at either end. */
function trimmed(s: string, blank: (c: string) => boolean): string {
  let start = 0;
  let end = s.length;
  while (start < end && blank(s[start])) start++;
  while (end > start && blank(s[end - 1])) end--;
  return s.slice(start, end);
}

/**
 * Fetch's "collect an HTTP quoted string" from the `"` at `pos`: the value with its backslash escapes
 * undone, and the position after the closing quote (or the end, when the quote is left open).
 */
function collectQuoted(s: string, pos: number): { value: string; end: number } {
  let value = '';
  let p = pos + 1;
  for (;;) {
    let e = p;
    while (e < s.length && s[e] !== '"' && s[e] !== '\\') e++;
    value += s.slice(p, e);
    p = e;
    if (p >= s.length) break;
    const c = s[p++];
    if (c !== '\\') break;
    if (p >= s.length) {
      value += '\\';
      break;
    }
    value += s[p++];
  }
  return { value, end: p };
}

/** MIME Sniffing's "parse a MIME type"; null where it fails. */
export function parseMimeType(input: string): MimeType | null {
  const s = trimmed(input, isHttpWhitespace);
  const slash = s.indexOf('/');
  if (slash < 0) return null;
  const type = s.slice(0, slash);
  let semi = s.indexOf(';', slash + 1);
  if (semi < 0) semi = s.length;
  const subtype = withoutTrailingWhitespace(s, slash + 1, semi);
  if (!TOKEN.test(type) || !TOKEN.test(subtype)) return null;
  const parameters = new Map<string, string>();
  let pos = semi;
  while (pos < s.length) {
    pos++; // past ';'
    while (pos < s.length && isHttpWhitespace(s[pos])) pos++;
    let end = pos;
    while (end < s.length && s[end] !== ';' && s[end] !== '=') end++;
    const name = asciiLower(s.slice(pos, end));
    pos = end;
    if (pos < s.length) {
      if (s[pos] === ';') continue;
      pos++; // past '='
    }
    if (pos >= s.length) break;
    let value: string;
    if (s[pos] === '"') {
      const quoted = collectQuoted(s, pos);
      value = quoted.value;
      pos = quoted.end;
      while (pos < s.length && s[pos] !== ';') pos++;
    } else {
      end = s.indexOf(';', pos);
      if (end < 0) end = s.length;
      value = withoutTrailingWhitespace(s, pos, end);
      pos = end;
      if (value === '') continue;
    }
    if (TOKEN.test(name) && QUOTED_TEXT.test(value) && !parameters.has(name)) parameters.set(name, value);
  }
  return { essence: asciiLower(`${type}/${subtype}`), parameters };
}

/** Fetch's "get, decode, and split" of a header's combined value: commas outside quoted strings separate values. */
function splitValues(input: string): string[] {
  const values: string[] = [];
  let value = '';
  let pos = 0;
  for (;;) {
    let e = pos;
    while (e < input.length && input[e] !== '"' && input[e] !== ',') e++;
    value += input.slice(pos, e);
    pos = e;
    if (pos < input.length && input[pos] === '"') {
      const { end } = collectQuoted(input, pos);
      value += input.slice(pos, end);
      pos = end;
      if (pos < input.length) continue;
    }
    values.push(trimmed(value, isTabOrSpace));
    value = '';
    if (pos >= input.length) return values;
    pos++; // past ','
  }
}

/**
 * Fetch's "extract a MIME type" from a `Content-Type` header's values, combined as Fetch combines repeated
 * headers (joined by ", "); null when the header is absent or no value is a valid type.
 */
export function extractMimeType(combined: string | null | undefined): MimeType | null {
  if (combined === null || combined === undefined) return null;
  let charset: string | undefined;
  let essence: string | null = null;
  let mimeType: MimeType | null = null;
  for (const value of splitValues(combined)) {
    const parsed = parseMimeType(value);
    if (parsed === null || parsed.essence === '*/*') continue;
    mimeType = parsed;
    if (parsed.essence !== essence) {
      charset = parsed.parameters.get('charset');
      essence = parsed.essence;
    } else if (!parsed.parameters.has('charset') && charset !== undefined) {
      parsed.parameters.set('charset', charset);
    }
  }
  return mimeType;
}

/**
 * Essence (lower-case `type/subtype`, '' when the header is absent or names no valid type) and charset
 * parameter of a `Content-Type` header's combined values.
 */
export function parseContentType(combined: string | null | undefined): { essence: string; charset: string | null } {
  const type = extractMimeType(combined);
  return { essence: type?.essence ?? '', charset: type?.parameters.get('charset') ?? null };
}

/**
 * Whether a response with this `Content-Type` is parsed as HTML. A missing or invalid type counts as HTML:
 * Chromium sniffs such an answer, and what we are asked to read is a page.
 */
export function isHtmlContentType(combined: string | null | undefined): boolean {
  const { essence } = parseContentType(combined);
  return essence === '' || essence === 'text/html' || essence === 'application/xhtml+xml';
}
