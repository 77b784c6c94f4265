/**
 * An account's webhook signing secrets, sealed at rest: the store keeps them only sealed with the server's
 * key (secrets/sealing.ts), bound to the account, so a copy of the database cannot sign a webhook that
 * verifies. The binding names the account alone, not the column: a rotation moves the current secret to
 * `previous_secret` as it is, in one statement, and it must open there too. A secret an older version
 * stored in clear (`whsec_…`) is read as it is until `pageworks secrets rotate` seals it.
 */
import { RenderError } from '../errors.js';
import { isSealed, type SecretBox } from '../secrets/sealing.js';

/** What an account's sealed webhook secrets are bound to. */
export function webhookSealContext(accountId: string): string {
  return `${accountId}\nwebhook-secret`;
}

/** `secret` sealed for the account; SERVICE_UNAVAILABLE on a server without a key (a secret is never stored in clear). */
export function sealWebhookSecret(secret: string, secrets: SecretBox | undefined, accountId: string): string {
  if (!secrets) {
    throw new RenderError(
      'SERVICE_UNAVAILABLE',
      'webhook secrets are kept sealed with the server key, and this server has none: its operator must set SECRETS_KEY',
    );
  }
  return secrets.seal(secret, webhookSealContext(accountId));
}

/** The secret a stored value holds: opened when sealed, as it is when an older version stored it in clear. */
export function openWebhookSecret(stored: string, secrets: SecretBox | undefined, accountId: string): string {
  if (!isSealed(stored)) return stored;
  try {
    if (!secrets) throw new Error('no server key');
    return secrets.open(stored, webhookSealContext(accountId)).toString('utf8');
  } catch (err) {
    // The operator changed the key without keeping the old one in SECRETS_KEY_PREVIOUS: nothing the caller can fix.
    throw new RenderError(
      'SERVICE_UNAVAILABLE',
      `the account's webhook secret does not open with this server's key (was SECRETS_KEY changed without SECRETS_KEY_PREVIOUS?)`,
      undefined,
      { cause: err },
    );
  }
}

/**
 * A stored value sealed again with the current key (or sealed at last, when an older version stored it in
 * clear); undefined when it is sealed with the current key already. Throws when it opens with none of the keys.
 */
export function resealWebhookSecret(stored: string, secrets: SecretBox, accountId: string): string | undefined {
  if (isSealed(stored) && secrets.sealedWithCurrent(stored, webhookSealContext(accountId))) return undefined;
  return sealWebhookSecret(openWebhookSecret(stored, secrets, accountId), secrets, accountId);
}
