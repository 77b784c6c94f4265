import { type CompiledQuery, type Kysely, sql } from 'kysely';
import type { ApiService } from '../config.js';
import type { AccountsTable, ApiKeysTable, Database } from './schema.js';
import { bindQueries, PREPARED, type StoreContext } from './store-context.js';
import { type ChangeStamp, UnchangedCache } from './unchanged-cache.js';

// API keys: never the key itself, only its hash, written once for both dialects. The lookup by hash
// runs on every API request, so it is the one query with state of its own (see keyQueries).

/** A stored API key: never the key itself, only its hash and display prefix. */
export interface ApiKeyRecord {
  id: string;
  accountId: string;
  service: ApiService;
  displayPrefix: string;
  name: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** A key found by its hash, with the owning account's limit override for that service. */
export interface KeyLookup extends ApiKeyRecord {
  limitOverride: number | null;
}

/** Store methods of API keys. */
export interface KeyStore {
  insertKey(input: Omit<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'> & { keyHash: string }): Promise<ApiKeyRecord>;
  findKeyByHash(keyHash: string): Promise<KeyLookup | undefined>;
  listKeys(accountId: string, service?: ApiService): Promise<ApiKeyRecord[]>;
  findKeysByDisplayPrefix(displayPrefix: string): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked (if it belongs to accountId when given); returns whether an active key was revoked. */
  revokeKey(keyId: string, at: number, accountId?: string): Promise<boolean>;
  /** Moves last_used_at forward only: an older timestamp never overwrites a newer one. */
  touchKeys(entries: ReadonlyArray<{ keyId: string; at: number }>): Promise<void>;
}

/** Prepares a SQL statement for synchronous execution (the embedded SQLite driver can). */
export type SyncPrepare = (sql: string) => (params: readonly unknown[]) => unknown[];

/** What the key lookup may use where the driver offers it. */
export interface KeyLookupOptions {
  /** Runs the lookup as a prepared statement, without async driver hops. */
  prepare?: SyncPrepare;
  /** Lets found keys be kept while the database is unchanged (only where the store can tell that per request). */
  changeStamp?: ChangeStamp;
}

function toKey(row: ApiKeysTable): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    service: row.service,
    displayPrefix: row.display_prefix,
    name: row.name,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

type KeyLookupRow = ApiKeysTable & Pick<AccountsTable, 'render_limit' | 'metadata_limit'>;

function keyLookupQuery(db: Kysely<Database>) {
  return db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .selectAll('api_keys')
    .select(['accounts.render_limit', 'accounts.metadata_limit'])
    .where('api_keys.key_hash', '=', '')
    .modifyEnd(sql.raw(PREPARED));
}

/** See KeyStore.insertKey. */
export async function insertKey(
  { db }: StoreContext,
  input: Omit<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'> & { keyHash: string },
) {
  const row: ApiKeysTable = {
    id: input.id,
    account_id: input.accountId,
    service: input.service,
    key_hash: input.keyHash,
    display_prefix: input.displayPrefix,
    name: input.name,
    created_at: input.createdAt,
    last_used_at: null,
    revoked_at: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return toKey(row);
}

/** See KeyStore.listKeys. */
export async function listKeys({ db }: StoreContext, accountId: string, service?: ApiService) {
  let query = db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId);
  if (service) query = query.where('service', '=', service);
  const rows = await query.orderBy('created_at', 'desc').orderBy('id').execute();
  return rows.map(toKey);
}

/** See KeyStore.findKeysByDisplayPrefix. */
export async function findKeysByDisplayPrefix({ db }: StoreContext, displayPrefix: string) {
  const rows = await db.selectFrom('api_keys').selectAll().where('display_prefix', '=', displayPrefix).execute();
  return rows.map(toKey);
}

/** See KeyStore.revokeKey. */
export async function revokeKey({ db }: StoreContext, keyId: string, at: number, accountId?: string) {
  let query = db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', keyId).where('revoked_at', 'is', null);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** See KeyStore.touchKeys. */
export async function touchKeys({ db }: StoreContext, entries: ReadonlyArray<{ keyId: string; at: number }>) {
  if (entries.length === 0) return;
  // In key order, the order every instance takes the rows' locks in, so two flushes that touch the same
  // keys wait for each other instead of deadlocking.
  const ordered = [...entries].sort((a, b) => (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0));
  await db.transaction().execute(async (trx) => {
    for (const { keyId, at } of ordered) {
      await trx
        .updateTable('api_keys')
        .set({ last_used_at: at })
        .where('id', '=', keyId)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
        .execute();
    }
  });
}

/**
 * The key queries over one store context. The lookup by hash is compiled once and executed with the
 * hash as its only parameter, prepared on both dialects: every authenticated request runs it, and
 * PostgreSQL spent four times as long planning it as running it. On SQLite found keys are also kept
 * while the database is unchanged.
 */
export function keyQueries(ctx: StoreContext, opts: KeyLookupOptions = {}): KeyStore {
  const { db } = ctx;
  const lookup = keyLookupQuery(db).compile() as CompiledQuery<KeyLookupRow>;
  const runLookup = opts.prepare?.(lookup.sql) as ((params: readonly unknown[]) => KeyLookupRow[]) | undefined;
  const foundKeys = opts.changeStamp ? new UnchangedCache<KeyLookup>(opts.changeStamp) : undefined;
  const findKeyByHash = async (keyHash: string): Promise<KeyLookup | undefined> => {
    const cached = foundKeys?.get(keyHash);
    if (cached) return cached;
    const row = runLookup
      ? runLookup([keyHash])[0]
      : (await db.executeQuery<KeyLookupRow>({ ...lookup, parameters: [keyHash] })).rows[0];
    if (!row) return undefined;
    const limit = row.service === 'render' ? row.render_limit : row.metadata_limit;
    // Frozen: the cache hands the same object to every later caller.
    const found = Object.freeze({ ...toKey(row), limitOverride: limit === null ? null : Number(limit) });
    foundKeys?.set(keyHash, found);
    return found;
  };
  return { ...bindQueries(ctx, { insertKey, listKeys, findKeysByDisplayPrefix, revokeKey, touchKeys }), findKeyByHash };
}
