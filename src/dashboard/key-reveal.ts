import crypto from 'node:crypto';
import type { KeyUsageStore } from '../store/key-usage-queries.js';

/** A new key waits this long for its one display (the redirect after "Create key" takes milliseconds). */
export const REVEAL_TTL_MS = 10 * 60_000;

// The key that seals a new API key is derived from the raw session id, which only the browser's cookie
// holds (the store keeps its SHA-256): a copy of the database reveals nothing, not even for this window.
function sealingKey(sessionId: string): Buffer {
  return crypto.createHmac('sha256', sessionId).update('pageworks new-key reveal v1').digest();
}

/** Seals `secret` for the session `sessionId`, bound to `keyId` (AES-256-GCM; iv.tag.ciphertext, base64url). */
export function sealForSession(sessionId: string, keyId: string, secret: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', sealingKey(sessionId), iv);
  cipher.setAAD(Buffer.from(keyId));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
}

/** Opens what sealForSession sealed; undefined for another session, another key or a damaged value. */
export function openForSession(sessionId: string, keyId: string, sealed: string): string | undefined {
  const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !tag || !body) return undefined;
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', sealingKey(sessionId), iv);
    decipher.setAAD(Buffer.from(keyId));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * Holds a just-created key server-side for exactly one display (POST → redirect → GET): a reload of
 * the page after "Create key" shows the list again and creates nothing.
 */
export class KeyReveals {
  constructor(
    private readonly store: KeyUsageStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keeps the key for the session's next view of it. */
  async hold(session: { id: string; idHash: string }, keyId: string, secret: string): Promise<void> {
    await this.store.putKeyReveal(session.idHash, keyId, sealForSession(session.id, keyId, secret), this.now());
  }

  /** Deletes the sealed keys that waited longer than REVEAL_TTL_MS (they can no longer be shown); returns how many. */
  purgeExpired(): Promise<number> {
    return this.store.deleteKeyRevealsBefore(this.now() - REVEAL_TTL_MS);
  }

  /** The key, the first time it is asked for within REVEAL_TTL_MS; afterwards undefined. */
  async take(session: { id: string; idHash: string }, keyId: string): Promise<string | undefined> {
    const sealed = await this.store.takeKeyReveal(session.idHash, keyId, this.now() - REVEAL_TTL_MS);
    return sealed === undefined ? undefined : openForSession(session.id, keyId, sealed);
  }
}
