import type { ApiService } from '../config.js';
import type { AccountsTable } from './schema.js';
import { bindQueries, type StoreContext } from './store-context.js';

// Accounts: the row, its per-account limits and its password, written once for both dialects.

/** An account as the application sees it. */
export interface Account {
  id: string;
  email: string;
  passwordHash: string | null;
  limits: { render: number | null; metadata: number | null };
  createdAt: number;
  /** Changes with every password change: what a session must carry to stay valid (read with the hash). */
  credentialVersion: number;
}

/** Store methods of accounts. */
export interface AccountStore {
  createAccount(input: { id: string; email: string; passwordHash: string | null; createdAt: number }): Promise<Account>;
  findAccountByEmail(email: string): Promise<Account | undefined>;
  findAccountById(id: string): Promise<Account | undefined>;
  countAccounts(): Promise<number>;
  setAccountLimit(accountId: string, service: ApiService, limit: number | null): Promise<void>;
  /**
   * Replaces the password hash, bumps the credential version and deletes every session and reset token
   * of the account, in one transaction; returns the new credential version.
   */
  setPasswordHash(accountId: string, passwordHash: string): Promise<number>;
}

function toAccount(row: AccountsTable): Account {
  return {
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    limits: { render: row.render_limit, metadata: row.metadata_limit },
    createdAt: Number(row.created_at),
    credentialVersion: Number(row.credential_version),
  };
}

/** Normalises an email for the case-insensitive unique index. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** See AccountStore.createAccount. */
export async function createAccount(
  { db }: StoreContext,
  input: { id: string; email: string; passwordHash: string | null; createdAt: number },
) {
  const row: AccountsTable = {
    id: input.id,
    email: input.email.trim(),
    email_normalized: normalizeEmail(input.email),
    password_hash: input.passwordHash,
    render_limit: null,
    metadata_limit: null,
    created_at: input.createdAt,
    credential_version: 0,
  };
  await db.insertInto('accounts').values(row).execute();
  return toAccount(row);
}

/** See AccountStore.findAccountByEmail. */
export async function findAccountByEmail({ db }: StoreContext, email: string) {
  const row = await db
    .selectFrom('accounts')
    .selectAll()
    .where('email_normalized', '=', normalizeEmail(email))
    .executeTakeFirst();
  return row && toAccount(row);
}

/** See AccountStore.findAccountById. */
export async function findAccountById({ db }: StoreContext, id: string) {
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toAccount(row);
}

/** See AccountStore.countAccounts. */
export async function countAccounts({ db }: StoreContext) {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** See AccountStore.setAccountLimit. */
export async function setAccountLimit({ db }: StoreContext, accountId: string, service: ApiService, limit: number | null) {
  const column = service === 'render' ? 'render_limit' : 'metadata_limit';
  await db
    .updateTable('accounts')
    .set({ [column]: limit })
    .where('id', '=', accountId)
    .execute();
}

/** See AccountStore.setPasswordHash. */
export async function setPasswordHash({ db }: StoreContext, accountId: string, passwordHash: string) {
  return db.transaction().execute(async (trx) => {
    // Sessions minted under the old version, even by a log-in that committed after the delete below
    // (it checked the old hash), are refused from the commit on: see findSession.
    const row = await trx
      .updateTable('accounts')
      .set((eb) => ({ password_hash: passwordHash, credential_version: eb('credential_version', '+', 1) }))
      .where('id', '=', accountId)
      .returning('credential_version')
      .executeTakeFirst();
    await trx.deleteFrom('sessions').where('account_id', '=', accountId).execute();
    await trx.deleteFrom('password_reset_tokens').where('account_id', '=', accountId).execute();
    return Number(row?.credential_version ?? 0);
  });
}

/** The account queries over one store context. */
export function accountQueries(ctx: StoreContext): AccountStore {
  return bindQueries(ctx, {
    createAccount,
    findAccountByEmail,
    findAccountById,
    countAccounts,
    setAccountLimit,
    setPasswordHash,
  });
}
