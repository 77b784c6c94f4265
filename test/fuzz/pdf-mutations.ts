/**
 * Mutated PDFs, PKCS#12 files and Factur-X XMLs from a seed corpus, for the PDF fuzz (the suite's fixed seed
 * and `npm run bench -- pdf-fuzz`). The same seed gives the same inputs. PDF mutations: bit flips,
 * truncations, an object spliced in from another file, a number made huge (a /Count, /Size, /N, /Length or
 * xref count), and a reference pointed at another object (a cycle, often); half of them keep the length
 * of what they change, so the cross-reference table still finds the objects and the deep readers run.
 */
import fs from 'node:fs';
import path from 'node:path';

/** One mutated input and how it was made (printed with a failure, to replay it). */
export interface Mutant {
  bytes: Buffer;
  how: string;
}

type Rng = () => number;

const int = (rng: Rng, n: number) => Math.floor(rng() * n);
const pick = <T>(rng: Rng, items: readonly T[]): T => items[int(rng, items.length)];

/** The PDFs of test/fixtures/assemble, named. */
export function fixturePdfs(): Array<[string, Buffer]> {
  const dir = path.resolve('test/fixtures/assemble');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.pdf'))
    .map((f) => [f, fs.readFileSync(path.join(dir, f))]);
}

/** Every match of `re` in the latin1 text of `bytes`, as [start, text]. */
function matches(bytes: Buffer, re: RegExp): Array<[number, string]> {
  return [...bytes.toString('latin1').matchAll(re)].map((m) => [m.index, m[0]]);
}

/** `bytes` with `[start, start + length)` replaced by `text` (latin1). */
function splice(bytes: Buffer, start: number, length: number, text: string | Buffer): Buffer {
  const insert = typeof text === 'string' ? Buffer.from(text, 'latin1') : text;
  return Buffer.concat([bytes.subarray(0, start), insert, bytes.subarray(start + length)]);
}

const HUGE = ['1000000000', '2147483647', '99999999999999999999', '-1', '4294967296'];

