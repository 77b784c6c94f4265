import { bindQueries, type StoreContext } from './store-context.js';

// Dashboard sessions, written once for both dialects: the row by the hash of its cookie. The
// sessions list and deletion by public id are with account recovery (recovery-queries.ts).

/** A dashboard session row. */
export interface SessionRecord {
  accountId: string;
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
  /** Names the session in forms (the sessions list); never the cookie nor its hash. */
  publicId?: string;
  ip?: string | null;
  userAgent?: string | null;
  /** The credential version the log-in checked (0 when absent); the session is refused once it is stale. */
  credentialVersion?: number;
}

/** Store methods of dashboard sessions. */
export interface SessionStore {
  createSession(idHash: string, session: SessionRecord): Promise<void>;
  /** The session, unless its account is gone or its credential version is no longer the account's. */
  findSession(idHash: string): Promise<SessionRecord | undefined>;
  touchSession(idHash: string, at: number): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Deletes every session of the account except the one given (all when undefined). */
  deleteSessionsOf(accountId: string, exceptIdHash?: string): Promise<void>;
  /** Deletes sessions idle since before `lastSeenBefore`, created before `createdBefore` or stale; returns how many. */
  deleteExpiredSessions(lastSeenBefore: number, createdBefore: number): Promise<number>;
}

/** See SessionStore.createSession. */
export async function createSession({ db }: StoreContext, idHash: string, s: SessionRecord) {
  await db
    .insertInto('sessions')
    .values({
      id_hash: idHash,
      account_id: s.accountId,
      csrf_token: s.csrfToken,
      created_at: s.createdAt,
      last_seen_at: s.lastSeenAt,
      public_id: s.publicId ?? idHash.slice(0, 22),
      ip: s.ip ?? null,
      user_agent: s.userAgent ?? null,
      credential_version: s.credentialVersion ?? 0,
    })
    .execute();
}

/** See SessionStore.findSession. */
export async function findSession({ db }: StoreContext, idHash: string) {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .selectAll('sessions')
    .where('sessions.id_hash', '=', idHash)
    // Minted under a password that has been changed since: as good as deleted.
    .whereRef('sessions.credential_version', '=', 'accounts.credential_version')
    .executeTakeFirst();
  return (
    row && {
      accountId: row.account_id,
      csrfToken: row.csrf_token,
      createdAt: Number(row.created_at),
      lastSeenAt: Number(row.last_seen_at),
    }
  );
}

/** See SessionStore.touchSession. */
export async function touchSession({ db }: StoreContext, idHash: string, at: number) {
  await db.updateTable('sessions').set({ last_seen_at: at }).where('id_hash', '=', idHash).execute();
}

/** See SessionStore.deleteSession. */
export async function deleteSession({ db }: StoreContext, idHash: string) {
  await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
}

/** See SessionStore.deleteSessionsOf. */
export async function deleteSessionsOf({ db }: StoreContext, accountId: string, exceptIdHash?: string) {
  let query = db.deleteFrom('sessions').where('account_id', '=', accountId);
  if (exceptIdHash !== undefined) query = query.where('id_hash', '!=', exceptIdHash);
  await query.execute();
}

/** See SessionStore.deleteExpiredSessions. */
export async function deleteExpiredSessions({ db }: StoreContext, lastSeenBefore: number, createdBefore: number) {
  const result = await db
    .deleteFrom('sessions')
    .where((eb) =>
      eb.or([
        eb('last_seen_at', '<', lastSeenBefore),
        eb('created_at', '<', createdBefore),
        eb(
          'credential_version',
          '!=',
          eb.selectFrom('accounts').select('accounts.credential_version').whereRef('accounts.id', '=', 'sessions.account_id'),
        ),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The session queries over one store context. */
export function sessionQueries(ctx: StoreContext): SessionStore {
  return bindQueries(ctx, { createSession, findSession, touchSession, deleteSession, deleteSessionsOf, deleteExpiredSessions });
}
