/**
 * Character encodings per WHATWG Encoding: label resolution, BOM sniffing, a meta's charset, and cached
 * decoders (the Content-Type's charset is content-type.ts's). Node's TextDecoder (full ICU) knows every
 * WHATWG label except the "replacement", "x-user-defined" and "iso-8859-16" encodings, which are handled here.
 */

import { legacyMultiByteDecoder } from './cjk-decoders.js';
import type { Decoder } from './decoder.js';

/** Labels that WHATWG maps to the "replacement" encoding (the document decodes to one U+FFFD). */
const REPLACEMENT_LABELS = new Set(['csiso2022kr', 'hz-gb-2312', 'iso-2022-cn', 'iso-2022-cn-ext', 'iso-2022-kr', 'replacement']);

const resolved = new Map<string, string | null>();

/** Resolves an encoding label to its WHATWG name (e.g. 'latin1' → 'windows-1252'), or null if unknown. */
export function resolveEncodingLabel(label: string): string | null {
  const key = label.trim().toLowerCase();
  const hit = resolved.get(key);
  if (hit !== undefined) return hit;
  let name: string | null;
  if (REPLACEMENT_LABELS.has(key)) name = 'replacement';
  // x-user-defined maps 0x80-0xFF to the private-use area; browsers treat a declared one as windows-1252.
  else if (key === 'x-user-defined') name = 'windows-1252';
  // Node's ICU has no ISO-8859-16; its decoder is below.
  else if (key === 'iso-8859-16') name = 'iso-8859-16';
  else {
    try {
      name = new TextDecoder(key).encoding;
    } catch {
      name = null;
    }
  }
  if (resolved.size < 256) resolved.set(key, name);
  return name;
}

/** Encoding named by a byte-order mark at the start of `bytes`, with the BOM's length. */
export function sniffBom(bytes: Uint8Array): { encoding: string; length: number } | null {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  return null;
}

/** Encodings whose bytes below 0x80 are ASCII and never occur inside a multi-byte character as <, >, quotes, =, / or whitespace. */
export function isAsciiCompatible(encoding: string): boolean {
  return !(encoding === 'utf-16le' || encoding === 'utf-16be' || encoding === 'iso-2022-jp' || encoding === 'replacement');
}

/** windows-1252 code points of bytes 0x80–0x9F (the rest of the encoding is ISO-8859-1). */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f, 0x90,
  0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

/** A single-byte encoding that is ISO-8859-1 but for the bytes from `first` on, which map through `high`. */
function latin1With(first: number, high: readonly number[]): Decoder {
  const differs = new RegExp(`[\\x${first.toString(16)}-\\x${(first + high.length - 1).toString(16)}]`, 'g');
  return {
    decode(bytes) {
      const s = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
      return s.replace(differs, (c) => {
        const cp = high[c.charCodeAt(0) - first];
        // `differs` matches only the bytes from `first` to `first + high.length - 1`.
        if (cp === undefined) throw new Error(`latin1With: byte 0x${c.charCodeAt(0).toString(16)} outside the table`);
        return String.fromCharCode(cp);
      });
    },
  };
}

/**
 * Node 20's TextDecoder decodes "windows-1252" as ISO-8859-1 (0x80–0x9F become C1 controls instead of
 * € ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ Ž ‘ ’ “ ” • – — ˜ ™ š › œ ž Ÿ), so that one is done here.
 */
const windows1252 = latin1With(0x80, CP1252_HIGH);

