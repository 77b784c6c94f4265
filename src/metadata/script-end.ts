/**
 * The end of a `<script>` element's content as the WHATWG tokenizer finds it: script data with its escaped
 * and double-escaped states, searched window by window. Byte-level like html-scan.ts, on any
 * ASCII-compatible encoding.
 */
import { eqLower, findEndTag, isAlpha, isWs, NEED_MORE } from './html-scan.js';

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const DASH = 0x2d;
const BANG = 0x21;

const COMMENT_OPEN = Buffer.from('<!--');
const SCRIPT_DATA = 0;
const ESCAPED = 1;
const DOUBLE_ESCAPED = 2;

/** Whether bytes at `i` are `script` followed by whitespace, '/' or '>' (NEED_MORE-aware: -1 if undecidable). */
function scriptWordAt(b: Buffer, i: number, len: number): number {
  if (i + 6 >= len) return -1;
  if (!eqLower(b, i, i + 6, 'script')) return 0;
  const c = b[i + 6];
  return isWs(c) || c === SLASH || c === GT ? 1 : 0;
}

/** Where the search for a script's end stopped for want of bytes, and in which tokenizer state: it resumes there. */
export interface ScriptCarry {
  state: number;
  dashes: number;
  at: number;
}

/** A carry for a search from the start of a script's content. */
export function scriptStart(): ScriptCarry {
  return { state: SCRIPT_DATA, dashes: 0, at: 0 };
}

/**
 * Finds the end tag of a `<script>` element whose content continues at `from` in the state `carry` holds,
 * honouring the tokenizer's escaped and double-escaped states (`<!-- document.write('<script>…</script>') -->`).
 * On NEED_MORE, `carry` says where and in which state to resume once more bytes are there.
 */
export function findScriptEnd(b: Buffer, from: number, len: number, final: boolean, carry: ScriptCarry): number {
  let state = carry.state;
  let dashes = carry.dashes;
  if (state === SCRIPT_DATA) {
    const plain = findEndTag(b, from, len, 'script', final);
    const end = plain < 0 ? len : plain;
    // Bounded to this script: an unbounded search would cross the rest of the document for every script.
    if (b.subarray(from, end).indexOf(COMMENT_OPEN) < 0) {
      // No "<!--" so far: still plain script data; the last bytes may start "</script" or "<!--".
      if (plain === NEED_MORE) carry.at = Math.max(from, len - 9);
      return plain;
    }
  }
  let i = from;
  while (i < len) {
    const c = b[i];
    if (c === DASH) {
      dashes++;
      i++;
      continue;
    }
    if (c === GT && dashes >= 2 && state !== SCRIPT_DATA) {
      state = SCRIPT_DATA;
      dashes = 0;
      i++;
      continue;
    }
    dashes = 0;
    if (c !== LT) {
      i++;
      continue;
    }
    if (i + 1 >= len) break;
    const n = b[i + 1];
    if (n === SLASH) {
      const w = scriptWordAt(b, i + 2, len);
      if (w < 0) break;
      if (w === 1) {
        if (state !== DOUBLE_ESCAPED) return i;
        state = ESCAPED;
      }
      i += 2;
      continue;
    }
    if (state === SCRIPT_DATA && n === BANG) {
      if (i + 3 >= len) break;
      if (b[i + 2] === DASH && b[i + 3] === DASH) {
        state = ESCAPED;
        dashes = 2;
        i += 4;
        continue;
      }
      i += 2;
      continue;
    }
    if (state === ESCAPED && isAlpha(n)) {
      const w = scriptWordAt(b, i + 1, len);
      if (w < 0) break;
      if (w === 1) state = DOUBLE_ESCAPED;
    }
    i++;
  }
  if (final) return len;
  carry.state = state;
  carry.dashes = dashes;
  carry.at = i;
  return NEED_MORE;
}
