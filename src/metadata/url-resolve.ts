/**
 * URL resolution as the DOM does it (`link.href`): WHATWG URL parsing against a base, with the query of
 * http(s)/ftp/file URLs percent-encoded in the document's encoding (a windows-1251 page's `?q=…` is
 * encoded in windows-1251, not UTF-8). Node's URL always uses UTF-8, so the query is redone here.
 *
 * Where Chromium's URL canonicalizer, the reference, differs from WHATWG's (and Node's), it is followed:
 * it also percent-encodes `|` and `^` in the paths of http(s), ws(s) and ftp URLs, and `*` in their hosts.
 */
import iconv from 'iconv-lite';
import { decoderFor } from './encoding.js';

const UTF8_QUERY = new Set(['utf-8', 'utf-16le', 'utf-16be', 'replacement']);
const SPECIAL = new Set(['http:', 'https:', 'ftp:', 'file:']);
/** Schemes whose paths and hosts Chromium escapes beyond WHATWG's sets (file: has its own rules for `|`). */
const NETWORK = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:']);
const SINGLE_BYTE_RANGE = 0x80;

const encoders = new Map<string, Map<number, number[]>>();

/** Code points the WHATWG Big5 encoder writes with their last pointer, not the first. */
const BIG5_LAST = new Set([0x2550, 0x255e, 0x2561, 0x256a, 0x5341, 0x5345]);

/**
 * Code point → bytes table of a legacy encoding, built once by decoding every single- and double-byte
 * sequence; the first sequence wins, as with WHATWG's "index pointer" lookups. Shift_JIS pointers
 * 8272–8835 are excluded from encoding by WHATWG (they duplicate NEC selections), and so are Big5's
 * HKSCS lead bytes below 0xA1.
 */
function encoderTable(encoding: string): Map<number, number[]> {
  let table = encoders.get(encoding);
  if (table) return table;
  table = new Map();
  const dec = decoderFor(encoding);
  for (let b = SINGLE_BYTE_RANGE; b <= 0xff; b++) {
    const s = dec.decode(Uint8Array.of(b));
    // gb18030 writes € as A2 E3; only GBK uses the single byte 0x80.
    if (s.length > 0 && s !== '\uFFFD' && !(encoding === 'gb18030' && b === 0x80)) {
      const cp = firstCodePoint(s);
      if (!table.has(cp)) table.set(cp, [b]);
    }
  }
  if (
    !encoding.startsWith('windows-') &&
    !encoding.startsWith('iso-8859') &&
    !encoding.startsWith('koi8') &&
    encoding !== 'ibm866' &&
    encoding !== 'macintosh' &&
    encoding !== 'x-mac-cyrillic'
  ) {
    for (let lead = encoding === 'big5' ? 0xa1 : 0x81; lead <= 0xfe; lead++) {
      for (let trail = 0x40; trail <= 0xfe; trail++) {
        if (encoding === 'shift_jis') {
          const pointer = (lead < 0xa0 ? lead - 0x81 : lead - 0xc1) * 188 + (trail < 0x7f ? trail - 0x40 : trail - 0x41);
          if (pointer >= 8272 && pointer <= 8835) continue;
        }
        const s = dec.decode(Uint8Array.of(lead, trail));
        if (s.length === 0 || s.includes('\uFFFD')) continue;
        const cp = firstCodePoint(s);
        // Shift_JIS's end-user-defined area (private use) is decoded but never encoded.
        if (encoding === 'shift_jis' && cp >= 0xe000 && cp <= 0xf8ff) continue;
        if (s.length === (cp > 0xffff ? 2 : 1) && (!table.has(cp) || (encoding === 'big5' && BIG5_LAST.has(cp))))
          table.set(cp, [lead, trail]);
      }
    }
  }
  encoders.set(encoding, table);
  return table;
}

function hex(b: number): string {
  return `%${b < 16 ? '0' : ''}${b.toString(16).toUpperCase()}`;
}

/** The first code point of `s`, which is not empty (a decoded character, an iterated one). */
function firstCodePoint(s: string): number {
  const cp = s.codePointAt(0);
  if (cp === undefined) throw new Error('url-resolve: a code point of an empty string');
  return cp;
}

/** A query byte after the special-query percent-encode set. */
function queryByte(b: number): string {
  return b < 0x21 || b > 0x7e || b === 0x22 || b === 0x23 || b === 0x27 || b === 0x3c || b === 0x3e
    ? hex(b)
    : String.fromCharCode(b);
}

/** Percent-encodes a raw query in `encoding` with the special-query percent-encode set. */
function encodeQuery(raw: string, encoding: string): string {
  if (encoding === 'iso-2022-jp') return iso2022jpQuery(raw);
  const table = encoderTable(encoding);
  const japanese = encoding === 'shift_jis' || encoding === 'euc-jp';
  let out = '';
  for (const ch of raw) {
    let cp = firstCodePoint(ch);
    if (cp < 0x80) {
      out += queryByte(cp);
      continue;
    }
    if (japanese) {
      // The Shift_JIS and EUC-JP encoders write ¥ and ‾ as their JIS X 0201 bytes and − as the full-width minus.
      if (cp === 0xa5 || cp === 0x203e) {
        out += queryByte(cp === 0xa5 ? 0x5c : 0x7e);
        continue;
      }
      if (cp === 0x2212) cp = 0xff0d;
    }
    // gb18030 has a four-byte form for every code point its two-byte table lacks (but U+E5E5).
    const bytes = table.get(cp) ?? (encoding === 'gb18030' && cp !== 0xe5e5 ? gb18030FourBytes(cp) : undefined);
    if (!bytes) {
      // The encoder's "html" error mode: an unmappable character becomes &#N;.
      out += `%26%23${cp}%3B`;
      continue;
    }
    for (const b of bytes) out += queryByte(b);
  }
  return out;
}

