/**
 * The standard security handler's AES-256 (ISO 32000-2 7.6.4, revision 6, crypt filter AESV3): the
 * password hash (Algorithm 2.B), a new /Encrypt dictionary with its file key (Algorithms 8, 9 and 10),
 * the permission bits, and AES-256-CBC with a random IV in front, as every string and stream carries.
 */
import crypto from 'node:crypto';
import { dict, name, type PdfDict, raw } from '../profiles/pdf-objects.js';

/** What a reader without the owner password may do. */
export type Permission = 'print' | 'copy' | 'modify' | 'annotate' | 'fill-forms' | 'assemble';

/** The password's bytes: SASLprep'd UTF-8, at most 127 bytes (NFKC stands in for SASLprep here). */
export function passwordBytes(password: string): Buffer {
  return Buffer.from(password.normalize('NFKC'), 'utf8').subarray(0, 127);
}

/** Algorithm 2.B: the hash revision 6 iterates (revision 5 is one SHA-256). */
export function hash2B(password: Buffer, salt: Buffer, userKey: Buffer, revision: number): Buffer {
  let k = crypto.createHash('sha256').update(password).update(salt).update(userKey).digest();
  if (revision === 5) return k;
  for (let round = 0; ; round++) {
    const k1 = Buffer.concat([password, k, userKey]);
    const repeated = Buffer.concat(Array(64).fill(k1));
    const cipher = crypto.createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32)).setAutoPadding(false);
    const e = Buffer.concat([cipher.update(repeated), cipher.final()]);
    let mod = 0;
    for (let i = 0; i < 16; i++) mod += e[i];
    const algorithm = ['sha256', 'sha384', 'sha512'][mod % 3];
    k = crypto.createHash(algorithm).update(e).digest();
    if (round >= 63 && e[e.length - 1] <= round - 31) break;
  }
  return k.subarray(0, 32);
}

/** AES-256-CBC with a zero IV and no padding, as /UE and /OE wrap the file key. */
export function aesNoIv(key: Buffer, data: Buffer, direction: 'encrypt' | 'decrypt'): Buffer {
  const make = direction === 'encrypt' ? crypto.createCipheriv : crypto.createDecipheriv;
  const cipher = make('aes-256-cbc', key, Buffer.alloc(16)).setAutoPadding(false);
  return Buffer.concat([cipher.update(data), cipher.final()]);
}

/**
 * The /P value (ISO 32000-2 table 22) for the granted permissions: bits 7, 8 and 13-32 set as required,
 * extraction for accessibility (bit 10) always, print meaning full quality (bits 3 and 12).
 */
export function permissionBits(allow: readonly Permission[]): number {
  let p = ~0xfff | 0xc0 | 0x200;
  if (allow.includes('print')) p |= 0x4 | 0x800;
  if (allow.includes('modify')) p |= 0x8;
  if (allow.includes('copy')) p |= 0x10;
  if (allow.includes('annotate')) p |= 0x20;
  if (allow.includes('fill-forms')) p |= 0x100;
  if (allow.includes('assemble')) p |= 0x400;
  return p | 0;
}

const hex = (bytes: Buffer) => raw(`<${bytes.toString('hex')}>`);

/** A new file key and the /Encrypt dictionary that opens it with either password (revision 6, AESV3). */
export function newSecurityHandler(user: string, owner: string, permissions: number): { key: Buffer; encrypt: PdfDict } {
  const key = crypto.randomBytes(32);
  const [userPw, ownerPw] = [passwordBytes(user), passwordBytes(owner)];
  // Algorithm 8: /U is the hash with a validation salt, then both salts; /UE the key under the key-salt hash.
  const [uvs, uks, ovs, oks] = [0, 1, 2, 3].map(() => crypto.randomBytes(8));
  const u = Buffer.concat([hash2B(userPw, uvs, Buffer.alloc(0), 6), uvs, uks]);
  const ue = aesNoIv(hash2B(userPw, uks, Buffer.alloc(0), 6), key, 'encrypt');
  // Algorithm 9: the same for the owner, each hash also over the whole /U.
  const o = Buffer.concat([hash2B(ownerPw, ovs, u, 6), ovs, oks]);
  const oe = aesNoIv(hash2B(ownerPw, oks, u, 6), key, 'encrypt');
  // Algorithm 10: /Perms repeats /P under the file key, so a reader can tell it was not altered.
  const perms = Buffer.alloc(16, 0xff);
  perms.writeInt32LE(permissions, 0);
  perms.write('Tadb', 8, 'latin1');
  crypto.randomBytes(4).copy(perms, 12);
  const ecb = crypto.createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
  const encrypt = dict({
    Filter: name('Standard'),
    V: raw(5),
    R: raw(6),
    Length: raw(256),
    CF: dict({ StdCF: dict({ AuthEvent: name('DocOpen'), CFM: name('AESV3'), Length: raw(32) }) }),
    StmF: name('StdCF'),
    StrF: name('StdCF'),
    O: hex(o),
    U: hex(u),
    OE: hex(oe),
    UE: hex(ue),
    P: raw(permissions),
    Perms: hex(Buffer.concat([ecb.update(perms), ecb.final()])),
  });
  return { key, encrypt };
}

/** Strings shorter than this go through one reused ECB cipher; a new CBC cipher per string costs more than the string. */
const SHORT = 512;
const POOL = 4096;

/** AES-256-CBC with PKCS#7 padding and a random IV written first (ISO 32000-2 7.6.3, AESV3). */
export class AesCbc {
  private readonly ecb: crypto.Cipher;
  private random = Buffer.alloc(0);
  private used = 0;

  constructor(private readonly key: Buffer) {
    this.ecb = crypto.createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
  }

  /** `data` encrypted, its IV first. */
  encrypt(data: Buffer): Buffer {
    const iv = this.iv();
    if (data.length >= SHORT) {
      const cipher = crypto.createCipheriv('aes-256-cbc', this.key, iv);
      return Buffer.concat([iv, cipher.update(data), cipher.final()]);
    }
    // CBC by hand: each block XORed with the previous ciphertext (the IV first), then one ECB block.
    const padded = (data.length >> 4) * 16 + 16;
    const out = Buffer.alloc(16 + padded, padded - data.length);
    iv.copy(out, 0);
    data.copy(out, 16);
    for (let at = 16; at < out.length; at += 16) {
      for (let i = 0; i < 16; i++) out[at + i] ^= out[at - 16 + i];
      this.ecb.update(out.subarray(at, at + 16)).copy(out, at);
    }
    return out;
  }

  /** Sixteen random bytes, drawn from a pool filled a few kilobytes at a time. */
  private iv(): Buffer {
    if (this.used + 16 > this.random.length) {
      this.random = crypto.randomBytes(POOL);
      this.used = 0;
    }
    this.used += 16;
    return this.random.subarray(this.used - 16, this.used);
  }
}
