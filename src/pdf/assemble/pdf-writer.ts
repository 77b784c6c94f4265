/**
 * A new PDF written from scratch: objects numbered as they are allocated, one classic cross-reference
 * table, a trailer with /ID. The layout PDF/A asks for (binary comment after the header, `obj` and
 * `stream` keywords followed by an end of line, /Length equal to the data).
 */
import { createHash } from 'node:crypto';
import { type PdfDict, PdfRef, type PdfValue, raw, serialize } from '../profiles/pdf-objects.js';

/** An object to write: a value (with stream data), or the text of a copied object's body. */
type Slot = { value: PdfValue; data?: Buffer; text?: undefined } | { text: string };

/** Objects of a new file, then its bytes. */
export class PdfWriter {
  private readonly slots: Array<Slot | undefined> = [undefined];

  /** A new object number, to be filled by `set`. */
  allocate(): PdfRef {
    this.slots.push(undefined);
    return new PdfRef(this.slots.length - 1, 0);
  }

  /** Sets (or replaces) an allocated object; `data` makes it a stream (its /Length is set here). */
  set(ref: PdfRef, value: PdfValue, data?: Buffer): void {
    this.slots[ref.num] = { value, data };
  }

  /** Sets an allocated object to a body already written (what sits between `obj` and `endobj`). */
  setText(ref: PdfRef, text: string): void {
    this.slots[ref.num] = { text };
  }

  /** Allocates and sets in one step. */
  add(value: PdfValue, data?: Buffer): PdfRef {
    const ref = this.allocate();
    this.set(ref, value, data);
    return ref;
  }

  /** The file: header for `version`, every object (an allocated one never set is written as null), xref, trailer. */
  finish(version: string, trailer: PdfDict): Buffer {
    // Text stays text (one latin1 character per byte) until the one buffer the file is written into.
    const chunks: Array<Buffer | string> = [];
    let offset = 0;
    const push = (chunk: Buffer | string): void => {
      chunks.push(chunk);
      offset += chunk.length;
    };
    push(`%PDF-${version}\n%\xe2\xe3\xcf\xd3\n`);
    const offsets: number[] = [0];
    const hash = createHash('md5');
    for (let num = 1; num < this.slots.length; num++) {
      offsets.push(offset);
      const slot: Slot = this.slots[num] ?? { value: raw('null') };
      if (slot.text !== undefined) {
        const text = `${num} 0 obj\n${slot.text.trim()}\nendobj\n`;
        push(text);
        if (num % 16 === 0) hash.update(text);
      } else if (slot.data) {
        const value = new Map(slot.value as PdfDict);
        value.set('Length', raw(slot.data.length));
        push(`${num} 0 obj\n${serialize(value)}\nstream\n`);
        push(slot.data);
        push('\nendstream\nendobj\n');
        hash.update(slot.data.subarray(0, 64));
      } else {
        const text = `${num} 0 obj\n${serialize(slot.value)}\nendobj\n`;
        push(text);
        if (num % 16 === 0) hash.update(text);
      }
    }
    const xref = offset;
    const lines = [`xref\n0 ${this.slots.length}\n0000000000 65535 f \n`];
    for (let num = 1; num < this.slots.length; num++) lines.push(`${String(offsets[num]).padStart(10, '0')} 00000 n \n`);
    push(lines.join(''));
    const id = hash.digest('hex');
    const out = new Map(trailer);
    out.set('Size', raw(this.slots.length));
    out.set('ID', [raw(`<${id}>`), raw(`<${id}>`)]);
    push(`trailer\n${serialize(out)}\nstartxref\n${xref}\n%%EOF\n`);
    const file = Buffer.allocUnsafe(offset);
    let at = 0;
    for (const chunk of chunks) at += typeof chunk === 'string' ? file.write(chunk, at, 'latin1') : chunk.copy(file, at);
    return file;
  }
}
