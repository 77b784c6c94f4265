/** The account's webhook signing secret: created on first need, rotated on demand. */
import type { WebhookStore } from '../store/webhook-queries.js';
import { newWebhookSecret } from './webhook-signing.js';

/** Reads, creates and rotates signing secrets over the store. */
export class WebhookSecrets {
  constructor(
    private readonly store: WebhookStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** The account's secret, created (once, whoever asks first) when it has none yet. */
  async get(accountId: string): Promise<string> {
    const found = await this.store.findWebhookSecret(accountId);
    return found ?? this.store.ensureWebhookSecret(accountId, newWebhookSecret(), this.now());
  }

  /** Replaces the account's secret with a new one and returns it; the old one stops signing at once. */
  async rotate(accountId: string): Promise<string> {
    const secret = newWebhookSecret();
    await this.store.replaceWebhookSecret(accountId, secret, this.now());
    return secret;
  }
}
