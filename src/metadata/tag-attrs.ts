/**
 * The attributes of a start tag as the WHATWG tokenizer's attribute states read them: recorded by position
 * (`TagAttrs`) or only skipped to the tag's end. Byte-level like html-scan.ts, on any ASCII-compatible encoding.
 */
import { EOF_IN_TAG, eqLower, isWs, NEED_MORE } from './html-scan.js';

const GT = 0x3e;
const SLASH = 0x2f;
const EQ = 0x3d;
const DQ = 0x22;
const SQ = 0x27;

/**
 * Attribute positions of the last scanned tag: quadruples (nameStart, nameEnd, valueStart, valueEnd),
 * valueStart = -1 when the attribute has no value. Only the first MAX_ATTRS are kept.
 */
export class TagAttrs {
  /**
   * A bound on memory (16 bytes an attribute), not on work: the scan of a tag is linear in its length either
   * way. The DOM keeps every attribute; no real page comes near this many on one tag (a 5 MiB page of
   * `a=1` could reach over a million, 20 MiB of positions).
   */
  static readonly MAX_ATTRS = 16_384;
  /** Room for this many attributes at first; it doubles as a tag needs more. */
  private static readonly FIRST_ROOM = 48;
  pos = new Int32Array(TagAttrs.FIRST_ROOM * 4);
  count = 0;
  selfClosing = false;
  /** Whether the attribute read last was kept (false past MAX_ATTRS): its value goes to it only then. */
  private keptLast = false;

  /** Index of the first attribute named `lit` (lower-case), or -1. Duplicates after the first are ignored, as in the DOM. */
  find(b: Buffer, lit: string): number {
    for (let i = 0; i < this.count; i++) {
      if (eqLower(b, this.pos[i * 4], this.pos[i * 4 + 1], lit)) return i;
    }
    return -1;
  }

  private add(ns: number, ne: number): void {
    this.keptLast = this.count < TagAttrs.MAX_ATTRS;
    if (!this.keptLast) return;
    const o = this.count * 4;
    if (o === this.pos.length) {
      const room = new Int32Array(Math.min(2 * this.pos.length, TagAttrs.MAX_ATTRS * 4));
      room.set(this.pos);
      this.pos = room;
    }
    this.pos[o] = ns;
    this.pos[o + 1] = ne;
    this.pos[o + 2] = -1;
    this.pos[o + 3] = -1;
    this.count++;
  }

  private setValue(vs: number, ve: number): void {
    if (this.keptLast) {
      this.pos[(this.count - 1) * 4 + 2] = vs;
      this.pos[(this.count - 1) * 4 + 3] = ve;
    }
  }

  /**
   * Scans attributes from `k` (just after the tag name) to the closing `>`, per the tokenizer's attribute
   * states. Returns the index after `>`, NEED_MORE, or EOF_IN_TAG when `final` and the input ends first.
   */
  scan(b: Buffer, k: number, len: number, final: boolean): number {
    this.count = 0;
    this.selfClosing = false;
    this.keptLast = false;
    const incomplete = final ? EOF_IN_TAG : NEED_MORE;
    for (;;) {
      // before attribute name
      while (k < len && isWs(b[k])) k++;
      if (k >= len) return incomplete;
      let c = b[k];
      if (c === GT) return k + 1;
      if (c === SLASH) {
        if (k + 1 >= len) return incomplete;
        if (b[k + 1] === GT) {
          this.selfClosing = true;
          return k + 2;
        }
        k++;
        continue;
      }
      // attribute name: a leading '=' belongs to the name
      const ns = k;
      k++;
      while (k < len) {
        c = b[k];
        if (isWs(c) || c === SLASH || c === GT || c === EQ) break;
        k++;
      }
      if (k >= len) return incomplete;
      this.add(ns, k);
      // after attribute name
      while (k < len && isWs(b[k])) k++;
      if (k >= len) return incomplete;
      if (b[k] !== EQ) continue;
      k++;
      // before attribute value
      while (k < len && isWs(b[k])) k++;
      if (k >= len) return incomplete;
      c = b[k];
      if (c === DQ || c === SQ) {
        const close = b.indexOf(c, k + 1);
        if (close < 0 || close >= len) return incomplete;
        this.setValue(k + 1, close);
        k = close + 1;
        // after a quoted value anything but whitespace, '/' or '>' starts the next attribute
        continue;
      }
      if (c === GT) return k + 1;
      const vs = k;
      while (k < len && !isWs(b[k]) && b[k] !== GT) k++;
      if (k >= len) return incomplete;
      this.setValue(vs, k);
    }
  }
}

/**
 * `TagAttrs.scan` without recording anything: the end of a tag whose attributes do not matter. Returns the
 * index after `>`, NEED_MORE, or EOF_IN_TAG when `final` and the input ends first.
 */
export function skipAttributes(b: Buffer, k: number, len: number, final: boolean): number {
  const incomplete = final ? EOF_IN_TAG : NEED_MORE;
  for (;;) {
    // before attribute name
    while (k < len && isWs(b[k])) k++;
    if (k >= len) return incomplete;
    let c = b[k];
    if (c === GT) return k + 1;
    if (c === SLASH) {
      if (k + 1 >= len) return incomplete;
      if (b[k + 1] === GT) return k + 2;
      k++;
      continue;
    }
    // attribute name: a leading '=' belongs to the name
    k++;
    while (k < len) {
      c = b[k];
      if (isWs(c) || c === SLASH || c === GT || c === EQ) break;
      k++;
    }
    if (k >= len) return incomplete;
    // after attribute name
    while (k < len && isWs(b[k])) k++;
    if (k >= len) return incomplete;
    if (b[k] !== EQ) continue;
    k++;
    // before attribute value
    while (k < len && isWs(b[k])) k++;
    if (k >= len) return incomplete;
    c = b[k];
    if (c === DQ || c === SQ) {
      const close = b.indexOf(c, k + 1);
      if (close < 0 || close >= len) return incomplete;
      k = close + 1;
      continue;
    }
    if (c === GT) return k + 1;
    while (k < len && !isWs(b[k]) && b[k] !== GT) k++;
    if (k >= len) return incomplete;
  }
}
