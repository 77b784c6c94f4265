/**
 * Mutated PDFs, PKCS#12 files and Factur-X XMLs from a seed corpus, for the PDF fuzz (the suite's fixed seed
 * and `npm run bench -- pdf-fuzz`). The same seed gives the same inputs. PDF mutations: bit flips,
 * truncations, an object spliced in from another file, a number made huge (a /Count, /Size, /N, /Length or
 * xref count), a reference pointed at another object (a cycle, often), and white space between tokens
 * swapped for a byte one reader takes for white space and another does not; half of them keep the length
 * of what they change, so the cross-reference table still finds the objects and the deep readers run. One
 * in four is made inside a deflated stream (an object stream's objects, a page's content, an XMP packet, a
 * cross-reference stream's rows) and deflated again, since a flip in the compressed bytes only ever stops
 * the inflate: the stream's new bytes keep its place in the file where they fit, so the offsets still hold.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

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

/**
 * Bytes that are white space to one reader and part of a token to another: NUL and form feed are PDF's,
 * the vertical tab is qpdf's too but not poppler's, the no-break space and NEL are neither's but a
 * regular expression's `\s` takes the first.
 */
const OTHER_WHITE = [0x00, 0x0b, 0x0c, 0xa0, 0x85];

/** One to three white-space bytes of `bytes` (half the time those inside a reference) swapped for OTHER_WHITE's, offsets kept. */
function swapWhiteSpace(rng: Rng, bytes: Buffer): Mutant | undefined {
  const inRefs = rng() < 0.5;
  const gaps = matches(bytes, inRefs ? /(?<=\d)[ \n](?=\d+[ \n]R\b)|(?<=\d[ \n]\d+)[ \n](?=R\b)/g : /[ \n\r]/g);
  if (gaps.length === 0) return undefined;
  const out = Buffer.from(bytes);
  const swaps = 1 + int(rng, 3);
  const made: string[] = [];
  for (let i = 0; i < swaps; i++) {
    const [at] = pick(rng, gaps);
    out[at] = pick(rng, OTHER_WHITE);
    made.push(`${at}: 0x${out[at].toString(16).padStart(2, '0')}`);
  }
  return { bytes: out, how: `white space${inRefs ? ' in references' : ''} swapped (${made.join(', ')})` };
}

/** One mutation of `pdf` (others from `corpus` may be spliced in). */
export function mutatePdf(rng: Rng, pdf: Buffer, corpus: readonly Buffer[]): Mutant {
  if (rng() < 0.25) {
    const inside = mutateInsideStream(rng, pdf);
    if (inside) return inside;
  }
  const kind = int(rng, 7);
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
  if (kind === 5) return swapWhiteSpace(rng, pdf) ?? { bytes: pdf, how: 'no white space' };
  // A page tree or name tree node listing itself: the classic exponential walk.
  const kids = matches(pdf, /\/Kids\s*\[/g);
  const owners = matches(pdf, /\b\d+(?= 0 obj)/g);
  if (kids.length === 0) return { bytes: pdf, how: 'no /Kids' };
  const [at, text] = pick(rng, kids);
  const owner = owners.filter(([start]) => start < at).at(-1)?.[1] ?? '1';
  return { bytes: splice(pdf, at + text.length, 0, `${owner} 0 R ${owner} 0 R `), how: `object ${owner} lists itself in /Kids` };
}

/** A deflated stream with a direct /Length whose bytes inflate: where its data lies, and its dictionary. */
interface DeflatedStream {
  /** Where the digits of its /Length start, and how many there are. */
  lengthAt: number;
  lengthDigits: number;
  /** Its data: from `dataAt`, `length` bytes, inflated to `decoded`. */
  dataAt: number;
  length: number;
  decoded: Buffer;
  /** The object stream's /First (where its objects start, after the header of number and offset pairs). */
  first?: number;
}

/** The deflated streams of `pdf` a mutation can reach into (encrypted ones do not inflate, so none of theirs). */
function deflatedStreams(pdf: Buffer): DeflatedStream[] {
  const text = pdf.toString('latin1');
  const found: DeflatedStream[] = [];
  for (const [at, keyword] of matches(pdf, />>\s*stream\r?\n/g)) {
    const dict = text.slice(text.lastIndexOf(' obj', at), at + 2);
    const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict);
    if (!dict.includes('/FlateDecode') || !length) continue;
    const dataAt = at + keyword.length;
    try {
      const decoded = zlib.inflateSync(pdf.subarray(dataAt, dataAt + Number(length[1])));
      const first = /\/First\s+(\d+)/.exec(dict);
      found.push({
        lengthAt: at - dict.length + 2 + length.index + length[0].length - length[1].length,
        lengthDigits: length[1].length,
        dataAt,
        length: Number(length[1]),
        decoded,
        first: first ? Number(first[1]) : undefined,
      });
    } catch {
      // Not a stream this mutation can reach.
    }
  }
  return found;
}

/**
 * The object of an object stream whose bytes hold `at` (an index into the decoded stream): the header's
 * pairs of object number and offset from /First, the last one starting at or before `at`.
 */
function objectStreamOwner(stream: DeflatedStream, at: number): string | undefined {
  if (stream.first === undefined) return undefined;
  const header = stream.decoded.toString('latin1', 0, stream.first).trim().split(/\s+/);
  let owner: string | undefined;
  for (let i = 0; i + 1 < header.length; i += 2) if (stream.first + Number(header[i + 1]) <= at) owner = header[i];
  return owner;
}

