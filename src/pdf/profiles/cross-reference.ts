/**
 * A PDF's classic cross-reference sections, read from `startxref` back along /Prev: where each object in
 * use starts, at which generation, and the newest trailer. A file that is not laid out that way (a
 * cross-reference stream, encryption) is refused. Every count is believed only when the bytes that would
 * hold it are there, and the /Prev walk remembers what it visited, so a hostile file costs its size.
 */
import { isDict, type PdfDict, PdfRaw, type PdfValue } from './pdf-objects.js';
import { PdfParser } from './pdf-parser.js';
import { WHITE_SPACE } from './pdf-tokens.js';
import { UnreadablePdf } from './unreadable-pdf.js';

const MAX_SECTIONS = 64;
/** Bytes of one classic cross-reference entry (ISO 32000 7.5.4). */
const XREF_ENTRY_BYTES = 20;
/** A classic cross-reference entry without its end of line: offset, generation, in use or free. */
const XREF_ENTRY = /^\d{10} \d{5} [nf]$/;
/** `startxref` and the offset after it; white space as the object syntax has it (a NUL is white space, a no-break space is not). */
const STARTXREF = new RegExp(`^startxref${WHITE_SPACE}+(\\d+)`);
/** A cross-reference subsection's first object number and count, on a line of their own. */
const SUBSECTION_HEAD = new RegExp(`^${WHITE_SPACE}*(\\d+)${WHITE_SPACE}+(\\d+)[ \\t]*\\r?\\n`);

/** What a file's cross-reference sections say, the newest section's entry winning. */
export interface CrossReference {
  /** The newest section's trailer. */
  trailer: PdfDict;
  /** Where each object listed as in use starts (`N G obj`). */
  offsets: Map<number, number>;
  /** The generation of each object listed at one other than 0. */
  generations: Map<number, number>;
  /** The trailer's /Size: the number an update's first new object takes. */
  size: number;
  /** Where the newest section starts (an update's /Prev). */
  lastXref: number;
}

/** Reads the cross-reference sections of a PDF given as latin1 text (one char per byte); UnreadablePdf when it cannot. */
export function readCrossReference(text: string): CrossReference {
  const offsets = new Map<number, number>();
  const generations = new Map<number, number>();
  const at = text.lastIndexOf('startxref');
  const m = at < 0 ? null : STARTXREF.exec(text.slice(at, at + 40));
  if (!m) throw new UnreadablePdf('no startxref');
  const lastXref = Number(m[1]);
  let trailer: PdfDict | undefined;
  let offset: number | undefined = lastXref;
  const seen = new Set<number>();
  for (let n = 0; offset !== undefined && n < MAX_SECTIONS; n++) {
    if (seen.has(offset)) throw new UnreadablePdf(`the /Prev chain comes back to the section at ${offset}`);
    seen.add(offset);
    const section = readSection(text, offset, offsets, generations);
    trailer ??= section;
    const prev = section.get('Prev');
    offset = prev instanceof PdfRaw ? Number(prev.text) : undefined;
  }
  if (!trailer) throw new UnreadablePdf('no trailer');
  if (trailer.has('Encrypt')) throw new UnreadablePdf('encrypted');
  const size = Number((trailer.get('Size') as PdfRaw | undefined)?.text ?? 0);
  // Every object /Size counts has an entry of its own in some section: a file cannot count more than it has bytes.
  if (!Number.isSafeInteger(size) || size < 0 || size > text.length)
    throw new UnreadablePdf(`the trailer's /Size ${size} is more objects than ${text.length} bytes can hold`);
  return { trailer, offsets, generations, size, lastXref };
}

/** Reads one classic section into `offsets` and `generations`; entries already known (from a newer section) win. */
function readSection(text: string, offset: number, offsets: Map<number, number>, generations: Map<number, number>): PdfDict {
  if (text.slice(offset, offset + 4) !== 'xref') throw new UnreadablePdf('not a classic cross-reference table');
  let pos = offset + 4;
  for (;;) {
    const m = SUBSECTION_HEAD.exec(text.slice(pos, pos + 40));
    if (!m) break;
    pos += m[0].length;
    const [first, count] = [Number(m[1]), Number(m[2])];
    // The entries are fixed-width: a subsection cannot list more of them than the rest of the file holds.
    if (count * XREF_ENTRY_BYTES > text.length - pos)
      throw new UnreadablePdf(
        `a cross-reference subsection claims ${m[2]} entries; the ${text.length - pos} bytes after it hold at most ${Math.floor((text.length - pos) / XREF_ENTRY_BYTES)}`,
      );
    for (let i = 0; i < count; i++) {
      const entry = text.slice(pos + i * XREF_ENTRY_BYTES, pos + i * XREF_ENTRY_BYTES + 18);
      // Any other shape is a table bytes were spliced into, or one of other widths: its entries cannot be
      // trusted to find their objects, and qpdf (read-part.ts) says whether it must rebuild it.
      if (!XREF_ENTRY.test(entry)) throw new UnreadablePdf(`the cross-reference entry of object ${first + i} is malformed`);
      if (entry[17] !== 'n' || offsets.has(first + i)) continue;
      offsets.set(first + i, Number(entry.slice(0, 10)));
      const generation = Number(entry.slice(11, 16));
      if (generation !== 0) generations.set(first + i, generation);
    }
    pos += count * XREF_ENTRY_BYTES;
  }
  const at = text.indexOf('trailer', pos);
  if (at < 0) throw new UnreadablePdf('no trailer');
  let value: PdfValue;
  try {
    value = new PdfParser(text, at + 7).value();
  } catch (error) {
    throw new UnreadablePdf(`the trailer cannot be read (${(error as Error).message})`);
  }
  if (!isDict(value)) throw new UnreadablePdf('trailer is not a dictionary');
  return value;
}
