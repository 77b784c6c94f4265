/**
 * The strings of PDF objects encrypted, two ways. Most objects are rewritten by a scan of their source
 * text that replaces each string token by its encrypted hex form and copies everything else as it is
 * (nothing is parsed into values, which is what makes a large file quick). Objects the scan hands back
 * (streams, and signature dictionaries, whose /Contents stays clear: ISO 32000-2 7.6.2) are parsed and
 * their values encrypted.
 */
import { isDict, PdfRaw, type PdfValue, stringBytes } from '../profiles/pdf-objects.js';

/** Encrypts a string's bytes (the IV first). */
export type Encrypter = (data: Buffer) => Buffer;

/** How the scan of one object ended. */
export type ScanResult =
  /** A plain object: its text from `obj`'s end to `endobj`'s end, strings encrypted; `changed` when any was. */
  | { kind: 'object'; text: string; end: number; changed: boolean }
  /** A stream, or an object holding a signature: the caller parses it. */
  | { kind: 'parse' };

const LT = 0x3c;
const GT = 0x3e;
const OPEN = 0x28;
const CLOSE = 0x29;
const BACKSLASH = 0x5c;
const PERCENT = 0x25;
const SLASH = 0x2f;

/** Per character code: 1 ends a regular token (white space or a delimiter). */
const ENDS = new Uint8Array(256);
for (const c of [0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]) ENDS[c] = 1;
for (const c of '()<>[]{}/%') ENDS[c.charCodeAt(0)] = 1;

/**
 * Scans an object's body from `from` (just after `N G obj`) to its `endobj`, encrypting every string.
 * Hands back `parse` for a stream or a dictionary with /ByteRange (a signature's /Contents is not encrypted).
 */
export function scanObject(text: string, from: number, encrypt: Encrypter): ScanResult {
  const pieces: string[] = [];
  let copied = from;
  let pos = from;
  const n = text.length;
  while (pos < n) {
    const c = text.charCodeAt(pos);
    if (c === PERCENT) {
      while (pos < n && text[pos] !== '\n' && text[pos] !== '\r') pos++;
    } else if (c === OPEN || (c === LT && text.charCodeAt(pos + 1) !== LT)) {
      const end = c === OPEN ? literalEnd(text, pos) : text.indexOf('>', pos) + 1;
      if (end <= 0) throw new Error(`unterminated string at ${pos}`);
      pieces.push(text.slice(copied, pos), `<${encrypt(stringBytes(text.slice(pos, end))).toString('hex')}>`);
      copied = pos = end;
    } else if (c === LT || c === GT) {
      pos += text.charCodeAt(pos + 1) === c ? 2 : 1;
    } else if (c === SLASH) {
      // A name is skipped whole, so a name spelt like a keyword is never taken for one.
      const start = ++pos;
      while (pos < n && ENDS[text.charCodeAt(pos) & 0xff] === 0) pos++;
      if (pos - start === 9 && text.startsWith('ByteRange', start)) return { kind: 'parse' };
    } else if (ENDS[c & 0xff] === 0) {
      const start = pos;
      while (pos < n && ENDS[text.charCodeAt(pos) & 0xff] === 0) pos++;
      const word = pos - start;
      if (word === 6 && text.startsWith('endobj', start)) {
        pieces.push(text.slice(copied, pos));
        return { kind: 'object', text: pieces.join(''), end: pos, changed: pieces.length > 1 };
      }
      if (word === 6 && text.startsWith('stream', start)) return { kind: 'parse' };
    } else pos++;
  }
  throw new Error('an object has no endobj');
}

/** Where a literal string starting at `pos` ends (after its closing parenthesis), or 0. */
function literalEnd(text: string, pos: number): number {
  let depth = 0;
  for (let i = pos; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === OPEN) depth++;
    else if (c === CLOSE && --depth === 0) return i + 1;
  }
  return 0;
}

/** A parsed value with its strings encrypted; a signature dictionary's /Contents is left clear. */
export function encryptValue(value: PdfValue, encrypt: Encrypter): PdfValue {
  if (value instanceof PdfRaw) {
    const c = value.text.charCodeAt(0);
    return c === OPEN || c === LT ? new PdfRaw(`<${encrypt(stringBytes(value.text)).toString('hex')}>`) : value;
  }
  if (Array.isArray(value)) return value.map((v) => encryptValue(v, encrypt));
  if (!isDict(value)) return value;
  const signature = value.has('ByteRange');
  const out = new Map<string, PdfValue>();
  for (const [key, v] of value) out.set(key, signature && key === 'Contents' ? v : encryptValue(v, encrypt));
  return out;
}
