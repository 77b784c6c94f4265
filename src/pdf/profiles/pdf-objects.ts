/**
 * PDF objects as the profile engine holds and writes them (ISO 32000 7.3): the values, their serialiser,
 * and what reads or makes a string token. Numbers, strings and keywords keep their source text, so an object
 * read (pdf-parser.ts) and written back says exactly what it said; only what the engine changes is new.
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
