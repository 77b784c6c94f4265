/**
 * A printed PDF opened for an incremental update: its classic cross-reference sections (following /Prev),
 * objects read on demand, and new or replaced objects appended after the original bytes. Chromium writes
 * every object at top level with a classic table; a file laid out otherwise (object or cross-reference
 * streams, encryption) is refused, and the caller then claims nothing. The table is read by
 * cross-reference.ts, a stream's filters undone by stream-data.ts, and the update written by pdf-update.ts.
 *
 * The same reader opens customers' PDFs (assembly parts), so it is linear in the file's size whatever the
 * file says: a count is believed only when the bytes that would hold it are there, every walk remembers
 * what it visited, and a stream inflates to a cap the caller chooses, never to what the file claims.
 */
import { readCrossReference } from './cross-reference.js';
import { isDict, nameOf, type PdfDict, PdfRaw, PdfRef, type PdfValue } from './pdf-objects.js';
import { PdfParser } from './pdf-parser.js';
import { OBJECT_HEAD } from './pdf-tokens.js';
import { type Written, writeUpdate } from './pdf-update.js';
import { decodeStream, MAX_INFLATED_BYTES } from './stream-data.js';
import { UnreadablePdf } from './unreadable-pdf.js';

/** An object as read: its value and, for a stream, where its data is. */
export interface PdfObject {
  value: PdfValue;
  stream?: { start: number; length: number };
}

/** What the structure checks read of a PDF: a file, or what a file keeping some of its pages will hold (keep-pages.ts). */
export type StructureReader = Pick<PdfFile, 'catalog' | 'dict' | 'kids' | 'resolve'>;

/** A printed PDF, read lazily, with the objects an update adds or replaces. */
export class PdfFile {
  readonly text: string;
  readonly trailer: PdfDict;
  private readonly offsets: Map<number, number>;
  /** The generation of each object listed at one other than 0. */
  private readonly generations: Map<number, number>;
  private readonly cache = new Map<number, PdfObject>();
  private readonly written = new Map<number, Written>();
  /** Objects whose stream /Length is being looked up. */
  private readonly reading = new Set<number>();
  private size: number;
  private readonly lastXref: number;

  constructor(readonly bytes: Buffer) {
    this.text = bytes.toString('latin1');
    const xref = readCrossReference(this.text);
    this.trailer = xref.trailer;
    this.offsets = xref.offsets;
    this.generations = xref.generations;
    this.size = xref.size;
    this.lastXref = xref.lastXref;
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
    return decodeStream(num, object.value, data, maxBytes);
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
    const { bytes, trailer, lastXref, size, written } = this;
    return writeUpdate({ bytes, trailer, lastXref, size, written }, trailerEntries);
  }
}
