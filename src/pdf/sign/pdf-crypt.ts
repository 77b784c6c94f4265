/**
 * The standard security handler of a protected PDF as far as appending to it needs: the file key from
 * the owner or user password (AES-256, revisions 5 and 6: ISO 32000-2 7.6.4.3.3, Algorithms 2.A and
 * 2.B), and AESV3 encryption of the strings and streams of new objects. AESV3 uses the file key itself
 * for every object, so objects copied from the file keep their encrypted strings as they are.
 */
import crypto from 'node:crypto';
import { isDict, nameOf, type PdfDict, PdfRaw, type PdfValue, stringBytes } from '../profiles/pdf-objects.js';
import { aesNoIv, hash2B as hash, passwordBytes } from '../protect/aes-256.js';
import { SignInputError } from './pdf-reader.js';

/** What a protected file's new objects are encrypted with. */
export interface PdfCrypt {
  /** Encrypts a string's bytes (an empty function when strings are not encrypted, /StrF /Identity). */
  string(data: Buffer): Buffer;
  /** Encrypts a stream's bytes. */
  stream(data: Buffer): Buffer;
  /** Decrypts a stream's bytes (object streams hold the objects a signature rewrites). */
  decryptStream(data: Buffer): Buffer;
}

/** A protected PDF whose password was missing or wrong. */
export class PdfPasswordError extends SignInputError {
  override name = 'PdfPasswordError';
}

function aesEncrypt(key: Buffer, data: Buffer): Buffer {
  const iv = crypto.randomBytes(16);
  const cipher = crypto.createCipheriv('aes-256-cbc', key, iv);
  return Buffer.concat([iv, cipher.update(data), cipher.final()]);
}

function aesDecrypt(key: Buffer, data: Buffer): Buffer {
  if (data.length < 32) return Buffer.alloc(0);
  const decipher = crypto.createDecipheriv('aes-256-cbc', key, data.subarray(0, 16));
  return Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]);
}

const bytesOf = (value: PdfValue | undefined): Buffer | undefined =>
  value instanceof PdfRaw && /^[(<]/.test(value.text) ? stringBytes(value.text) : undefined;

/** The file key from either password (owner first, then user), or undefined when neither opens the file. */
export function fileKey(encrypt: PdfDict, password: string): Buffer | undefined {
  const revision = Number((encrypt.get('R') as PdfRaw | undefined)?.text);
  const [o, u, oe, ue] = ['O', 'U', 'OE', 'UE'].map((k) => bytesOf(encrypt.get(k)));
  if (!o || !u || !oe || !ue || o.length < 48 || u.length < 48) throw new SignInputError('a broken /Encrypt dictionary');
  const pw = passwordBytes(password);
  const u48 = u.subarray(0, 48);
  if (hash(pw, o.subarray(32, 40), u48, revision).equals(o.subarray(0, 32))) {
    return aesNoIv(hash(pw, o.subarray(40, 48), u48, revision), oe.subarray(0, 32), 'decrypt');
  }
  if (hash(pw, u.subarray(32, 40), Buffer.alloc(0), revision).equals(u.subarray(0, 32))) {
    return aesNoIv(hash(pw, u.subarray(40, 48), Buffer.alloc(0), revision), ue.subarray(0, 32), 'decrypt');
  }
  return undefined;
}

/** The crypt filter method a /StmF or /StrF name selects. */
function method(encrypt: PdfDict, key: 'StmF' | 'StrF'): string {
  const filterName = nameOf(encrypt.get(key)) ?? 'Identity';
  if (filterName === 'Identity') return 'None';
  const filters = encrypt.get('CF');
  const filter = isDict(filters) ? filters.get(filterName) : undefined;
  return (isDict(filter) && nameOf(filter.get('CFM'))) || 'None';
}

/** Whether `key` is the file key: /Perms decrypts with it to its fixed `adb` marker (Algorithm 13). */
function opensPerms(encrypt: PdfDict, key: Buffer): boolean {
  const perms = bytesOf(encrypt.get('Perms'));
  if (!perms || perms.length < 16 || key.length !== 32) return false;
  const ecb = crypto.createDecipheriv('aes-256-ecb', key, null).setAutoPadding(false);
  return ecb.update(perms.subarray(0, 16)).toString('latin1', 9, 12) === 'adb';
}

/**
 * Opens the standard security handler of a protected file with `password` (owner or user; none tries
 * the empty user password), or with the file key itself when the caller made the file (`knownKey`: the
 * password hashes, most of a signature's cost on a protected file, are then skipped). Refuses anything
 * but AES-256 (V 5, R 5 or 6), naming what it found.
 */
export function openCrypt(encrypt: PdfDict, password: string | undefined, knownKey?: Buffer): PdfCrypt {
  const filter = nameOf(encrypt.get('Filter'));
  const v = (encrypt.get('V') as PdfRaw | undefined)?.text;
  const r = (encrypt.get('R') as PdfRaw | undefined)?.text;
  if (filter !== 'Standard' || v !== '5' || (r !== '5' && r !== '6')) {
    throw new SignInputError(`cannot sign a PDF protected other than with AES-256 (found ${filter} V ${v} R ${r})`);
  }
  const key = knownKey && opensPerms(encrypt, knownKey) ? knownKey : fileKey(encrypt, password ?? '');
  if (!key) {
    throw new PdfPasswordError(
      password === undefined ? 'the PDF is protected: give its password to sign it' : 'the password does not open the PDF',
    );
  }
  const strings = method(encrypt, 'StrF');
  const streams = method(encrypt, 'StmF');
  for (const m of [strings, streams]) {
    if (m !== 'AESV3' && m !== 'None') throw new SignInputError(`cannot sign a PDF whose crypt filter is ${m}`);
  }
  return {
    string: (data) => (strings === 'AESV3' ? aesEncrypt(key, data) : data),
    stream: (data) => (streams === 'AESV3' ? aesEncrypt(key, data) : data),
    decryptStream: (data) => (streams === 'AESV3' ? aesDecrypt(key, data) : data),
  };
}