/** The four-byte gb18030 sequence of a code point (iconv-lite implements the ranges index). */
function gb18030FourBytes(cp: number): number[] | undefined {
  const bytes = [...iconv.encode(String.fromCodePoint(cp), 'gb18030')];
  return bytes.length === 4 ? bytes : undefined;
}

const ESC = 0x1b;
/** Half-width katakana U+FF61–U+FF9F as the ISO-2022-JP encoder writes them: full width (WHATWG's katakana index). */
const FULL_WIDTH_KATAKANA = Array.from({ length: 0x3f }, (_, i) =>
  i === 0x3d
    ? 0x309b
    : i === 0x3e
      ? 0x309c
      : String.fromCharCode(0xff61 + i)
          .normalize('NFKC')
          .charCodeAt(0),
);

/**
 * A query encoded by WHATWG's ISO-2022-JP encoder: ASCII, JIS X 0201 Roman (for ¥ and ‾) and JIS X 0208
 * runs, each opened by its escape sequence, ending in ASCII; an unmappable character becomes `&#N;`,
 * percent-encoded whole as for the other encodings. The JIS X 0208 pairs are EUC-JP's two-byte
 * characters without their high bits.
 */
function iso2022jpQuery(raw: string): string {
  const jis = encoderTable('euc-jp');
  const queue = Array.from(raw, firstCodePoint);
  let out = '';
  const bytes = (...bs: number[]): void => {
    for (const b of bs) out += queryByte(b);
  };
  let state: 'ascii' | 'roman' | 'jis0208' = 'ascii';
  for (let i = 0; ; i++) {
    // `queue` has no holes: the end of the array is the first undefined.
    let cp = queue[i];
    if (cp === undefined) break;
    if (state !== 'jis0208' && (cp === 0x0e || cp === 0x0f || cp === ESC)) {
      out += '%26%2365533%3B';
      continue;
    }
    if (state === 'ascii' && cp < 0x80) {
      bytes(cp);
      continue;
    }
    if (state === 'roman' && ((cp < 0x80 && cp !== 0x5c && cp !== 0x7e) || cp === 0xa5 || cp === 0x203e)) {
      bytes(cp === 0xa5 ? 0x5c : cp === 0x203e ? 0x7e : cp);
      continue;
    }
    if (cp < 0x80 || cp === 0xa5 || cp === 0x203e) {
      // Switch to ASCII or Roman and take the character again.
      const roman = cp >= 0x80;
      bytes(ESC, 0x28, roman ? 0x4a : 0x42);
      state = roman ? 'roman' : 'ascii';
      i--;
      continue;
    }
    if (cp === 0x2212) cp = 0xff0d;
    if (cp >= 0xff61 && cp <= 0xff9f) {
      const full = FULL_WIDTH_KATAKANA[cp - 0xff61];
      // The table has one entry per half-width katakana, U+FF61 to U+FF9F.
      if (full === undefined) throw new Error(`iso2022jpQuery: no full-width form of U+${cp.toString(16).toUpperCase()}`);
      cp = full;
    }
    const pair = jis.get(cp);
    // A JIS X 0208 character is a two-byte EUC-JP sequence with a lead byte from 0xA1 (not 0x8E: half-width katakana).
    const lead = pair?.length === 2 ? pair[0] : undefined;
    const trail = pair?.[1];
    if (lead === undefined || trail === undefined || lead < 0xa1) {
      if (state === 'jis0208') {
        // Back to ASCII first; the character is then an error there.
        queue[i] = cp;
        bytes(ESC, 0x28, 0x42);
        state = 'ascii';
        i--;
        continue;
      }
      out += `%26%23${cp}%3B`;
      continue;
    }
    if (state !== 'jis0208') {
      bytes(ESC, 0x24, 0x42);
      state = 'jis0208';
    }
    bytes(lead - 0x80, trail - 0x80);
  }
  if (state !== 'ascii') bytes(ESC, 0x28, 0x42);
  return out;
}

/** `url.href` with the path and host escaping Chromium adds for network schemes (see the module comment). */
function chromiumHref(url: URL): string {
  const href = url.href;
  if (!NETWORK.has(url.protocol) || (!/[|^]/.test(url.pathname) && !url.host.includes('*'))) return href;
  const auth = url.username || url.password ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  const host = url.host.replace(/\*/g, '%2A');
  const path = url.pathname.replace(/[|^]/g, (c) => (c === '|' ? '%7C' : '%5E'));
  return `${url.protocol}//${auth}${host}${path}${url.search}${url.hash}`;
}

/** Resolves `value` against `base` like the DOM of a document in `encoding`; null when it does not parse. */
export function resolveUrl(value: string, base: string | URL, encoding: string): string | null {
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return null;
  }
  if (UTF8_QUERY.has(encoding) || url.search === '' || !SPECIAL.has(url.protocol) || !/[^\x00-\x7f]/.test(value)) {
    return chromiumHref(url);
  }
  // Recover the raw query of the input as the URL parser saw it (tabs and newlines removed, ends trimmed).
  const input = value.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, '').replace(/[\t\n\r]/g, '');
  const q = input.indexOf('?');
  const h = input.indexOf('#');
  if (q < 0 || (h >= 0 && h < q)) return chromiumHref(url);
  const raw = h < 0 ? input.slice(q + 1) : input.slice(q + 1, h);
  const href = chromiumHref(url);
  const prefix = href.slice(0, href.length - url.hash.length - url.search.length);
  return `${prefix}?${encodeQuery(raw, encoding)}${url.hash}`;
}
