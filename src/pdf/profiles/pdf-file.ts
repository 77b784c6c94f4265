/**
 * A printed PDF opened for an incremental update: its classic cross-reference sections (following /Prev),
 * objects read on demand, and new or replaced objects appended after the original bytes. Chromium writes
 * every object at top level with a classic table; a file laid out otherwise (object or cross-reference
 * streams, encryption) is refused, and the caller then claims nothing.
 *
 * The same reader opens customers' PDFs (assembly parts), so it is linear in the file's size whatever the
 * file says: a count is believed only when the bytes that would hold it are there, every walk remembers
 * what it visited, and a stream inflates to a cap the caller chooses, never to what the file claims.
 */
import zlib from 'node:zlib';
import { isDict, nameOf, type PdfDict, PdfRaw, PdfRef, type PdfValue, raw, serialize } from './pdf-objects.js';
import { PdfParser } from './pdf-parser.js';
import { OBJECT_HEAD, WHITE_SPACE } from './pdf-tokens.js';

/** An object as read: its value and, for a stream, where its data is. */
export interface PdfObject {
  value: PdfValue;
  stream?: { start: number; length: number };
}

/** `data` inflated, stopping at `maxBytes` of output: the cap is what the caller can hold, not what the file claims. */
function inflate(data: Buffer, num: number, maxBytes: number): Buffer {
  try {
    return zlib.inflateSync(data, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new UnreadablePdf(`stream ${num} inflates to more than ${maxBytes} bytes`);
    throw new UnreadablePdf(`stream ${num} does not inflate (${(error as Error).message})`);
  }
}

/** What a new or replaced object is: a value, with stream data when it is a stream. */
interface Written {
  value: PdfValue;
  data?: Buffer;
}

const MAX_SECTIONS = 64;
/** Bytes of one classic cross-reference entry (ISO 32000 7.5.4). */
const XREF_ENTRY_BYTES = 20;
/** A classic cross-reference entry without its end of line: offset, generation, in use or free. */
const XREF_ENTRY = /^\d{10} \d{5} [nf]$/;
/** `startxref` and the offset after it; white space as the object syntax has it (a NUL is white space, a no-break space is not). */
const STARTXREF = new RegExp(`^startxref${WHITE_SPACE}+(\\d+)`);
/** A cross-reference subsection's first object number and count, on a line of their own. */
const SUBSECTION_HEAD = new RegExp(`^${WHITE_SPACE}*(\\d+)${WHITE_SPACE}+(\\d+)[ \\t]*\\r?\\n`);
/** Most bytes one stream inflates to unless the caller asks for less (a printed page's content stays far below). */
export const MAX_INFLATED_BYTES = 256 * 1024 * 1024;

/** A PDF that cannot be read as a classic-table file. */
export class UnreadablePdf extends Error {}

/** What the structure checks read of a PDF: a file, or what a file keeping some of its pages will hold (keep-pages.ts). */
export type StructureReader = Pick<PdfFile, 'catalog' | 'dict' | 'kids' | 'resolve'>;

/** A printed PDF, read lazily, with the objects an update adds or replaces. */
export class PdfFile {
  readonly text: string;
  readonly trailer: PdfDict;
  private readonly offsets = new Map<number, number>();
  /** The generation of each object listed at one other than 0. */
  private readonly generations = new Map<number, number>();
  private readonly cache = new Map<number, PdfObject>();
  private readonly written = new Map<number, Written>();
  /** Objects whose stream /Length is being looked up. */
  private readonly reading = new Set<number>();
  private size: number;
  private readonly lastXref: number;

  constructor(readonly bytes: Buffer) {
    this.text = bytes.toString('latin1');
    const at = this.text.lastIndexOf('startxref');
    const m = at < 0 ? null : STARTXREF.exec(this.text.slice(at, at + 40));
    if (!m) throw new UnreadablePdf('no startxref');
    this.lastXref = Number(m[1]);
    let trailer: PdfDict | undefined;
    let offset: number | undefined = this.lastXref;
    const seen = new Set<number>();
    for (let n = 0; offset !== undefined && n < MAX_SECTIONS; n++) {
      if (seen.has(offset)) throw new UnreadablePdf(`the /Prev chain comes back to the section at ${offset}`);
      seen.add(offset);
      const section = this.readSection(offset);
      trailer ??= section;
      const prev = section.get('Prev');
      offset = prev instanceof PdfRaw ? Number(prev.text) : undefined;
    }
    if (!trailer) throw new UnreadablePdf('no trailer');
    if (trailer.has('Encrypt')) throw new UnreadablePdf('encrypted');
    this.trailer = trailer;
    const size = Number((trailer.get('Size') as PdfRaw | undefined)?.text ?? 0);
    // Every object /Size counts has an entry of its own in some section: a file cannot count more than it has bytes.
    if (!Number.isSafeInteger(size) || size < 0 || size > bytes.length)
      throw new UnreadablePdf(`the trailer's /Size ${size} is more objects than ${bytes.length} bytes can hold`);
    this.size = size;
  }

  /** Reads one classic section; entries already known (from a newer section) win. */
  private readSection(offset: number): PdfDict {
    if (this.text.slice(offset, offset + 4) !== 'xref') throw new UnreadablePdf('not a classic cross-reference table');
    let pos = offset + 4;
    for (;;) {
      const m = SUBSECTION_HEAD.exec(this.text.slice(pos, pos + 40));
      if (!m) break;
      pos += m[0].length;
      const [first, count] = [Number(m[1]), Number(m[2])];
      // The entries are fixed-width: a subsection cannot list more of them than the rest of the file holds.
      if (count * XREF_ENTRY_BYTES > this.text.length - pos)
        throw new UnreadablePdf(
          `a cross-reference subsection claims ${m[2]} entries; the ${this.text.length - pos} bytes after it hold at most ${Math.floor((this.text.length - pos) / XREF_ENTRY_BYTES)}`,
        );
      for (let i = 0; i < count; i++) {
        const entry = this.text.slice(pos + i * XREF_ENTRY_BYTES, pos + i * XREF_ENTRY_BYTES + 18);
        // Any other shape is a table bytes were spliced into, or one of other widths: its entries cannot be
        // trusted to find their objects, and qpdf (read-part.ts) says whether it must rebuild it.
        if (!XREF_ENTRY.test(entry)) throw new UnreadablePdf(`the cross-reference entry of object ${first + i} is malformed`);
        if (entry[17] !== 'n' || this.offsets.has(first + i)) continue;
        this.offsets.set(first + i, Number(entry.slice(0, 10)));
        const generation = Number(entry.slice(11, 16));
        if (generation !== 0) this.generations.set(first + i, generation);
      }
      pos += count * XREF_ENTRY_BYTES;
    }
    const at = this.text.indexOf('trailer', pos);
    if (at < 0) throw new UnreadablePdf('no trailer');
    let value: PdfValue;
    try {
      value = new PdfParser(this.text, at + 7).value();
    } catch (error) {
      throw new UnreadablePdf(`the trailer cannot be read (${(error as Error).message})`);
    }
    if (!isDict(value)) throw new UnreadablePdf('trailer is not a dictionary');
    return value;
  }

  /** Whether a cross-reference section lists object `num` as in use (then `get` failing means a damaged table). */
  listed(num: number): boolean {
    return this.offsets.has(num);
  }

  /** Where object `num`'s newest version starts (`N G obj`), or undefined when no section lists it. */
  offset(num: number): number | undefined {
    return this.offsets.get(num);
  }

  /** Whether any section points at a cross-reference stream too (a hybrid file: some objects only it lists). */
  get hybrid(): boolean {
    return this.trailer.has('XRefStm');
  }

  /** The object `num` as it stands (an update's own version when it has one). */
  get(num: number): PdfObject | undefined {
    const own = this.written.get(num);
    if (own) return { value: own.value };
    const cached = this.cache.get(num);
    if (cached) return cached;
    const offset = this.offsets.get(num);
    if (offset === undefined) return undefined;
    const parser = new PdfParser(this.text, offset);
    const head = OBJECT_HEAD.exec(this.text.slice(offset, offset + 40));
    if (!head || Number(head[1]) !== num) return undefined;
    // A stream whose /Length refers back to it would be read again and again.
    if (this.reading.has(num)) throw new UnreadablePdf(`object ${num} refers to itself for its length`);
    parser.pos += head[0].length;
    let value: PdfValue;
    try {
      value = parser.value();
    } catch (error) {
      throw new UnreadablePdf(`object ${num} cannot be read (${(error as Error).message})`);
    }
    parser.skipWhite();
    // What follows the value is `stream` or `endobj`: bytes this reader would skip (a `stream` after a
    // character only some readers count as white space) would leave out what another reader shows.
    const streamFollows = isDict(value) && this.text.startsWith('stream', parser.pos);
    if (!streamFollows && !this.text.startsWith('endobj', parser.pos))
      throw new UnreadablePdf(`object ${num} cannot be read (endobj expected at ${parser.pos})`);
    let object: PdfObject = { value };
    if (streamFollows && isDict(value)) {
      let start = parser.pos + 6;
      if (this.text[start] === '\r') start++;
      if (this.text[start] === '\n') start++;
      this.reading.add(num);
      let length: PdfValue | undefined;
      try {
        length = this.resolve(value.get('Length'));
      } finally {
        this.reading.delete(num);
      }
      const n = length instanceof PdfRaw ? Number(length.text) : Number.NaN;
      if (!Number.isFinite(n)) throw new UnreadablePdf(`stream ${num} has no length`);
      object = { value, stream: { start, length: n } };
    }
    this.cache.set(num, object);
    return object;
  }

  /**
   * Whether object `num` holds no name longer than `maxName` characters and no string token longer than
   * `maxString`, told without building it: true also when `get` would give nothing; false when the object
   * is already read or written (`get` it: that costs nothing), is a stream, or has a longer token. An
   * object `get` could not read is UnreadablePdf here too.
   */
  shortTokens(num: number, maxName: number, maxString: number): boolean {
    if (this.written.has(num) || this.cache.has(num)) return false;
    const offset = this.offsets.get(num);
    if (offset === undefined) return true;
    const head = OBJECT_HEAD.exec(this.text.slice(offset, offset + 40));
    if (!head || Number(head[1]) !== num) return true;
    const parser = new PdfParser(this.text, offset + head[0].length);
    const longest = { name: 0, string: 0 };
    try {
      parser.skipValue(longest);
    } catch (error) {
      throw new UnreadablePdf(`object ${num} cannot be read (${(error as Error).message})`);
    }
    parser.skipWhite();
    if (this.text.startsWith('stream', parser.pos)) return false;
    return longest.name <= maxName && longest.string <= maxString;
  }

  /** The numbers of the objects the file's cross-reference sections place (not those an update adds). */
  objectNumbers(): number[] {
    return [...this.offsets.keys()];
  }

  /**
   * Whether `ref` names its object at the generation the cross-reference data gives it: to a reader (qpdf,
   * poppler) `3 1 R` is null when object 3 is listed at generation 0.
   */
  current(ref: PdfRef): boolean {
    return ref.gen === this.refTo(ref.num).gen;
  }

  /** A reference to object `num` at its generation (what a walk that found it by number resolves). */
  refTo(num: number): PdfRef {
    return new PdfRef(num, this.written.has(num) ? 0 : (this.generations.get(num) ?? 0));
  }

  /** The value a reference points to (a direct value is returned as it is). */
  resolve(value: PdfValue | undefined): PdfValue | undefined {
    for (let i = 0; value instanceof PdfRef && i < 8; i++) value = this.current(value) ? this.get(value.num)?.value : undefined;
    return value;
  }

  /** The dictionary a value is or points to. */
  dict(value: PdfValue | undefined): PdfDict | undefined {
    const resolved = this.resolve(value);
    return isDict(resolved) ? resolved : undefined;
  }

  /** The array a value is or points to; empty when it is none (a hostile file may put anything there). */
  array(value: PdfValue | undefined): PdfValue[] {
    const resolved = this.resolve(value);
    return Array.isArray(resolved) ? resolved : [];
  }

  /**
   * A stream's data, inflated when it is FlateDecode; undefined for other filters. Inflating stops at
   * `maxBytes` of output (UnreadablePdf past it, or when the data does not inflate).
   */
  streamData(num: number, maxBytes = MAX_INFLATED_BYTES): Buffer | undefined {
    const own = this.written.get(num);
    if (own?.data) return own.data;
    const object = this.get(num);
    if (!object?.stream || !isDict(object.value)) return undefined;
    const data = this.bytes.subarray(object.stream.start, object.stream.start + object.stream.length);
    const filter = object.value.get('Filter');
    const filters = Array.isArray(filter) ? filter.map(nameOf) : filter ? [nameOf(filter)] : [];
    if (filters.length === 0) {
      if (data.length > maxBytes) throw new UnreadablePdf(`stream ${num} is more than ${maxBytes} bytes`);
      return data;
    }
    if (filters.length === 1 && filters[0] === 'FlateDecode' && !object.value.has('DecodeParms'))
      return inflate(data, num, maxBytes);
    return undefined;
  }

  /**
   * The kids a structure element's /K lists, references kept: a single kid, an array, or a reference
   * to an array (a reference to a dictionary is one kid).
   */
  kids(value: PdfValue | undefined): PdfValue[] {
    if (value instanceof PdfRef) {
      const target = this.resolve(value);
      return Array.isArray(target) ? target : [value];
    }
    if (value === undefined) return [];
    return Array.isArray(value) ? value : [value];
  }

  /** The catalog dictionary. */
  catalog(): { num: number; value: PdfDict } {
    const root = this.trailer.get('Root');
    const value = this.dict(root);
    if (!(root instanceof PdfRef) || !value) throw new UnreadablePdf('no catalog');
    return { num: root.num, value };
  }

  /**
   * Page object numbers in order. UnreadablePdf: a page tree that reaches one of its nodes twice, or the
   * catalog, or whose leaf is not a /Type /Page: an untyped leaf may be any dictionary (the document's
   * /Info, say), and a copy that took it for a page would make one object two things.
   */
  pages(): number[] {
    const out: number[] = [];
    const catalog = this.catalog();
    const seen = new Set<number>();
    const walk = (ref: PdfValue | undefined, depth: number): void => {
      if (!(ref instanceof PdfRef) || depth > 32) return;
      // A tree reaches each node once: a second visit is a loop (or a shared subtree), and walking it again
      // would double the work at every level.
      if (seen.has(ref.num)) throw new UnreadablePdf(`the page tree reaches object ${ref.num} twice`);
      // A copy maps the catalog to the new file's own: taken as a page, it would make the catalog a page.
      if (ref.num === catalog.num) throw new UnreadablePdf(`the page tree reaches the catalog, object ${ref.num}`);
      seen.add(ref.num);
      const node = this.dict(ref);
      if (!node) return;
      const type = nameOf(node.get('Type'));
      if (type === 'Pages') {
        const kids = this.resolve(node.get('Kids'));
        if (Array.isArray(kids)) for (const kid of kids) walk(kid, depth + 1);
        return;
      }
      if (type !== 'Page')
        throw new UnreadablePdf(
          `object ${ref.num} in the page tree ${type === undefined ? 'has no /Type /Page' : `is a /${type}, not a page`}`,
        );
      out.push(ref.num);
    };
    walk(catalog.value.get('Pages'), 0);
    return out;
  }

  /** Adds an object; returns its reference. */
  add(value: PdfValue, data?: Buffer): PdfRef {
    const num = this.size++;
    this.written.set(num, { value, data });
    return new PdfRef(num, 0);
  }

  /** Replaces object `num` (generation 0, as Chromium writes every object) in the update. */
  set(num: number, value: PdfValue, data?: Buffer): void {
    this.written.set(num, { value, data });
  }

  /** The original bytes followed by an update holding every added and replaced object. */
  finish(trailerEntries: PdfDict): Buffer {
    const parts: Buffer[] = [this.bytes];
    let offset = this.bytes.length;
    const push = (chunk: Buffer | string): void => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
      parts.push(buffer);
      offset += buffer.length;
    };
    if (this.bytes[this.bytes.length - 1] !== 0x0a) push('\n');
    const placed: Array<[number, number]> = [];
    for (const [num, object] of [...this.written].sort((a, b) => a[0] - b[0])) {
      placed.push([num, offset]);
      if (object.data) {
        const value = new Map(object.value as PdfDict);
        value.set('Length', raw(object.data.length));
        push(`${num} 0 obj\n${serialize(value)}\nstream\n`);
        push(object.data);
        push('\nendstream\nendobj\n');
      } else push(`${num} 0 obj\n${serialize(object.value)}\nendobj\n`);
    }
    const xref = offset;
    let table = 'xref\n';
    for (const [num, at] of placed) table += `${num} 1\n${String(at).padStart(10, '0')} 00000 n \n`;
    const trailer = new Map(this.trailer);
    trailer.delete('Prev');
    trailer.delete('XRefStm');
    for (const [key, value] of trailerEntries) trailer.set(key, value);
    trailer.set('Size', raw(this.size));
    trailer.set('Prev', raw(this.lastXref));
    push(`${table}trailer\n${serialize(trailer)}\nstartxref\n${xref}\n%%EOF\n`);
    return Buffer.concat(parts);
  }
}
