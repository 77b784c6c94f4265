/** Small text and URL helpers shared by the extractor and the fetcher. */
import { decodeHTML, decodeHTMLAttribute } from 'entities';
import { isWs } from './html-scan.js';
import type { Metadata } from './types.js';

/** The empty result for a non-HTML response: only the origin's default favicon. */
export function nonHtmlMetadata(finalUrl: string): Metadata {
  return {
    title: null,
    description: null,
    og_title: null,
    og_description: null,
    og_image: null,
    og_url: null,
    canonical_url: null,
    favicon_url: defaultFavicon(finalUrl),
  };
}

/** `/favicon.ico` on the origin of `finalUrl` (the favicon is never fetched). */
export function defaultFavicon(finalUrl: string): string | null {
  try {
    return new URL('/favicon.ico', finalUrl).href;
  } catch {
    return null;
  }
}

/** Values up to this length are collapsed by one regular expression (the common case, and its fastest path). */
const COLLAPSE_BY_REGEXP_UP_TO = 65_536;

/** Runs of ASCII whitespace become one space; ASCII whitespace trimmed (not NBSP or other Unicode spaces). */
export function collapseWhitespace(s: string, regexpUpTo = COLLAPSE_BY_REGEXP_UP_TO): string {
  if (s.length > regexpUpTo) return collapseLong(s);
  let out = /[\t\n\f\r ]/.test(s) ? s.replace(/[\t\n\f\r ]+/g, ' ') : s;
  if (out.startsWith(' ')) out = out.slice(1);
  if (out.endsWith(' ')) out = out.slice(0, -1);
  return out;
}

/**
 * collapseWhitespace for a long value, in one pass into one array of UTF-16 code units (lone surrogates kept
 * as they are). String#replace keeps a part for every match: on a 5 MB title of short words the collector's
 * work on those parts made it super-linear (4× the bytes: 6–10× the time).
 */
function collapseLong(s: string): string {
  const out = new Uint16Array(s.length);
  let k = 0;
  let gap = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isWs(c)) {
      gap = k > 0;
      continue;
    }
    if (gap) {
      out[k++] = 0x20;
      gap = false;
    }
    out[k++] = c;
  }
  return Buffer.from(out.buffer, 0, k * 2).toString('utf16le');
}

/** What the `entities` decoder reads from an `&` on: the digits or the name, and the `;` (or, in attributes, `=`) after them. */
const REFERENCE = /&(?:#[xX][0-9a-fA-F]*;?|#[0-9]*;?|[A-Za-z][A-Za-z0-9]*[;=]?)/g;
/** Values up to this length go to `entities` whole (the common case, and its fastest path). */
const WHOLE_UP_TO = 65_536;

/**
 * Decodes character references exactly as `entities` does (text or attribute rules). `entities` appends to one
 * string per reference: on a multi-megabyte value (a 5 MB title full of `&amp;`) the garbage collector's work on
 * that growing string made extraction super-linear (4× the bytes: 9–12× the time, GC 15×). Long values are cut
 * into pieces just before an `&` (no reference is open there), each piece decoded one reference at a time by
 * String#replace (a flat result, its garbage dies young), and the pieces joined once: 4–6× for 4× the bytes.
 */
export function decodeReferences(v: string, attribute: boolean, wholeUpTo = WHOLE_UP_TO): string {
  const decode = attribute ? decodeHTMLAttribute : decodeHTML;
  if (v.length <= wholeUpTo) return decode(v);
  const pieces: string[] = [];
  for (let from = 0; from < v.length; ) {
    let cut = v.indexOf('&', from + wholeUpTo + 1);
    if (cut < 0) cut = v.length;
    const piece = v.slice(from, cut);
    const after = v.charAt(cut);
    // `entities` reads one character past a reference (`&notin` ends differently at the end of the input than
    // before `&`): decode it with that character, which decodes to itself, and take that back off.
    pieces.push(
      piece.replace(REFERENCE, (ref: string, at: number) => {
        const next = at + ref.length < piece.length ? piece.charAt(at + ref.length) : after;
        return next === '' ? decode(ref) : decode(ref + next).slice(0, -1);
      }),
    );
    from = cut;
  }
  return pieces.join('');
}
