/**
 * The account's webhook signing secret: created on first need, rotated on demand. A rotation keeps the
 * replaced secret signing beside the new one for a day (Standard Webhooks allows several signatures),
 * so receivers can switch to the new secret without rejecting a single delivery meanwhile. The store
 * holds them sealed with the server's key (webhook-secret-sealing.ts); this class seals and opens them.
 */
import type { SecretBox } from '../secrets/sealing.js';
import type { WebhookStore } from '../store/webhook-queries.js';
import { openWebhookSecret, sealWebhookSecret } from './webhook-secret-sealing.js';
import { newWebhookSecret } from './webhook-signing.js';

/** How long a replaced secret keeps signing after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

/** A rotation's result: the new secret, and until when the replaced one still signs (null: there was none). */
export interface Rotation {
  secret: string;
  previousUntil: number | null;
}

/** Reads, creates and rotates signing secrets over the store, sealed with the server's key. */
export class WebhookSecrets {
  constructor(
    private readonly store: WebhookStore,
    /** The server's key (undefined: none, and then no secret can be made or opened, only an old clear one read). */
    private readonly secrets: SecretBox | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The account's secret, created (once, whoever asks first) when it has none yet. */
  async get(accountId: string): Promise<string> {
    const found =
      (await this.store.findWebhookSecret(accountId)) ??
      (await this.store.ensureWebhookSecret(accountId, this.seal(newWebhookSecret(), accountId), this.now()));
    return openWebhookSecret(found, this.secrets, accountId);
  }

  /** The secrets a delivery is signed with now: the current one, then the replaced one while its overlap lasts. */
  async signing(accountId: string): Promise<string[]> {
    const found = await this.store.findWebhookSecrets(accountId);
    if (!found) return [await this.get(accountId)];
    const current = openWebhookSecret(found.secret, this.secrets, accountId);
    const overlapping = found.previousSecret !== null && found.previousUntil !== null && found.previousUntil > this.now();
    if (!overlapping) return [current];
    try {
      return [current, openWebhookSecret(found.previousSecret as string, this.secrets, accountId)];
    } catch {
      // Sealed with a key this server no longer has (the rotation that follows a lost key): the current secret signs alone.
      return [current];
    }
  }

  /** Replaces the account's secret with a new one; the old one keeps signing for SECRET_OVERLAP_MS. */
  async rotate(accountId: string): Promise<Rotation> {
    const had = await this.store.findWebhookSecret(accountId);
    const secret = newWebhookSecret();
    const at = this.now();
    const previousUntil = at + SECRET_OVERLAP_MS;
    await this.store.rotateWebhookSecret(accountId, this.seal(secret, accountId), at, previousUntil);
    return { secret, previousUntil: had === undefined ? null : previousUntil };
  }

  private seal(secret: string, accountId: string): string {
    return sealWebhookSecret(secret, this.secrets, accountId);
  }
}

/** The activity log's detail of a rotation: until when the old secret still signs. */
export function rotationDetail(rotation: Rotation): string {
  return rotation.previousUntil === null
    ? 'no earlier secret'
    : `the old secret signs too until ${new Date(rotation.previousUntil).toISOString().replace(/\.\d+Z$/, 'Z')}`;
}