/** One mutation made to the inflated bytes of a stream (see the module comment), or undefined when none inflates. */
function mutateInsideStream(rng: Rng, pdf: Buffer): Mutant | undefined {
  const streams = deflatedStreams(pdf);
  if (streams.length === 0) return undefined;
  const stream = pick(rng, streams);
  const decoded = stream.decoded;
  const text = decoded.toString('latin1');
  let bytes: Buffer;
  let how: string;
  const kind = int(rng, 6);
  const swapped = kind === 5 ? swapWhiteSpace(rng, decoded) : undefined;
  const numbers = matches(decoded, /\b\d+\b/g);
  const refs = matches(decoded, /\b\d+ 0 R\b/g);
  const kids = matches(decoded, /\/Kids\s*\[/g);
  if (kind === 1) {
    const at = int(rng, decoded.length);
    [bytes, how] = [decoded.subarray(0, at), `truncated at ${at}`];
  } else if (kind === 2 && numbers.length) {
    const [at, digits] = pick(rng, numbers);
    const value = rng() < 0.5 ? '9'.repeat(digits.length) : pick(rng, HUGE);
    [bytes, how] = [splice(decoded, at, digits.length, value), `${digits} → ${value}`];
  } else if (kind === 3 && refs.length) {
    const [at, ref] = pick(rng, refs);
    const old = ref.slice(0, ref.indexOf(' '));
    const fits = refs.map(([, r]) => r.slice(0, r.indexOf(' '))).filter((n) => n.length === old.length);
    const target = pick(rng, fits);
    [bytes, how] = [splice(decoded, at, old.length, target), `${ref} → ${target} 0 R`];
  } else if (swapped) {
    [bytes, how] = [swapped.bytes, swapped.how];
  } else if (kind === 4 && kids.length) {
    const [at, opening] = pick(rng, kids);
    const owner = objectStreamOwner(stream, at) ?? text.match(/\b\d+(?= 0 R)/)?.[0] ?? '1';
    [bytes, how] = [
      splice(decoded, at + opening.length, 0, `${owner} 0 R ${owner} 0 R `),
      `object ${owner} lists itself in /Kids`,
    ];
  } else {
    bytes = Buffer.from(decoded);
    const flips = 1 + int(rng, 8);
    for (let i = 0; i < flips; i++) bytes[int(rng, bytes.length)] ^= 1 << int(rng, 8);
    how = `${flips} bit flips`;
  }
  const deflated = zlib.deflateSync(bytes, { level: 9 });
  const where = `inside the stream at ${stream.dataAt}: ${how}`;
  // Where the new data fits, the rest of the old is white space after `endstream` and the /Length's digits
  // are padded with spaces, so every offset after the stream still holds.
  if (deflated.length <= stream.length && String(deflated.length).length <= stream.lengthDigits) {
    const endstream = pdf.indexOf('endstream', stream.dataAt + stream.length, 'latin1');
    const tail = Buffer.concat([Buffer.from('\nendstream', 'latin1'), Buffer.alloc(stream.length - deflated.length, 0x20)]);
    const withData = splice(pdf, stream.dataAt, endstream + 'endstream'.length - stream.dataAt, Buffer.concat([deflated, tail]));
    const length = String(deflated.length).padEnd(stream.lengthDigits, ' ');
    return { bytes: splice(withData, stream.lengthAt, stream.lengthDigits, length), how: where };
  }
  // Where it does not (deflate here rarely matches the writer's bytes), the object is written again as an
  // incremental update, the way an editor saves: the old offsets hold and the newer object wins.
  const update = incrementalUpdate(pdf, stream, deflated);
  if (update) return { bytes: update, how: `${where} (an incremental update)` };
  const withData = splice(pdf, stream.dataAt, stream.length, deflated);
  return {
    bytes: splice(withData, stream.lengthAt, stream.lengthDigits, String(deflated.length)),
    how: `${where} (offsets shifted)`,
  };
}

/**
 * `pdf` with the object of `stream` appended again with `data` as its stream, a cross-reference section for
 * it and a trailer chained to the last one by /Prev; undefined when the file has no trailer to chain to.
 */
function incrementalUpdate(pdf: Buffer, stream: DeflatedStream, data: Buffer): Buffer | undefined {
  const text = pdf.toString('latin1');
  const header = /(\d+)\s+(\d+)\s+obj\s*$/.exec(text.slice(0, text.indexOf('<<', text.lastIndexOf(' obj', stream.lengthAt))));
  const root = [...text.matchAll(/\/Root\s+\d+\s+\d+\s+R/g)].at(-1)?.[0];
  const size = [...text.matchAll(/\/Size\s+(\d+)/g)].at(-1)?.[1];
  const prev = [...text.matchAll(/startxref\s+(\d+)/g)].at(-1)?.[1];
  if (!header || !root || !size || !prev) return undefined;
  const dictAt = text.indexOf('<<', header.index);
  const dictEnd = stream.dataAt - (/>>\s*stream\r?\n$/.exec(text.slice(dictAt, stream.dataAt))?.[0].length ?? 0) + 2;
  const lengthInDict = stream.lengthAt - dictAt;
  const dict = text.slice(dictAt, dictEnd);
  const newDict = dict.slice(0, lengthInDict) + String(data.length) + dict.slice(lengthInDict + stream.lengthDigits);
  const [num, gen] = [header[1], header[2]];
  const objectAt = pdf.length + 1;
  const object = Buffer.concat([
    Buffer.from(`\n${num} ${gen} obj\n${newDict}\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream\nendobj\n', 'latin1'),
  ]);
  const xrefAt = pdf.length + object.length;
  const entry = `${String(objectAt).padStart(10, '0')} ${gen.padStart(5, '0')} n \n`;
  const trailer = `xref\n${num} 1\n${entry}trailer\n<< /Size ${size} ${root} /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.concat([pdf, object, Buffer.from(trailer, 'latin1')]);
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