/** One mutation of `pdf` (others from `corpus` may be spliced in). */
export function mutatePdf(rng: Rng, pdf: Buffer, corpus: readonly Buffer[]): Mutant {
  const kind = int(rng, 6);
  if (kind === 0) {
    const out = Buffer.from(pdf);
    const flips = 1 + int(rng, 8);
    for (let i = 0; i < flips; i++) out[int(rng, out.length)] ^= 1 << int(rng, 8);
    return { bytes: out, how: `${flips} bit flips` };
  }
  if (kind === 1) {
    const at = int(rng, pdf.length);
    return { bytes: pdf.subarray(0, at), how: `truncated at ${at}` };
  }
  if (kind === 2) {
    const donor = pick(rng, corpus);
    const objects = matches(donor, /\d+ 0 obj[\s\S]{0,2000}?endobj/g);
    const object = objects.length ? pick(rng, objects)[1] : '1 0 obj << /Type /Pages /Kids [1 0 R] /Count 1 >> endobj';
    const at = int(rng, pdf.length);
    return { bytes: splice(pdf, at, 0, `\n${object}\n`), how: `object spliced in at ${at}` };
  }
  if (kind === 3) {
    // A count, size or length made huge: in place of the digits, or of the same width (offsets kept).
    const counts = matches(pdf, /\/(Count|Size|N|Length|First|W) \d+|\n\d+ \d+\r?\n/g);
    if (counts.length === 0) return { bytes: pdf, how: 'no counts' };
    const [at, text] = pick(rng, counts);
    const digits = /\d+(?=\r?\n?$)/.exec(text) ?? /\d+$/.exec(text);
    if (!digits) return { bytes: pdf, how: 'no digits' };
    const start = at + digits.index;
    const sameWidth = rng() < 0.5;
    const value = sameWidth ? '9'.repeat(digits[0].length) : pick(rng, HUGE);
    return { bytes: splice(pdf, start, digits[0].length, value), how: `${text.trim()} → ${value}` };
  }
  if (kind === 4) {
    // A reference pointed at another object of the file, digits of the same width: trees that loop.
    const refs = matches(pdf, /\b\d+ 0 R\b/g);
    const nums = matches(pdf, /\b\d+(?= 0 obj)/g).map(([, n]) => n);
    if (refs.length === 0 || nums.length === 0) return { bytes: pdf, how: 'no references' };
    const [at, text] = pick(rng, refs);
    const old = text.slice(0, text.indexOf(' '));
    const fits = nums.filter((n) => n.length === old.length);
    const target = fits.length ? pick(rng, fits) : old;
    return { bytes: splice(pdf, at, old.length, target), how: `${text} → ${target} 0 R` };
  }
  // A page tree or name tree node listing itself: the classic exponential walk.
  const kids = matches(pdf, /\/Kids\s*\[/g);
  const owners = matches(pdf, /\b\d+(?= 0 obj)/g);
  if (kids.length === 0) return { bytes: pdf, how: 'no /Kids' };
  const [at, text] = pick(rng, kids);
  const owner = owners.filter(([start]) => start < at).at(-1)?.[1] ?? '1';
  return { bytes: splice(pdf, at + text.length, 0, `${owner} 0 R ${owner} 0 R `), how: `object ${owner} lists itself in /Kids` };
}

/**
 * One mutation of a PKCS#12 file: a truncation or bit flips. With `macTail` false the last 64 bytes (the
 * MAC's salt and iteration count) are left alone: until the MAC's iteration count is bounded before any
 * work, a flip there can ask for 2^31 iterations.
 */
export function mutatePkcs12(rng: Rng, p12: Buffer, macTail: boolean): Mutant {
  if (rng() < 0.3) {
    const at = int(rng, p12.length);
    return { bytes: p12.subarray(0, at), how: `truncated at ${at}` };
  }
  const out = Buffer.from(p12);
  const span = macTail ? out.length : Math.max(1, out.length - 64);
  const flips = 1 + int(rng, 4);
  for (let i = 0; i < flips; i++) out[int(rng, span)] ^= 1 << int(rng, 8);
  return { bytes: out, how: `${flips} bit flips${macTail ? '' : ' (MAC kept)'}` };
}

/** One mutation of an XML: bit flips, a truncation, an element repeated many times, or an entity bomb's shape. */
export function mutateXml(rng: Rng, xml: Buffer): Mutant {
  const text = xml.toString('utf8');
  const kind = int(rng, 4);
  if (kind === 0) {
    const out = Buffer.from(xml);
    for (let i = 0; i < 4; i++) out[int(rng, out.length)] ^= 1 << int(rng, 8);
    return { bytes: out, how: '4 bit flips' };
  }
  if (kind === 1) {
    const at = int(rng, xml.length);
    return { bytes: xml.subarray(0, at), how: `truncated at ${at}` };
  }
  if (kind === 2) {
    const lines = [...text.matchAll(/<ram:[A-Za-z]+>[^<]*<\/ram:[A-Za-z]+>/g)];
    if (lines.length === 0) return { bytes: xml, how: 'no leaf' };
    const line = pick(rng, lines);
    const times = 1 + int(rng, 5000);
    const out = text.slice(0, line.index) + line[0].repeat(times) + text.slice(line.index);
    return { bytes: Buffer.from(out, 'utf8'), how: `${line[0].slice(0, 40)} × ${times}` };
  }
  const bomb =
    '<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>';
  const body = text.replace(/^<\?xml[^>]*\?>/, '');
  return {
    bytes: Buffer.from(`<?xml version="1.0"?>${bomb}${body.replace('</ram:ID>', '&d;</ram:ID>')}`, 'utf8'),
    how: 'entity expansion',
  };
}
