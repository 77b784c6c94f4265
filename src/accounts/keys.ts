import type { ApiService } from '../config.js';
import { newId } from '../ids.js';
import type { ApiKeyRecord, KeyStore } from '../store/key-queries.js';
import { AccountError } from './accounts.js';
import { displayPrefixOf, generateKey, hashKey, parseKey } from './key-format.js';
import { unshowableCharacterProblem } from './user-text.js';

/** Why a presented key does not authenticate. */
export type KeyDenial = 'malformed' | 'unknown' | 'revoked' | 'wrong_service';

/** The outcome of checking a key: the account it authenticates, or why not. A denial is a normal result. */
export type KeyCheck =
  | { ok: true; accountId: string; keyId: string; limitOverride: number | null }
  | { ok: false; denial: KeyDenial };

/** Creates, lists, revokes and verifies API keys. Keys are kept only as SHA-256 hashes. */
export class KeyService {
  constructor(
    private readonly store: KeyStore,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Creates a key; the full key is returned here and never again. Throws AccountError for a name with a
   * control or invisible formatting character.
   */
  async create(accountId: string, service: ApiService, name?: string | null): Promise<{ key: string; record: ApiKeyRecord }> {
    const problem = name ? unshowableCharacterProblem('the key name', name) : undefined;
    if (problem) throw new AccountError(problem);
    const key = generateKey(service);
    const record = await this.store.insertKey({
      id: newId('key'),
      accountId,
      service,
      keyHash: hashKey(key),
      displayPrefix: displayPrefixOf(key),
      name: name?.trim() ? name.trim() : null,
      createdAt: this.now(),
    });
    return { key, record };
  }

  /** The account's keys, newest first, revoked ones included (check `revokedAt`). */
  list(accountId: string, service?: ApiService): Promise<ApiKeyRecord[]> {
    return this.store.listKeys(accountId, service);
  }

  /** Revokes one key of the account; false when it is not the account's or already revoked. */
  revoke(keyId: string, accountId?: string): Promise<boolean> {
    return this.store.revokeKey(keyId, this.now(), accountId);
  }

  /**
   * Finds the active keys a full key or display prefix names (CLI revocation).
   * A full key names exactly one; a display prefix may be ambiguous, which the caller must refuse.
   */
  async findActive(keyOrPrefix: string): Promise<ApiKeyRecord[]> {
    if (parseKey(keyOrPrefix)) {
      const found = await this.store.findKeyByHash(hashKey(keyOrPrefix));
      return found && found.revokedAt === null ? [found] : [];
    }
    if (!/^(pwr|pwm)_live_[0-9a-f]{4}$/.test(keyOrPrefix)) return [];
    return (await this.store.findKeysByDisplayPrefix(keyOrPrefix)).filter((k) => k.revokedAt === null);
  }

  /**
   * Verifies a presented key for a service: format and checksum first (garbage never reaches the
   * store), then lookup by hash, service match, not revoked. The store answers every lookup as of now
   * (SQLite's cache of found keys ends at any write), so a revocation by any process or instance takes
   * effect on the very next request.
   */
  async verify(presented: string, service: ApiService): Promise<KeyCheck> {
    const parsed = parseKey(presented);
    if (!parsed) return { ok: false, denial: 'malformed' };
    if (parsed.service !== service) return { ok: false, denial: 'wrong_service' };
    const found = await this.store.findKeyByHash(hashKey(presented));
    if (!found) return { ok: false, denial: 'unknown' };
    if (found.service !== service) return { ok: false, denial: 'wrong_service' };
    if (found.revokedAt !== null) return { ok: false, denial: 'revoked' };
    return { ok: true, accountId: found.accountId, keyId: found.id, limitOverride: found.limitOverride };
  }
}
