/**
 * Byte-level pieces of the WHATWG HTML tokenizer, enough to find tags and the end of comments, raw-text
 * and RCDATA elements exactly as a browser does, without building a DOM: the sentinels, character classes
 * and end finders the others build on (attributes: tag-attrs.ts; a script's content: script-end.ts).
 *
 * They work on the raw bytes of any ASCII-compatible encoding (UTF-8, windows-125x, Shift_JIS, EUC-JP,
 * GBK, Big5 …): in all of them the bytes of <, >, /, =, quotes, ! , - and whitespace only ever stand for
 * those characters. Results use sentinel numbers instead of objects because this runs per tag.
 */

/** More bytes are needed to finish the construct (and the input has not ended). */
export const NEED_MORE = -1;
/** The input ended inside a tag: the tokenizer drops such a tag. */
export const EOF_IN_TAG = -2;

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const DASH = 0x2d;
const BANG = 0x21;

/** ASCII whitespace as the tokenizer sees it (CR included: it becomes LF in preprocessing). */
export function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

/** ASCII letter. */
export function isAlpha(c: number): boolean {
  const l = c | 0x20;
  return l >= 0x61 && l <= 0x7a;
}

/** Compares bytes [s, e) with a lower-case ASCII literal, letters case-insensitively. */
export function eqLower(b: Buffer, s: number, e: number, lit: string): boolean {
  if (e - s !== lit.length) return false;
  for (let i = 0; i < lit.length; i++) {
    const c = b[s + i];
    const l = lit.charCodeAt(i);
    if (c !== l && !(l >= 0x61 && l <= 0x7a && (c | 0x20) === l)) return false;
  }
  return true;
}

/** ASCII-lower-cased latin1 text of bytes [s, e) (tag names; never decoded with the page encoding). */
export function lowerName(b: Buffer, s: number, e: number): string {
  let out = '';
  for (let i = s; i < e; i++) {
    const c = b[i];
    out += String.fromCharCode(c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
  }
  return out;
}

/**
 * Finds the appropriate end tag `</name` followed by whitespace, '/' or '>' from `from`.
 * Returns the index of its '<', NEED_MORE, or `len` when `final` and there is none (text runs to EOF).
 */
export function findEndTag(b: Buffer, from: number, len: number, name: string, final: boolean): number {
  let p = from;
  for (;;) {
    const i = b.indexOf(LT, p);
    if (i < 0 || i >= len) return final ? len : NEED_MORE;
    const after = i + 2 + name.length;
    if (after >= len) {
      // Not enough bytes to tell whether this is the end tag.
      if (!final) return NEED_MORE;
      return len;
    }
    if (b[i + 1] === SLASH && eqLower(b, i + 2, i + 2 + name.length, name)) {
      const c = b[after];
      if (isWs(c) || c === SLASH || c === GT) return i;
    }
    p = i + 1;
  }
}

/** End of a comment whose `<!--` ends just before `k` (handles `<!-->`, `<!--->`, `--!>`). Returns the index after it. */
export function findCommentEnd(b: Buffer, k: number, len: number, final: boolean): number {
  if (k < len && b[k] === GT) return k + 1;
  if (k + 1 < len && b[k] === DASH && b[k + 1] === GT) return k + 2;
  let p = k;
  for (;;) {
    const i = b.indexOf(DASH, p);
    if (i < 0 || i >= len) return final ? len : NEED_MORE;
    if (i + 1 >= len) return final ? len : NEED_MORE;
    if (b[i + 1] !== DASH) {
      p = i + 1;
      continue;
    }
    let m = i + 2;
    while (m < len && b[m] === DASH) m++;
    if (m >= len) return final ? len : NEED_MORE;
    if (b[m] === GT) return m + 1;
    if (b[m] === BANG) {
      if (m + 1 >= len) return final ? len : NEED_MORE;
      if (b[m + 1] === GT) return m + 2;
    }
    p = m;
  }
}

/** Index after the next '>' from `k` (bogus comments, DOCTYPE), or NEED_MORE / `len` at the end. */
export function skipToGt(b: Buffer, k: number, len: number, final: boolean): number {
  const i = b.indexOf(GT, k);
  if (i < 0 || i >= len) return final ? len : NEED_MORE;
  return i + 1;
}
