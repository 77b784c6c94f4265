/**
 * A classic-table PDF rewritten whole, encrypted: every object in its newest version under its own number
 * (so no reference changes), its strings and streams encrypted with the file key, an /Encrypt dictionary
 * added, one cross-reference table. An object with no string is copied byte for byte.
 */
import crypto from 'node:crypto';
import type { PdfFile } from '../profiles/pdf-file.js';
import { type PdfDict, PdfRef, type PdfValue, raw, serialize } from '../profiles/pdf-objects.js';
import { AesCbc } from './aes-256.js';
import { encryptValue, scanObject } from './encrypt-objects.js';

/** An object the caller replaces: a value, with data when it is a stream. */
export interface Replacement {
  value: PdfValue;
  data?: Buffer;
}

/** What the rewrite changes: objects replaced (null: left out) and the security handler's key and dictionary. */
export interface EncryptPlan {
  replaced: Map<number, Replacement | null>;
  key: Buffer;
  encrypt: PdfDict;
}

/** The file's bytes encrypted as `plan` says. */
export function writeEncrypted(file: PdfFile, plan: EncryptPlan): Buffer {
  const aes = new AesCbc(plan.key);
  const encrypt = (data: Buffer): Buffer => aes.encrypt(data);
  const parts: Array<string | Buffer> = [];
  let offset = 0;
  const push = (part: string | Buffer): void => {
    parts.push(part);
    offset += part.length;
  };
  const version = file.text.startsWith('%PDF-2') ? '2.0' : '1.7';
  push(`%PDF-${version}\n%\xe2\xe3\xcf\xd3\n`);
  const placed = new Map<number, [number, number]>();
  const writeParsed = (num: number, gen: number, value: PdfValue, data: Buffer | undefined): void => {
    placed.set(num, [offset, gen]);
    const encrypted = encryptValue(value, encrypt);
    if (!data) {
      push(`${num} ${gen} obj\n${serialize(encrypted)}\nendobj\n`);
      return;
    }
    const body = encrypt(data);
    const stream = new Map(encrypted as PdfDict);
    stream.set('Length', raw(body.length));
    push(`${num} ${gen} obj\n${serialize(stream)}\nstream\n`);
    push(body);
    push('\nendstream\nendobj\n');
  };

  const numbers = file.objectNumbers().sort((a, b) => a - b);
  for (const num of numbers) {
    const replaced = plan.replaced.get(num);
    if (replaced === null) continue;
    const at = file.offset(num) as number;
    const head = /^(\d+)\s+(\d+)\s+obj/.exec(file.text.slice(at, at + 40));
    if (!head || Number(head[1]) !== num) throw new Error(`object ${num} is not where its cross-reference table says`);
    const gen = Number(head[2]);
    if (replaced) {
      writeParsed(num, gen, replaced.value, replaced.data);
      continue;
    }
    const scan = scanObject(file.text, at + head[0].length, encrypt);
    if (scan.kind === 'object') {
      placed.set(num, [offset, gen]);
      push(scan.changed ? `${head[0]}${scan.text}\n` : file.bytes.subarray(at, scan.end));
      if (!scan.changed) push('\n');
      continue;
    }
    const object = file.get(num);
    if (!object) throw new Error(`object ${num} cannot be read`);
    let data: Buffer | undefined;
    if (object.stream) {
      const { start, length } = object.stream;
      if (!/^\s*endstream/.test(file.text.slice(start + length, start + length + 24)))
        throw new Error(`stream ${num} does not end where its /Length says`);
      data = file.bytes.subarray(start, start + length);
    }
    writeParsed(num, gen, object.value, data);
  }

  const size = Math.max(
    Number((file.trailer.get('Size') as { text?: string } | undefined)?.text ?? 0),
    (numbers.at(-1) ?? 0) + 1,
  );
  // The /Encrypt dictionary's own strings are the one place they stay clear.
  placed.set(size, [offset, 0]);
  push(`${size} 0 obj\n${serialize(plan.encrypt)}\nendobj\n`);

  const xref = offset;
  const lines = [`xref\n0 ${size + 1}\n0000000000 65535 f \n`];
  for (let num = 1; num <= size; num++) {
    const entry = placed.get(num);
    lines.push(
      entry ? `${String(entry[0]).padStart(10, '0')} ${String(entry[1]).padStart(5, '0')} n \n` : '0000000000 00001 f \n',
    );
  }
  push(lines.join(''));
  const trailer: PdfDict = new Map([['Size', raw(size + 1)]]);
  for (const key of ['Root', 'Info']) {
    const value = file.trailer.get(key);
    if (value instanceof PdfRef) trailer.set(key, value);
  }
  const id = crypto.randomBytes(16).toString('hex');
  trailer.set('ID', file.trailer.get('ID') ?? [raw(`<${id}>`), raw(`<${id}>`)]);
  trailer.set('Encrypt', new PdfRef(size, 0));
  push(`trailer\n${serialize(trailer)}\nstartxref\n${xref}\n%%EOF\n`);

  const out = Buffer.allocUnsafe(offset);
  let at = 0;
  for (const part of parts) at += typeof part === 'string' ? out.write(part, at, 'latin1') : part.copy(out, at);
  return out;
}
