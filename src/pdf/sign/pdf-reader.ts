/**
 * Reads any ordinary PDF far enough to append to it: every cross-reference section (classic tables,
 * cross-reference streams, hybrid files), objects at top level or inside object streams, and the
 * trailer. Signing appends after whatever wrote the file (Chromium, the profiles' update, the assembler,
 * qpdf), so unlike the profiles' reader it cannot assume Chromium's layout.
 */
import zlib from 'node:zlib';
import { isDict, nameOf, type PdfDict, PdfRaw, PdfRef, type PdfValue } from '../profiles/pdf-objects.js';
import { PdfParser } from '../profiles/pdf-parser.js';
import { MAX_INFLATED_BYTES } from '../profiles/stream-data.js';

/** Where an object is: at a byte offset, or the `index`-th object of object stream `stream`. */
type XrefEntry = { kind: 'offset'; offset: number } | { kind: 'packed'; stream: number; index: number };

/** A PDF this reader cannot read (the message says why, for the caller's error). */
export class SignInputError extends Error {
  override name = 'SignInputError';
}

const MAX_SECTIONS = 256;
/** Bytes of one classic cross-reference entry. */
const XREF_ENTRY_BYTES = 20;
/** Widest field of a cross-reference stream row (an offset wider than 8 bytes is more than any file). */
const MAX_FIELD_BYTES = 8;

const numberOf = (value: PdfValue | undefined): number | undefined =>
  value instanceof PdfRaw && /^-?\d+$/.test(value.text) ? Number(value.text) : undefined;

/** Undoes the PNG predictors (ISO 32000 7.4.4.4) a cross-reference stream is commonly written with. */
function unpredict(data: Buffer, columns: number): Buffer {
  const rowLength = columns + 1;
  const rows = Math.floor(data.length / rowLength);
  const out = Buffer.alloc(rows * columns);
  for (let r = 0; r < rows; r++) {
    const type = data[r * rowLength];
    for (let c = 0; c < columns; c++) {
      const x = data[r * rowLength + 1 + c];
      const left = c > 0 ? out[r * columns + c - 1] : 0;
      const up = r > 0 ? out[(r - 1) * columns + c] : 0;
      const upLeft = r > 0 && c > 0 ? out[(r - 1) * columns + c - 1] : 0;
      let v = x;
      if (type === 1) v = x + left;
      else if (type === 2) v = x + up;
      else if (type === 3) v = x + Math.floor((left + up) / 2);
      else if (type === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        v = x + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      }
      out[r * columns + c] = v & 0xff;
    }
  }
  return out;
}

