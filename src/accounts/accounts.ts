import crypto from 'node:crypto';
import type { ApiService } from '../config.js';
import { InputError } from '../errors.js';
import { newId } from '../ids.js';
import type { Account, AccountStore } from '../store/account-queries.js';
import type { ActivityEntry, RecoveryStore } from '../store/recovery-queries.js';
import { DEFAULT_PASSWORD_HASH_COST, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './password.js';
import { unshowableCharacterProblem } from './user-text.js';

/** A refused account operation, with a message fit for the user. */
export class AccountError extends InputError {
  override name = 'AccountError';
}

// Deliberately loose: one @, something on both sides, a dot in the domain, no spaces.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * What else an account holds that must go before the account does (its render jobs and their PDFs):
 * called with the account's id and the time of the deletion.
 */
export type AccountDeletionHook = (accountId: string, now: number) => Promise<void>;

/** What an account service is built from besides its store. */
export interface AccountServiceOptions {
  /** The clock (default Date.now). */
  now?: () => number;
  /** log2 of scrypt's N for new password hashes (PASSWORD_HASH_COST; default 17). */
  passwordHashCost?: number;
}

/** Account creation, lookup, limits and passwords. */
export class AccountService {
  private readonly now: () => number;
  private readonly passwordHashCost: number;
  /** A hash of a random password at this service's cost, made at the first log-in of an unknown email. */
  private dummyHash: Promise<string> | undefined;
  private readonly deletionHooks: AccountDeletionHook[] = [];

  constructor(
    private readonly store: AccountStore & Pick<RecoveryStore, 'deleteAccount'>,
    opts: AccountServiceOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.passwordHashCost = opts.passwordHashCost ?? DEFAULT_PASSWORD_HASH_COST;
  }

  /**
   * Adds what else goes when an account is deleted. The hooks run in the order added, before the
   * account's own rows go, and one that throws stops the deletion. Added from above, by whoever
   * composes the services (as Fastify's onClose hooks are): accounts know nothing of what is built on them.
   */
  onDelete(hook: AccountDeletionHook): void {
    this.deletionHooks.push(hook);
  }

  /** Creates an account; the password is optional for CLI-made accounts (no dashboard login then). */
  async create(email: string, password?: string): Promise<Account> {
    const trimmed = email.trim();
    const unshowable = unshowableCharacterProblem('an email address', trimmed);
    if (unshowable) throw new AccountError(unshowable);
    if (!EMAIL.test(trimmed) || trimmed.length > 254) throw new AccountError(`"${email}" is not an email address`);
    if (password !== undefined && password.length < MIN_PASSWORD_LENGTH) {
      throw new AccountError(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    if (await this.store.findAccountByEmail(trimmed)) throw new AccountError(`an account for ${trimmed} exists already`);
    const passwordHash = password === undefined ? null : await hashPassword(password, this.passwordHashCost);
    try {
      return await this.store.createAccount({ id: newId('acc'), email: trimmed, passwordHash, createdAt: this.now() });
    } catch (err) {
      // Two sign-ups racing for one address: the unique index decides.
      if (await this.store.findAccountByEmail(trimmed)) throw new AccountError(`an account for ${trimmed} exists already`);
      throw err;
    }
  }

  /** The account with this email (case-insensitive), if any. */
  findByEmail(email: string): Promise<Account | undefined> {
    return this.store.findAccountByEmail(email);
  }

  /** The account with this id, if any. */
  findById(id: string): Promise<Account | undefined> {
    return this.store.findAccountById(id);
  }

  /** Sets (or, with null, clears) the account's limit for a service, in requests per rate-limit window. */
  async setLimit(accountId: string, service: ApiService, limit: number | null): Promise<void> {
    if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > 1_000_000)) {
      throw new AccountError('the limit must be a whole number from 1 to 1000000 requests per window');
    }
    await this.store.setAccountLimit(accountId, service, limit);
  }

  /** Checks email and password; undefined when either is wrong (no hint which). */
  async authenticate(email: string, password: string): Promise<Account | undefined> {
    // Made at the first log-in whatever its email, so that one is no slower for an unknown address.
    this.dummyHash ??= hashPassword(crypto.randomBytes(18).toString('base64'), this.passwordHashCost);
    const dummy = await this.dummyHash;
    const account = await this.store.findAccountByEmail(email);
    if (!account?.passwordHash) {
      // Spend the same time as a real check (same parameters as the hashes this service writes) so
      // response time does not reveal which emails exist.
      await verifyPassword(password, dummy);
      return undefined;
    }
    return (await verifyPassword(password, account.passwordHash)) ? account : undefined;
  }

  /**
   * Replaces the account's password and, in the same transaction, ends every session and reset link of
   * the account and bumps its credential version (a log-in still checking the old password cannot start
   * a session that survives this). Returns the new credential version, for the caller's fresh session.
   */
  async changePassword(accountId: string, password: string): Promise<number> {
    if (password.length < MIN_PASSWORD_LENGTH) {
      throw new AccountError(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`);
    }
    return this.store.setPasswordHash(accountId, await hashPassword(password, this.passwordHashCost));
  }

  /**
   * Deletes the account: keys (refused from the next request on, see KeyService.verify), sessions,
   * reset tokens, usage and activity go with it in one transaction that leaves `tombstone` (no email)
   * in the activity log. The onDelete hooks run first (jobs/account-deletion.ts: its render jobs are
   * canceled and their PDFs deleted; a worker that finishes one afterwards finds no job and deletes its
   * PDF). False when there was no such account.
   */
  async delete(accountId: string, tombstone: ActivityEntry): Promise<boolean> {
    const now = this.now();
    for (const hook of this.deletionHooks) await hook(accountId, now);
    return this.store.deleteAccount(accountId, tombstone);
  }
}
