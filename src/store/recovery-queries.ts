import type { ActivityLogTable } from './schema.js';
import { bindQueries, type StoreContext } from './store-context.js';

// Account recovery (password reset tokens), the activity log, the sessions list and account deletion:
// the queries, written once with Kysely for both dialects.

/** One entry of an account's activity log. */
export interface ActivityEntry {
  id: string;
  accountId: string;
  at: number;
  kind: ActivityKind;
  /** Who did it: the dashboard (the account's user), the operator's CLI, the server itself, or an API key. */
  actor: 'dashboard' | 'cli' | 'system' | 'api';
  ip: string | null;
  userAgent: string | null;
  detail: string | null;
}

/** What an activity log entry records. */
export type ActivityKind =
  | 'sign_in'
  | 'sign_in_failed'
  | 'password_changed'
  | 'password_reset_requested'
  | 'password_reset'
  | 'key_created'
  | 'key_revoked'
  | 'limit_changed'
  | 'session_ended'
  | 'account_deleted'
  | 'webhook_secret_revealed'
  | 'webhook_secret_rotated'
  | 'certificate_uploaded'
  | 'certificate_deleted';

/** A live session as the sessions list shows it. */
export interface SessionListing {
  publicId: string;
  createdAt: number;
  lastSeenAt: number;
  ip: string | null;
  userAgent: string | null;
  /** Only to mark "this session"; never sent to the browser. */
  idHash: string;
}

/** The store methods of account recovery, the activity log, the sessions list and account deletion. */
export interface RecoveryStore {
  insertResetToken(input: { tokenHash: string; accountId: string; createdAt: number; expiresAt: number }): Promise<void>;
  /** The account a reset token belongs to if it is unused and unexpired at `at`. */
  findUsableResetToken(tokenHash: string, at: number): Promise<string | undefined>;
  /** Marks the token used if it is usable at `at` (atomically: one caller wins); returns its account. */
  consumeResetToken(tokenHash: string, at: number): Promise<string | undefined>;
  /** Deletes every reset token of the account (a password change ends them all). */
  deleteResetTokensOf(accountId: string): Promise<void>;
  /** Deletes tokens that expired before `before`; returns how many. */
  deleteExpiredResetTokens(before: number): Promise<number>;

  addActivity(entry: ActivityEntry): Promise<void>;
  /** The account's activity, newest first. */
  listActivity(accountId: string, limit: number, offset: number): Promise<ActivityEntry[]>;
  /** Deletes activity older than `before`; returns how many entries. */
  pruneActivity(before: number): Promise<number>;

  /** The account's sessions, newest first (expired ones included until purged: the caller filters). */
  listSessions(accountId: string): Promise<SessionListing[]>;
  /** Ends the account's session with this public id; false when there is none. */
  deleteSessionByPublicId(accountId: string, publicId: string): Promise<boolean>;

  /**
   * Deletes the account with its keys, sessions, reset tokens, usage and activity, and writes the
   * tombstone entry, in one transaction; false when there was no such account.
   */
  deleteAccount(accountId: string, tombstone: ActivityEntry): Promise<boolean>;
}

function activityRow(e: ActivityEntry): ActivityLogTable {
  return {
    id: e.id,
    account_id: e.accountId,
    at: e.at,
    kind: e.kind,
    actor: e.actor,
    ip: e.ip,
    user_agent: e.userAgent,
    detail: e.detail,
  };
}

function toActivity(row: ActivityLogTable): ActivityEntry {
  return {
    id: row.id,
    accountId: row.account_id,
    at: Number(row.at),
    kind: row.kind as ActivityKind,
    actor: row.actor as ActivityEntry['actor'],
    ip: row.ip,
    userAgent: row.user_agent,
    detail: row.detail,
  };
}

/** See RecoveryStore.insertResetToken. */
export async function insertResetToken(
  { db }: StoreContext,
  input: { tokenHash: string; accountId: string; createdAt: number; expiresAt: number },
) {
  await db
    .insertInto('password_reset_tokens')
    .values({
      token_hash: input.tokenHash,
      account_id: input.accountId,
      created_at: input.createdAt,
      expires_at: input.expiresAt,
      used_at: null,
    })
    .execute();
}

/** See RecoveryStore.findUsableResetToken. */
export async function findUsableResetToken({ db }: StoreContext, tokenHash: string, at: number) {
  const row = await db
    .selectFrom('password_reset_tokens')
    .select('account_id')
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  return row?.account_id;
}

