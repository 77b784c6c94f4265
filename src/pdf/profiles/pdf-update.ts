/**
 * An incremental update written after a PDF's original bytes (ISO 32000 7.5.6): the added and replaced
 * objects, one cross-reference section listing them, and a trailer that points back to the original's
 * newest section. The original is never rewritten, so what the update does not touch stays byte for byte.
 */
import { type PdfDict, type PdfValue, raw, serialize } from './pdf-objects.js';

/** What a new or replaced object is: a value, with stream data when it is a stream. */
export interface Written {
  value: PdfValue;
  data?: Buffer;
}

/** The file an update is written after, and what the update holds. */
export interface UpdateBase {
  /** The original bytes, kept as they are. */
  bytes: Buffer;
  /** The original's newest trailer, which the update's trailer starts from. */
  trailer: PdfDict;
  /** Where the original's newest cross-reference section starts (the update's /Prev). */
  lastXref: number;
  /** The update's /Size: one more than the highest object number, added ones counted. */
  size: number;
  /** The objects the update adds or replaces, by number. */
  written: ReadonlyMap<number, Written>;
}

/** The original bytes followed by an update holding every added and replaced object, its trailer taking `trailerEntries`. */
export function writeUpdate({ bytes, trailer: original, lastXref, size, written }: UpdateBase, trailerEntries: PdfDict): Buffer {
  const parts: Buffer[] = [bytes];
  let offset = bytes.length;
  const push = (chunk: Buffer | string): void => {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    parts.push(buffer);
    offset += buffer.length;
  };
  if (bytes[bytes.length - 1] !== 0x0a) push('\n');
  const placed: Array<[number, number]> = [];
  for (const [num, object] of [...written].sort((a, b) => a[0] - b[0])) {
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
  const trailer = new Map(original);
  trailer.delete('Prev');
  trailer.delete('XRefStm');
  for (const [key, value] of trailerEntries) trailer.set(key, value);
  trailer.set('Size', raw(size));
  trailer.set('Prev', raw(lastXref));
  push(`${table}trailer\n${serialize(trailer)}\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}