/** A stream's raw bytes (after decryption, when the caller gives a decrypter) decoded through FlateDecode. */
export function decodeStream(dict: PdfDict, raw: Buffer, resolve: (v: PdfValue | undefined) => PdfValue | undefined): Buffer {
  const filter = resolve(dict.get('Filter'));
  const filters = Array.isArray(filter) ? filter.map(nameOf) : filter ? [nameOf(filter)] : [];
  if (filters.length === 0) return raw;
  if (filters.length !== 1 || filters[0] !== 'FlateDecode')
    throw new SignInputError(`unsupported stream filter ${filters.join(', ')}`);
  let data: Buffer;
  try {
    // The output is capped, never what the stream claims: a few KiB can inflate to gigabytes.
    data = zlib.inflateSync(raw, { maxOutputLength: MAX_INFLATED_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new SignInputError(`a stream inflates to more than ${MAX_INFLATED_BYTES} bytes`);
    throw new SignInputError('a stream does not inflate');
  }
  const parms = resolve(dict.get('DecodeParms'));
  if (isDict(parms)) {
    const predictor = numberOf(parms.get('Predictor')) ?? 1;
    if (predictor >= 10) data = unpredict(data, numberOf(parms.get('Columns')) ?? 1);
    else if (predictor !== 1) throw new SignInputError(`unsupported predictor ${predictor}`);
  }
  return data;
}

/** A PDF's cross-reference and objects, read lazily. */
export class PdfReader {
  readonly text: string;
  /** The newest trailer (a classic trailer or the newest cross-reference stream's dictionary). */
  readonly trailer: PdfDict;
  /** Where the newest cross-reference section starts (the update's /Prev). */
  readonly lastXref: number;
  /** Whether the newest section is a cross-reference stream (the update then writes one too). */
  readonly xrefStream: boolean;
  private readonly entries = new Map<number, XrefEntry>();
  private readonly packed = new Map<number, Map<number, PdfValue>>();
  /** Offsets of the streams whose /Length is being looked up. */
  private readonly reading = new Set<number>();
  /** Decrypts a stream's bytes before they are inflated; set once the file's key is known. */
  decryptStream: ((data: Buffer) => Buffer) | undefined;

  constructor(readonly bytes: Buffer) {
    this.text = bytes.toString('latin1');
    const at = this.text.lastIndexOf('startxref');
    const m = at < 0 ? null : /^startxref\s+(\d+)/.exec(this.text.slice(at, at + 40));
    if (!m) throw new SignInputError('not a PDF: no startxref');
    this.lastXref = Number(m[1]);
    let trailer: PdfDict | undefined;
    let xrefStream = false;
    const seen = new Set<number>();
    let offset: number | undefined = this.lastXref;
    for (let n = 0; offset !== undefined && n < MAX_SECTIONS && !seen.has(offset); n++) {
      seen.add(offset);
      const classic = this.text.startsWith('xref', offset);
      const section = classic ? this.readTable(offset) : this.readXrefStream(offset);
      if (!trailer) {
        trailer = section;
        xrefStream = !classic;
      }
      const hybrid = classic ? numberOf(section.get('XRefStm')) : undefined;
      if (hybrid !== undefined && !seen.has(hybrid)) this.readXrefStream(hybrid);
      offset = numberOf(section.get('Prev'));
    }
    if (!trailer) throw new SignInputError('not a PDF: no trailer');
    this.trailer = trailer;
    this.xrefStream = xrefStream;
  }

  /** The number the update's first new object takes. */
  get size(): number {
    return numberOf(this.trailer.get('Size')) ?? 0;
  }

  private readTable(offset: number): PdfDict {
    let pos = offset + 4;
    const header = /^\s*(\d+)\s+(\d+)[ \t]*\r?\n/;
    for (;;) {
      const m = header.exec(this.text.slice(pos, pos + 40));
      if (!m) break;
      pos += m[0].length;
      const [first, count] = [Number(m[1]), Number(m[2])];
      if (count * XREF_ENTRY_BYTES > this.text.length - pos)
        throw new SignInputError(`broken cross-reference table: a subsection claims ${m[2]} entries, more than the file holds`);
      for (let i = 0; i < count; i++) {
        const entry = this.text.slice(pos + i * XREF_ENTRY_BYTES, pos + i * XREF_ENTRY_BYTES + 18);
        if (!this.entries.has(first + i)) {
          if (entry[17] === 'n') this.entries.set(first + i, { kind: 'offset', offset: Number(entry.slice(0, 10)) });
        }
      }
      pos += count * XREF_ENTRY_BYTES;
    }
    const at = this.text.indexOf('trailer', pos);
    if (at < 0) throw new SignInputError('broken cross-reference table: no trailer');
    const value = new PdfParser(this.text, at + 7).value();
    if (!isDict(value)) throw new SignInputError('broken cross-reference table: the trailer is not a dictionary');
    return value;
  }

  private readXrefStream(offset: number): PdfDict {
    const object = this.objectAt(offset);
    if (!object?.stream || !isDict(object.value) || nameOf(object.value.get('Type')) !== 'XRef') {
      throw new SignInputError('broken cross-reference: startxref points at neither a table nor a cross-reference stream');
    }
    const dict = object.value;
    // Cross-reference streams are never encrypted (ISO 32000 7.6.2).
    const data = decodeStream(dict, object.stream, (v) => v);
    const w = dict.get('W');
    const widths = Array.isArray(w) ? w.map((v) => numberOf(v) ?? 0) : [];
    // A row of no bytes would let /Index claim any number of entries without the data to hold them.
    if (widths.length !== 3 || widths.some((n) => n < 0 || n > MAX_FIELD_BYTES) || widths[0] + widths[1] + widths[2] === 0)
      throw new SignInputError('broken cross-reference stream: /W');
    const index = dict.get('Index');
    const ranges = Array.isArray(index) ? index.map((v) => numberOf(v) ?? 0) : [0, numberOf(dict.get('Size')) ?? 0];
    const rowLength = widths[0] + widths[1] + widths[2];
    let pos = 0;
    const field = (width: number, fallback: number): number => {
      if (width === 0) return fallback;
      let v = 0;
      for (let i = 0; i < width; i++) v = v * 256 + data[pos++];
      return v;
    };
    for (let r = 0; r + 1 < ranges.length; r += 2) {
      for (let i = 0; i < ranges[r + 1] && pos + rowLength <= data.length; i++) {
        const num = ranges[r] + i;
        const type = field(widths[0], 1);
        const a = field(widths[1], 0);
        const b = field(widths[2], 0);
        if (this.entries.has(num)) continue;
        if (type === 1) this.entries.set(num, { kind: 'offset', offset: a });
        else if (type === 2) this.entries.set(num, { kind: 'packed', stream: a, index: b });
        else if (type === 0) this.entries.set(num, { kind: 'offset', offset: -1 });
      }
    }
    return dict;
  }

  /** The object written at `offset` (`N G obj … endobj`), with its raw stream bytes when it is a stream. */
  private objectAt(offset: number): { num: number; value: PdfValue; stream?: Buffer } | undefined {
    const head = /^(\d+)\s+(\d+)\s+obj/.exec(this.text.slice(offset, offset + 40));
    if (!head) return undefined;
    const parser = new PdfParser(this.text, offset + head[0].length);
    const value = parser.value();
    parser.skipWhite();
    if (!isDict(value) || !this.text.startsWith('stream', parser.pos)) return { num: Number(head[1]), value };
    let start = parser.pos + 6;
    if (this.text[start] === '\r') start++;
    if (this.text[start] === '\n') start++;
    let length = numberOf(value.get('Length'));
    const lengthRef = value.get('Length');
    // A /Length that refers back to a stream being read would recurse without end.
    if (length === undefined && lengthRef instanceof PdfRef && !this.reading.has(offset)) {
      this.reading.add(offset);
      try {
        length = numberOf(this.get(lengthRef.num));
      } finally {
        this.reading.delete(offset);
      }
    }
    if (length === undefined) {
      const end = this.text.indexOf('endstream', start);
      if (end < 0) throw new SignInputError('a stream has no end');
      length = end - start;
    }
    return { num: Number(head[1]), value, stream: this.bytes.subarray(start, start + length) };
  }

  /** Whether object `num` sits inside an object stream (its strings are then not encrypted one by one). */
  isPacked(num: number): boolean {
    return this.entries.get(num)?.kind === 'packed';
  }

  /** Object `num`'s value (undefined when the file has none). */
  get(num: number): PdfValue | undefined {
    const entry = this.entries.get(num);
    if (!entry) return undefined;
    if (entry.kind === 'offset') return entry.offset < 0 ? undefined : this.objectAt(entry.offset)?.value;
    let objects = this.packed.get(entry.stream);
    if (!objects) {
      objects = this.unpack(entry.stream);
      this.packed.set(entry.stream, objects);
    }
    return objects.get(num);
  }

  private unpack(streamNum: number): Map<number, PdfValue> {
    const entry = this.entries.get(streamNum);
    const object = entry?.kind === 'offset' ? this.objectAt(entry.offset) : undefined;
    if (!object?.stream || !isDict(object.value)) throw new SignInputError(`object stream ${streamNum} is missing`);
    const raw = this.decryptStream ? this.decryptStream(object.stream) : object.stream;
    const text = decodeStream(object.value, raw, (v) => this.resolve(v)).toString('latin1');
    const count = numberOf(object.value.get('N')) ?? 0;
    const first = numberOf(object.value.get('First')) ?? 0;
    // Each of the /N pairs takes at least four characters (`n o `) before /First.
    if (count < 0 || first < 0 || first > text.length || count * 4 > first + 1)
      throw new SignInputError(`object stream ${streamNum} claims ${count} objects in ${first} bytes of header`);
    const header = new PdfParser(text, 0);
    const out = new Map<number, PdfValue>();
    const pairs: Array<[number, number]> = [];
    for (let i = 0; i < count; i++) {
      header.skipWhite();
      const num = Number(header.word());
      header.skipWhite();
      pairs.push([num, Number(header.word())]);
    }
    for (const [num, at] of pairs) out.set(num, new PdfParser(text, first + at).value());
    return out;
  }

  /** The value a reference points to (a direct value is returned as it is). */
  resolve(value: PdfValue | undefined): PdfValue | undefined {
    for (let i = 0; value instanceof PdfRef && i < 8; i++) value = this.get(value.num);
    return value;
  }

  /** The dictionary a value is or points to. */
  dict(value: PdfValue | undefined): PdfDict | undefined {
    const resolved = this.resolve(value);
    return isDict(resolved) ? resolved : undefined;
  }
}