/** ISO-8859-16 (Romanian) code points of bytes 0xA0–0xFF; below that it is ISO-8859-1. Node's ICU lacks it. */
const ISO_8859_16_HIGH = [
  0xa0, 0x104, 0x105, 0x141, 0x20ac, 0x201e, 0x160, 0xa7, 0x161, 0xa9, 0x218, 0xab, 0x179, 0xad, 0x17a, 0x17b, 0xb0, 0xb1, 0x10c,
  0x142, 0x17d, 0x201d, 0xb6, 0xb7, 0x17e, 0x10d, 0x219, 0xbb, 0x152, 0x153, 0x178, 0x17c, 0xc0, 0xc1, 0xc2, 0x102, 0xc4, 0x106,
  0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf, 0x110, 0x143, 0xd2, 0xd3, 0xd4, 0x150, 0xd6, 0x15a, 0x170, 0xd9,
  0xda, 0xdb, 0xdc, 0x118, 0x21a, 0xdf, 0xe0, 0xe1, 0xe2, 0x103, 0xe4, 0x107, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed,
  0xee, 0xef, 0x111, 0x144, 0xf2, 0xf3, 0xf4, 0x151, 0xf6, 0x15b, 0x171, 0xf9, 0xfa, 0xfb, 0xfc, 0x119, 0x21b, 0xff,
];

const iso885916 = latin1With(0xa0, ISO_8859_16_HIGH);

const decoders = new Map<string, Decoder>([
  ['windows-1252', windows1252],
  ['iso-8859-16', iso885916],
]);

/** A shared non-streaming decoder that keeps U+FEFF (snippets from mid-document must not lose one). */
export function decoderFor(encoding: string): Decoder {
  let d = decoders.get(encoding);
  if (!d) {
    d = legacyMultiByteDecoder(encoding) ?? new TextDecoder(encoding, { ignoreBOM: true });
    decoders.set(encoding, d);
  }
  return d;
}

/** Decodes a whole document (BOM already stripped) to a string; the replacement encoding yields U+FFFD. */
export function decodeDocument(bytes: Uint8Array, encoding: string): string {
  if (encoding === 'replacement') return bytes.length > 0 ? '\uFFFD' : '';
  return decoderFor(encoding).decode(bytes);
}

/**
 * Blink's extraction of a charset from a `content` attribute (`text/html; charset=…`):
 * the first "charset", optional spaces, "=", optional spaces, then a quoted or bare value.
 */
export function extractCharsetFromContent(value: string): string | null {
  const lower = value.toLowerCase();
  let pos = 0;
  const length = value.length;
  while (pos < length) {
    pos = lower.indexOf('charset', pos);
    if (pos < 0) break;
    pos += 7;
    while (pos < length && value.charCodeAt(pos) <= 0x20) pos++;
    if (value[pos] !== '=') continue;
    pos++;
    while (pos < length && value.charCodeAt(pos) <= 0x20) pos++;
    let quote = '';
    if (pos < length && (value[pos] === '"' || value[pos] === "'")) quote = value[pos++];
    if (pos === length) break;
    let end = pos;
    while (
      end < length &&
      (quote
        ? value[end] !== quote
        : value.charCodeAt(end) > 0x20 && value[end] !== '"' && value[end] !== "'" && value[end] !== ';')
    ) {
      end++;
    }
    if (quote && end === length) break;
    return value.slice(pos, end);
  }
  return null;
}

/**
 * Blink's EncodingFromMetaAttributes: a `charset` attribute, or `http-equiv="content-type"` together with a
 * `content` that names a charset (the first charset/content attribute wins). Returns the encoding a
 * document may declare for itself (UTF-16 becomes UTF-8), or null.
 */
export function encodingFromMetaAttributes(attrs: ReadonlyArray<readonly [name: string, value: string]>): string | null {
  let gotPragma = false;
  let charset: string | null = null;
  let fromCharset = false;
  for (const [name, value] of attrs) {
    if (name === 'http-equiv') {
      if (value.toLowerCase() === 'content-type') gotPragma = true;
    } else if (charset === null) {
      if (name === 'charset') {
        charset = value;
        fromCharset = true;
      } else if (name === 'content') {
        charset = extractCharsetFromContent(value);
      }
    }
  }
  if (charset === null || (!fromCharset && !gotPragma)) return null;
  const enc = resolveEncodingLabel(charset.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, ''));
  // A document cannot declare itself UTF-16 from inside (it would not be readable as ASCII).
  return enc === 'utf-16le' || enc === 'utf-16be' ? 'utf-8' : enc;
}