/** See RecoveryStore.consumeResetToken. */
export async function consumeResetToken({ db }: StoreContext, tokenHash: string, at: number) {
  const result = await db
    .updateTable('password_reset_tokens')
    .set({ used_at: at })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return undefined;
  const row = await db
    .selectFrom('password_reset_tokens')
    .select('account_id')
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row?.account_id;
}

/** See RecoveryStore.deleteResetTokensOf. */
export async function deleteResetTokensOf({ db }: StoreContext, accountId: string) {
  await db.deleteFrom('password_reset_tokens').where('account_id', '=', accountId).execute();
}

/** See RecoveryStore.deleteExpiredResetTokens. */
export async function deleteExpiredResetTokens({ db }: StoreContext, before: number) {
  const result = await db.deleteFrom('password_reset_tokens').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** See RecoveryStore.addActivity. */
export async function addActivity({ db }: StoreContext, e: ActivityEntry) {
  await db.insertInto('activity_log').values(activityRow(e)).execute();
}

/** See RecoveryStore.listActivity. */
export async function listActivity({ db }: StoreContext, accountId: string, limit: number, offset: number) {
  const rows = await db
    .selectFrom('activity_log')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map(toActivity);
}

/** See RecoveryStore.pruneActivity. */
export async function pruneActivity({ db }: StoreContext, before: number) {
  const result = await db.deleteFrom('activity_log').where('at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** See RecoveryStore.listSessions. */
export async function listSessions({ db }: StoreContext, accountId: string) {
  const rows = await db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .select(['id_hash', 'public_id', 'sessions.created_at', 'last_seen_at', 'ip', 'user_agent'])
    .where('sessions.account_id', '=', accountId)
    // A session of an older password is refused (see findSession); the list does not show it either.
    .whereRef('sessions.credential_version', '=', 'accounts.credential_version')
    .orderBy('sessions.created_at', 'desc')
    .execute();
  return rows.map((r) => ({
    publicId: r.public_id ?? r.id_hash.slice(0, 22),
    idHash: r.id_hash,
    createdAt: Number(r.created_at),
    lastSeenAt: Number(r.last_seen_at),
    ip: r.ip,
    userAgent: r.user_agent,
  }));
}

/** See RecoveryStore.deleteSessionByPublicId. */
export async function deleteSessionByPublicId({ db }: StoreContext, accountId: string, publicId: string) {
  const result = await db
    .deleteFrom('sessions')
    .where('account_id', '=', accountId)
    .where('public_id', '=', publicId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** See RecoveryStore.deleteAccount. */
export async function deleteAccount({ db, kind }: StoreContext, accountId: string, tombstone: ActivityEntry) {
  return db.transaction().execute(async (trx) => {
    // On PostgreSQL the account row is locked before any of its children: every transaction that writes
    // rows referencing it holds its lock on that row from its start (a usage flush, a render log insert,
    // a password change), so one of the two waits for the other to end rather than each holding a row
    // the other needs. Locked last, as the cascade did, a usage flush and a deletion could deadlock.
    const found = trx.selectFrom('accounts').select('id').where('id', '=', accountId);
    if (!(await (kind === 'postgres' ? found.forUpdate() : found).executeTakeFirst())) return false;
    // Children first, explicitly: the foreign keys cascade too, but SQLite enforces them only per connection setting.
    for (const table of [
      'usage_hourly_keys',
      'usage_daily_keys',
      'webhook_deliveries',
      'webhook_secrets',
      'render_log',
      'signing_certificates',
    ] as const)
      await trx.deleteFrom(table).where('account_id', '=', accountId).execute();
    await trx.deleteFrom('api_keys').where('account_id', '=', accountId).execute();
    await trx.deleteFrom('sessions').where('account_id', '=', accountId).execute();
    await trx.deleteFrom('password_reset_tokens').where('account_id', '=', accountId).execute();
    await trx.deleteFrom('usage_daily').where('account_id', '=', accountId).execute();
    await trx.deleteFrom('activity_log').where('account_id', '=', accountId).execute();
    const result = await trx.deleteFrom('accounts').where('id', '=', accountId).executeTakeFirst();
    // Deleted meanwhile by another transaction: that one wrote the tombstone.
    if (Number(result.numDeletedRows) === 0) return false;
    await trx.insertInto('activity_log').values(activityRow(tombstone)).execute();
    return true;
  });
}

/** The account recovery queries over one store context. */
export function recoveryQueries(ctx: StoreContext): RecoveryStore {
  return bindQueries(ctx, {
    insertResetToken,
    findUsableResetToken,
    consumeResetToken,
    deleteResetTokensOf,
    deleteExpiredResetTokens,
    addActivity,
    listActivity,
    pruneActivity,
    listSessions,
    deleteSessionByPublicId,
    deleteAccount,
  });
}
