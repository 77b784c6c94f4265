/** The server key's variables: SECRETS_KEY (or its older name CERTIFICATE_KEY) and SECRETS_KEY_PREVIOUS. */
import { ConfigError, type Env } from './config-env.js';

/**
 * A server key: 32 random bytes as 64 hex digits or base64 (`openssl rand -hex 32`). The error never
 * repeats the value: it is a secret even when malformed.
 */
export function parseServerKey(raw: string, variable: string, allowed = '64 hex digits or 32 bytes in base64'): Buffer {
  const value = raw.trim();
  const key = /^[0-9a-f]{64}$/i.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/]{43}=?$/.test(value)
      ? Buffer.from(value, 'base64')
      : undefined;
  if (key?.length !== 32) throw new ConfigError(variable, `not a 32-byte key (allowed: ${allowed})`);
  return key;
}

/** SECRETS_KEY, or CERTIFICATE_KEY (its name before it sealed more than certificates); both set must agree. */
export function secretsKey(env: Env): Buffer | undefined {
  const current = (env.SECRETS_KEY ?? '').trim();
  const older = (env.CERTIFICATE_KEY ?? '').trim();
  const key = current === '' ? undefined : parseServerKey(current, 'SECRETS_KEY');
  const olderKey = older === '' ? undefined : parseServerKey(older, 'CERTIFICATE_KEY');
  if (key && olderKey && !key.equals(olderKey)) {
    throw new ConfigError('CERTIFICATE_KEY', "differs from SECRETS_KEY (it is SECRETS_KEY's older name: set SECRETS_KEY alone)");
  }
  return key ?? olderKey;
}

/** SECRETS_KEY_PREVIOUS: comma-separated keys a rotation moves away from. */
export function previousKeys(env: Env): Buffer[] {
  return (env.SECRETS_KEY_PREVIOUS ?? '')
    .split(',')
    .filter((k) => k.trim() !== '')
    .map((k) => parseServerKey(k, 'SECRETS_KEY_PREVIOUS', 'comma-separated keys of 64 hex digits or 32 bytes in base64'));
}
