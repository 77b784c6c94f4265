/**
 * PDF objects as the profile engine reads and writes them: a small parser for the object syntax (ISO 32000
 * 7.3) and its serialiser. Numbers, strings and keywords keep their source text, so an object read and
 * written back says exactly what it said; only what the engine changes is new.
 */
import { pdfTextString } from '../pdf-info.js';

/** A PDF name (`/Type`), its text after the slash as written (`#xx` escapes kept). */
export class PdfName {
  constructor(readonly name: string) {}
}

/** A token written back verbatim: a number, a string (`(…)` or `<…>`), `true`, `false` or `null`. */
export class PdfRaw {
  constructor(readonly text: string) {}
}

/** An indirect reference `num gen R`. */
export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

/** A PDF dictionary: keys are names without the slash, in the order read or set. */
export type PdfDict = Map<string, PdfValue>;

/** Any PDF object value. */
export type PdfValue = PdfName | PdfRaw | PdfRef | PdfDict | PdfValue[];

/**
 * Per character code: 1 white space, 2 delimiter, 0 regular (a table: the scanners ask for every byte). White
 * space is PDF's six and the vertical tab, which qpdf reads as white space too: `4 0\vR` is a reference to
 * qpdf, so every scanner here must read it as one and renumber it, or a part's text copied as written would
 * point, in the assembly, at whatever object has that number there.
 */
export const CHAR_CLASS = new Uint8Array(256);
const CLASS = CHAR_CLASS;
const WHITE_CODES = [0x00, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20];
for (const c of WHITE_CODES) CLASS[c] = 1;
for (const c of '()<>[]{}/%') CLASS[c.charCodeAt(0)] = 2;

/** CHAR_CLASS's white space as a regular expression's class, for the scanners that match with one. */
export const WHITE_SPACE = `[${WHITE_CODES.map((c) => `\\x${c.toString(16).padStart(2, '0')}`).join('')}]`;

/** An object's header at its offset, `num gen obj`: the number and the generation. */
export const OBJECT_HEAD = new RegExp(`^(\\d+)${WHITE_SPACE}+(\\d+)${WHITE_SPACE}+obj`);

/** Whether the character code is white space: PDF's six and the vertical tab (see CHAR_CLASS). */
export function isWhite(code: number): boolean {
  return CLASS[code & 0xff] === 1;
}

/** Whether the character code ends a regular token (white space or a delimiter). */
export function isDelimiter(code: number): boolean {
  return CLASS[code & 0xff] !== 0;
}

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
    while (this.pos < t.length && CLASS[t.charCodeAt(this.pos) & 0xff] === 0) this.pos++;
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

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isDigits(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (!isDigit(word.charCodeAt(i))) return false;
  return word.length > 0;
}

/** Where the white space and comments from `pos` end (a comment runs to the end of its line). */
function afterWhite(t: string, pos: number): number {
  let i = pos;
  while (i < t.length) {
    const c = t.charCodeAt(i);
    if (CLASS[c & 0xff] === 1) i++;
    else if (c === 0x25) {
      while (i < t.length && t.charCodeAt(i) !== 0x0a && t.charCodeAt(i) !== 0x0d) i++;
    } else break;
  }
  return i;
}

/**
 * The ` gen R` of a reference whose object number ends at `pos`: white space, digits, white space, `R`
 * not followed by a regular character, where comments count as white space (qpdf and poppler read
 * `4 0 %note` and `R` on the next line as one reference). The parser and the text copy (copy-text.ts) both
 * read references here, so a reference either renumbers is one the other copies, never text left as it
 * stood for a reader to resolve against the assembly's objects. Each gap is scanned at most twice, by the
 * numbers on either side of it, so the whole read stays linear.
 */
export function referenceTail(t: string, pos: number): { gen: number; end: number } | undefined {
  const digits = afterWhite(t, pos);
  if (digits === pos) return undefined;
  let i = digits;
  while (i < t.length && isDigit(t.charCodeAt(i))) i++;
  const afterDigits = i;
  if (afterDigits === digits) return undefined;
  i = afterWhite(t, i);
  if (i === afterDigits || t.charCodeAt(i) !== 0x52) return undefined;
  i++;
  if (i < t.length && !isDelimiter(t.charCodeAt(i))) return undefined;
  return { gen: Number(t.slice(digits, afterDigits)), end: i };
}

/** Writes a value in PDF syntax. */
export function serialize(value: PdfValue): string {
  if (value instanceof PdfName) return `/${value.name}`;
  if (value instanceof PdfRaw) return value.text;
  if (value instanceof PdfRef) return `${value.num} ${value.gen} R`;
  if (Array.isArray(value)) return `[${value.map(serialize).join(' ')}]`;
  let out = '<<';
  for (const [key, v] of value) out += `/${key} ${serialize(v)}`;
  return `${out}>>`;
}

/** A dictionary from entries, for objects the engine makes. */
export function dict(entries: Record<string, PdfValue>): PdfDict {
  return new Map(Object.entries(entries));
}

/** A name value. */
export function name(n: string): PdfName {
  return new PdfName(n);
}

/** A number or keyword written as given. */
export function raw(text: string | number | boolean): PdfRaw {
  return new PdfRaw(String(text));
}

/** A PDF text string (pdf-info.ts writes it: literal when printable ASCII, else UTF-16BE hex). */
export function textString(value: string): PdfRaw {
  return new PdfRaw(pdfTextString(value));
}

/** Whether a value is a dictionary. */
export function isDict(value: PdfValue | undefined): value is PdfDict {
  return value instanceof Map;
}

/** The name a value holds, if it is one. */
export function nameOf(value: PdfValue | undefined): string | undefined {
  return value instanceof PdfName ? value.name : undefined;
}

/** The bytes a PDF string token stands for (literal escapes or hex digits decoded). */
export function stringBytes(token: string): Buffer {
  if (token.startsWith('<')) {
    const hex = token.slice(1, -1).replace(/\s+/g, '');
    return Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex');
  }
  const out: number[] = [];
  const body = token.slice(1, -1);
  const escapes: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12, '(': 40, ')': 41, '\\': 92 };
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out.push(body.charCodeAt(i));
      continue;
    }
    const next = body[++i];
    if (next === undefined) break;
    if (next in escapes) out.push(escapes[next]);
    else if (/[0-7]/.test(next)) {
      let octal = next;
      while (octal.length < 3 && /[0-7]/.test(body[i + 1] ?? '')) octal += body[++i];
      out.push(Number.parseInt(octal, 8) & 0xff);
    } else if (next === '\r') {
      if (body[i + 1] === '\n') i++;
    } else if (next !== '\n') out.push(body.charCodeAt(i));
  }
  return Buffer.from(out);
}

/** The text a PDF text string token holds (UTF-16BE with a BOM, else PDFDocEncoding read as latin1). */
export function stringText(token: string): string {
  const bytes = stringBytes(token);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return Buffer.from(bytes.subarray(2)).swap16().toString('utf16le');
  return bytes.toString('latin1');
}
