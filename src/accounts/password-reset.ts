import crypto from 'node:crypto';
import type { RecoveryStore } from '../store/recovery-queries.js';
import { AccountError, type AccountService } from './accounts.js';
import { MIN_PASSWORD_LENGTH } from './password.js';

/** How long a reset link works. */
export const RESET_TOKEN_TTL_MS = 30 * 60_000;

// 256 random bits, URL-safe: twice the floor the issue sets, and the same size as session ids.
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token).digest('hex');
}

/** The link a reset token travels in (mail or the CLI's output). */
export function resetLink(dashboardPublicUrl: string, token: string): string {
  return `${dashboardPublicUrl}/reset-password?token=${token}`;
}

/**
 * Password reset tokens: random, stored only as SHA-256, valid for 30 minutes, used at most once, and
 * void after any password change (a change deletes every token of the account).
 */
export class PasswordResets {
  constructor(
    private readonly store: RecoveryStore,
    private readonly accounts: AccountService,
    private readonly now: () => number = Date.now,
  ) {}

  /** Issues a token for the account; the token is returned here and never stored. */
  async issue(accountId: string): Promise<string> {
    const token = crypto.randomBytes(32).toString('base64url');
    const at = this.now();
    await this.store.insertResetToken({
      tokenHash: hashToken(token),
      accountId,
      createdAt: at,
      expiresAt: at + RESET_TOKEN_TTL_MS,
    });
    return token;
  }

  /** Whether the token would reset a password now (the reset page shows its form only then). */
  async usable(token: string): Promise<boolean> {
    if (!TOKEN.test(token)) return false;
    return (await this.store.findUsableResetToken(hashToken(token), this.now())) !== undefined;
  }

  /**
   * Sets a new password with a token and ends every session of the account; returns the account id,
   * or undefined when the token is unknown, expired or used. Throws AccountError for a bad password
   * (before the token is spent).
   */
  async complete(token: string, password: string): Promise<string | undefined> {
    if (password.length < MIN_PASSWORD_LENGTH || password.length > 1024) {
      throw new AccountError(`Choose a password of ${MIN_PASSWORD_LENGTH} to 1024 characters.`);
    }
    if (!TOKEN.test(token)) return undefined;
    const accountId = await this.store.consumeResetToken(hashToken(token), this.now());
    if (!accountId) return undefined;
    // Ends every session of the account in the same transaction (see AccountService.changePassword).
    await this.accounts.changePassword(accountId, password);
    return accountId;
  }

  /** Deletes tokens that expired long enough ago that nobody is looking at their page. */
  purgeExpired(): Promise<number> {
    return this.store.deleteExpiredResetTokens(this.now() - RESET_TOKEN_TTL_MS);
  }
}
