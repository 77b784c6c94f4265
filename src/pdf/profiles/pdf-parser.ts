/**
 * A small parser for PDF object syntax (ISO 32000 7.3), from a latin1 string. Numbers, strings and keywords
 * keep their source text (pdf-objects.ts), so an object read and written back says exactly what it said.
 */
import { type PdfDict, PdfName, PdfRaw, PdfRef, type PdfValue } from './pdf-objects.js';
import { afterWhite, CHAR_CLASS, isDigits, referenceTail } from './pdf-tokens.js';

/** Deepest nesting of arrays and dictionaries read: a file's real objects nest a few levels, and the reader recurses. */
const MAX_NESTING = 256;

/** Reads PDF object syntax from a latin1 string (one char per byte). */
export class PdfParser {
  pos: number;
  private nesting = 0;

  constructor(
    readonly text: string,
    pos = 0,
  ) {
    this.pos = pos;
  }

  /** Skips white space and comments. */
  skipWhite(): void {
    this.pos = afterWhite(this.text, this.pos);
  }

  /** The regular token at the current position (a number, keyword or operator), consumed. */
  word(): string {
    const start = this.pos;
    const t = this.text;
    while (this.pos < t.length && CHAR_CLASS[t.charCodeAt(this.pos) & 0xff] === 0) this.pos++;
    return this.text.slice(start, this.pos);
  }

  /** A literal string `( … )` with balanced parentheses and escapes, returned as written. */
  literalString(): string {
    const t = this.text;
    const start = this.pos;
    let depth = 0;
    for (; this.pos < t.length; this.pos++) {
      const c = t[this.pos];
      if (c === '\\') this.pos++;
      else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) {
        this.pos++;
        return t.slice(start, this.pos);
      }
    }
    throw new Error('unterminated string');
  }

  /** The next value; an integer followed by `gen R` is read as a reference. */
  value(): PdfValue {
    if (++this.nesting > MAX_NESTING) throw new Error(`objects nested more than ${MAX_NESTING} deep at ${this.pos}`);
    try {
      return this.valueHere();
    } finally {
      this.nesting--;
    }
  }

  /**
   * Reads past the next value as `value` reads it (the same errors at the same places) without building
   * it, and raises `longest.name` and `longest.string` to the longest name (after its slash, keys too)
   * and string token (with its delimiters) met on the way.
   */
  skipValue(longest: { name: number; string: number }): void {
    if (++this.nesting > MAX_NESTING) throw new Error(`objects nested more than ${MAX_NESTING} deep at ${this.pos}`);
    try {
      this.skipHere(longest);
    } finally {
      this.nesting--;
    }
  }

  private skipHere(longest: { name: number; string: number }): void {
    this.skipWhite();
    const t = this.text;
    const c = t.charCodeAt(this.pos);
    if (c === 0x2f /* / */) {
      this.pos++;
      const start = this.pos;
      this.word();
      longest.name = Math.max(longest.name, this.pos - start);
      return;
    }
    if (c === 0x28 /* ( */) {
      const start = this.pos;
      this.literalString();
      longest.string = Math.max(longest.string, this.pos - start);
      return;
    }
    if (c === 0x3c /* < */ && t.charCodeAt(this.pos + 1) === 0x3c) {
      this.pos += 2;
      for (;;) {
        this.skipWhite();
        if (t.startsWith('>>', this.pos)) {
          this.pos += 2;
          return;
        }
        if (t[this.pos] !== '/') throw new Error(`dictionary key expected at ${this.pos}`);
        this.pos++;
        const start = this.pos;
        this.word();
        longest.name = Math.max(longest.name, this.pos - start);
        this.skipValue(longest);
      }
    }
    if (c === 0x3c) {
      const end = t.indexOf('>', this.pos);
      if (end < 0) throw new Error('unterminated hex string');
      longest.string = Math.max(longest.string, end + 1 - this.pos);
      this.pos = end + 1;
      return;
    }
    if (c === 0x5b /* [ */) {
      this.pos++;
      for (;;) {
        this.skipWhite();
        if (t[this.pos] === ']') {
          this.pos++;
          return;
        }
        if (this.pos >= t.length) throw new Error('unterminated array');
        this.skipValue(longest);
      }
    }
    const start = this.pos;
    const word = this.word();
    if (word === '') throw new Error(`unexpected ${JSON.stringify(t[start])} at ${this.pos}`);
    if (isDigits(word)) {
      const ref = referenceTail(t, this.pos);
      if (ref) this.pos = ref.end;
    }
  }

  private valueHere(): PdfValue {
    this.skipWhite();
    const t = this.text;
    const c = t[this.pos];
    if (c === '/') {
      this.pos++;
      return new PdfName(this.word());
    }
    if (c === '(') return new PdfRaw(this.literalString());
    if (c === '<' && t[this.pos + 1] === '<') {
      this.pos += 2;
      const dict: PdfDict = new Map();
      for (;;) {
        this.skipWhite();
        if (t.startsWith('>>', this.pos)) {
          this.pos += 2;
          return dict;
        }
        if (t[this.pos] !== '/') throw new Error(`dictionary key expected at ${this.pos}`);
        this.pos++;
        const key = this.word();
        dict.set(key, this.value());
      }
    }
    if (c === '<') {
      const end = t.indexOf('>', this.pos);
      if (end < 0) throw new Error('unterminated hex string');
      const raw = t.slice(this.pos, end + 1);
      this.pos = end + 1;
      return new PdfRaw(raw);
    }
    if (c === '[') {
      this.pos++;
      const items: PdfValue[] = [];
      for (;;) {
        this.skipWhite();
        if (t[this.pos] === ']') {
          this.pos++;
          return items;
        }
        if (this.pos >= t.length) throw new Error('unterminated array');
        items.push(this.value());
      }
    }
    const word = this.word();
    if (word === '') throw new Error(`unexpected ${JSON.stringify(c)} at ${this.pos}`);
    if (isDigits(word)) {
      // `num gen R`: look ahead without consuming unless both follow.
      const ref = referenceTail(t, this.pos);
      if (ref) {
        this.pos = ref.end;
        return new PdfRef(Number(word), ref.gen);
      }
    }
    return new PdfRaw(word);
  }
}
