/**
 * Sealing secrets at rest with the server's key: AES-256-GCM, each sealed value bound to what it belongs
 * to (its context, as additional data), so a sealed value copied onto another row does not open. The
 * current key seals; the current key and any previous ones (SECRETS_KEY_PREVIOUS) open, so a key can be
 * rotated without a moment where stored secrets cannot be read.
 */
import crypto from 'node:crypto';

const SEAL_VERSION = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value opens with none of the server's keys (the key was changed, or the value was tampered with). */
export class SealOpenError extends Error {}

/** Whether `value` has the form of a sealed value (not whether it opens). */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(SEAL_VERSION);
}

/** The server's keys: one that seals, and every one that opens. */
export class SecretBox {
  private readonly keys: readonly Buffer[];

  constructor(
    /** 32 bytes: seals, and opens. */
    current: Buffer,
    /** Keys a value may still be sealed with (a rotation under way): they open, never seal. */
    previous: readonly Buffer[] = [],
  ) {
    for (const key of [current, ...previous]) if (key.length !== 32) throw new Error('a sealing key is 32 bytes');
    this.keys = [current, ...previous.filter((k) => !k.equals(current))];
  }

  /** Seals `plain` for `context` with the current key: `v1.` and base64 of IV, tag and ciphertext. */
  seal(plain: Buffer | string, context: string): string {
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.keys[0], iv).setAAD(Buffer.from(context));
    const sealed = Buffer.concat([cipher.update(plain), cipher.final()]);
    return SEAL_VERSION + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
  }

  /** Opens a value sealed for `context` with any of the keys; throws SealOpenError when none opens it. */
  open(sealed: string, context: string): Buffer {
    return this.openWith(sealed, context).plain;
  }

  /** Whether the current key opens `sealed` (false: a previous key sealed it, and it wants sealing again). */
  sealedWithCurrent(sealed: string, context: string): boolean {
    return this.openWith(sealed, context).keyIndex === 0;
  }

  /** A keyed digest (HMAC-SHA256 under a key derived from the current one): a hash that cannot be guessed offline. */
  digest(data: string): string {
    const macKey = Buffer.from(crypto.hkdfSync('sha256', this.keys[0], Buffer.alloc(0), 'pageworks digest', 32));
    return crypto.createHmac('sha256', macKey).update(data).digest('hex');
  }

  private openWith(sealed: string, context: string): { plain: Buffer; keyIndex: number } {
    if (!isSealed(sealed)) throw new SealOpenError('not a sealed value');
    const data = Buffer.from(sealed.slice(SEAL_VERSION.length), 'base64');
    if (data.length < IV_BYTES + TAG_BYTES) throw new SealOpenError('a sealed value too short to be one');
    for (const [keyIndex, key] of this.keys.entries()) {
      try {
        const decipher = crypto.createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(context)).setAuthTag(data.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        const plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
        return { plain, keyIndex };
      } catch {
        // Another key may have sealed it: try the next.
      }
    }
    throw new SealOpenError(`opens with none of the server's ${this.keys.length} key(s)`);
  }
}
