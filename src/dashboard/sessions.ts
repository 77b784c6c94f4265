import crypto from 'node:crypto';
import type { ClientInfo } from '../accounts/activity.js';
import type { RecoveryStore, SessionListing } from '../store/recovery-queries.js';
import type { SessionStore } from '../store/session-queries.js';

/** Session lifetimes: idle (no request for this long ends it) and absolute (from login). */
export interface SessionTimeouts {
  idleMs: number;
  absoluteMs: number;
}

/** Two hours idle, seven days at most. */
export const DEFAULT_TIMEOUTS: SessionTimeouts = { idleMs: 2 * 60 * 60 * 1000, absoluteMs: 7 * 24 * 60 * 60 * 1000 };

/** A live session as a request sees it. */
export interface ActiveSession {
  idHash: string;
  accountId: string;
  csrfToken: string;
  createdAt: number;
}

// Writing last_seen on every page view would turn reads into writes; a minute of slack is harmless
// against a two-hour idle timeout.
const TOUCH_EVERY_MS = 60_000;

/** 256 random bits, URL-safe: session ids and CSRF tokens. */
export function randomToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** SHA-256 of a session id: the store never holds a usable id. */
export function hashSessionId(id: string): string {
  return crypto.createHash('sha256').update(id).digest('hex');
}

/** Compares two secrets in constant time (false for any length mismatch). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** Server-side dashboard sessions on the store's sessions table. */
export class SessionManager {
  constructor(
    private readonly store: SessionStore & Pick<RecoveryStore, 'listSessions' | 'deleteSessionByPublicId'>,
    readonly timeouts: SessionTimeouts = DEFAULT_TIMEOUTS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Starts a session; returns the id for the cookie (only its hash is stored). `credentialVersion` is the
   * account's version read together with the password hash that was checked (Account.credentialVersion).
   */
  async create(
    accountId: string,
    credentialVersion: number,
    client?: ClientInfo,
  ): Promise<{ id: string; session: ActiveSession }> {
    const id = randomToken();
    const at = this.now();
    const session = { idHash: hashSessionId(id), accountId, csrfToken: randomToken(), createdAt: at };
    await this.store.createSession(session.idHash, {
      accountId,
      csrfToken: session.csrfToken,
      createdAt: at,
      lastSeenAt: at,
      // The sessions list names a session by this, never by its cookie or the cookie's hash.
      publicId: crypto.randomBytes(16).toString('base64url'),
      ip: client?.ip ?? null,
      userAgent: client?.userAgent?.slice(0, 300) ?? null,
      credentialVersion,
    });
    return { id, session };
  }

  /** The account's live sessions, newest first. */
  async list(accountId: string): Promise<SessionListing[]> {
    const at = this.now();
    const all = await this.store.listSessions(accountId);
    return all.filter((s) => at - s.lastSeenAt <= this.timeouts.idleMs && at - s.createdAt <= this.timeouts.absoluteMs);
  }

  /** Ends the account's session with this public id; false when there is none. */
  destroyByPublicId(accountId: string, publicId: string): Promise<boolean> {
    return this.store.deleteSessionByPublicId(accountId, publicId);
  }

  /** Ends every session of the account but the one given. */
  destroyOthers(accountId: string, keepIdHash: string): Promise<void> {
    return this.store.deleteSessionsOf(accountId, keepIdHash);
  }

  /** The live session a cookie names; an expired one is deleted and treated as absent. */
  async load(id: string | undefined): Promise<ActiveSession | undefined> {
    if (!id || id.length > 100) return undefined;
    const idHash = hashSessionId(id);
    const row = await this.store.findSession(idHash);
    if (!row) return undefined;
    const at = this.now();
    if (at - row.lastSeenAt > this.timeouts.idleMs || at - row.createdAt > this.timeouts.absoluteMs) {
      await this.store.deleteSession(idHash);
      return undefined;
    }
    if (at - row.lastSeenAt > Math.min(TOUCH_EVERY_MS, this.timeouts.idleMs / 10)) await this.store.touchSession(idHash, at);
    return { idHash, accountId: row.accountId, csrfToken: row.csrfToken, createdAt: row.createdAt };
  }

  /** Ends one session. */
  destroy(idHash: string): Promise<void> {
    return this.store.deleteSession(idHash);
  }

  /** Ends every session of the account (after a password change). */
  destroyAllOf(accountId: string): Promise<void> {
    return this.store.deleteSessionsOf(accountId);
  }

  /** Removes sessions past either timeout or of a changed password, so abandoned ones do not pile up. */
  purgeExpired(): Promise<number> {
    const at = this.now();
    return this.store.deleteExpiredSessions(at - this.timeouts.idleMs, at - this.timeouts.absoluteMs);
  }
}
