/**
 * A content stream read operator by operator (ISO 32000 7.8.2): each operator with its operands' source
 * text and the byte span from its first operand to its end, so a caller can insert marked-content operators
 * between graphics objects without rewriting anything else.
 */

import { PdfParser } from './pdf-parser.js';
import { isDelimiter, isWhite } from './pdf-tokens.js';

/** One operator as met in the stream; valid only during the visit (the scanner reuses it). */
export interface ContentOp {
  op: string;
  /** How many operands it has. */
  count: number;
  /** Operand `i`'s source text (`/F4`, `12`, `<0031>`, `[(a) -20 (b)]`, `<</MCID 0>>`). */
  operand(i: number): string;
  /** Where its first operand (or the operator itself) starts. */
  start: number;
  /** Just after the operator (after `EI` for an inline image). */
  end: number;
}

/** Calls `visit` for every operator of a content stream given as latin1 text. */
export function scanContent(text: string, visit: (op: ContentOp) => void): void {
  const parser = new PdfParser(text);
  // Operand spans in reused arrays: a page has tens of thousands of operands, few of which are read.
  const starts: number[] = [];
  const ends: number[] = [];
  const current: ContentOp = {
    op: '',
    count: 0,
    operand: (i) => (i < current.count ? text.slice(starts[i], ends[i]) : ''),
    start: 0,
    end: 0,
  };
  let count = 0;
  for (;;) {
    parser.skipWhite();
    if (parser.pos >= text.length) return;
    const at = parser.pos;
    const c = text.charCodeAt(at);
    if (c === 0x2f /* / */) {
      parser.pos++;
      parser.word();
    } else if (c === 0x28 /* ( */) parser.literalString();
    else if (c === 0x3c /* < */ && text.charCodeAt(at + 1) !== 0x3c) parser.pos = text.indexOf('>', at) + 1 || text.length;
    else if (c === 0x5b /* [ */) skipArray(parser);
    else if (c === 0x3c) parser.value();
    else if (c === 0x5d || c === 0x3e || c === 0x29 || c === 0x7b || c === 0x7d) parser.pos++;
    else {
      const word = parser.word();
      if (word === '') {
        parser.pos++;
        continue;
      }
      const numeric = c === 0x2d || c === 0x2b || c === 0x2e || (c >= 0x30 && c <= 0x39);
      if (!numeric) {
        if (word === 'ID') parser.pos = inlineImageEnd(text, parser.pos);
        current.op = word;
        current.count = count;
        current.start = count > 0 ? starts[0] : at;
        current.end = parser.pos;
        visit(current);
        count = 0;
        continue;
      }
    }
    starts[count] = at;
    ends[count] = parser.pos;
    count++;
  }
}

/** Moves past an array without building it (TJ arrays are most of a text-heavy page). */
function skipArray(parser: PdfParser): void {
  const text = parser.text;
  let depth = 0;
  while (parser.pos < text.length) {
    const c = text.charCodeAt(parser.pos);
    if (c === 0x28) parser.literalString();
    else if (c === 0x3c && text.charCodeAt(parser.pos + 1) !== 0x3c)
      parser.pos = text.indexOf('>', parser.pos) + 1 || text.length;
    else if (c === 0x3c) parser.value();
    else {
      parser.pos++;
      if (c === 0x5b) depth++;
      else if (c === 0x5d && --depth === 0) return;
    }
  }
}

/** Just after the `EI` that ends an inline image's data (binary, so found by its white-space frame). */
function inlineImageEnd(text: string, from: number): number {
  let pos = from + 1;
  for (;;) {
    const ei = text.indexOf('EI', pos);
    if (ei < 0) return text.length;
    const before = text.charCodeAt(ei - 1);
    const after = ei + 2 >= text.length ? 0x20 : text.charCodeAt(ei + 2);
    if (isWhite(before) && isDelimiter(after)) return ei + 2;
    pos = ei + 2;
  }
}
