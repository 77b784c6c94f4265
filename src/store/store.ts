import type { CompiledQuery, Kysely } from 'kysely';
import type { ApiService } from '../config.js';
import type { RenderRecord } from '../render/report.js';
import * as leases from './job-lease-queries.js';
import type { QueuedCaps } from './job-submit-queries.js';
import * as submits from './job-submit-queries.js';
import type { JobError, JobResult, NewRenderJob, RenderJobStore } from './jobs-queries.js';
import * as jobs from './jobs-queries.js';
import type { KeyUsageStore, UsageBatch } from './key-usage-queries.js';
import * as keyUsage from './key-usage-queries.js';
import type { ActivityEntry, RecoveryStore } from './recovery-queries.js';
import * as recovery from './recovery-queries.js';
import type { RenderLogStore } from './render-log-queries.js';
import * as renderLog from './render-log-queries.js';
import type { AccountsTable, ApiKeysTable, Database, RenderJobStatus, UsageOutcome } from './schema.js';
import { type ChangeStamp, UnchangedCache } from './unchanged-cache.js';
import type { WebhookDeliveryRecord, WebhookOutboxStore, WebhookStore } from './webhook-queries.js';
import * as webhooks from './webhook-queries.js';

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

/** One usage counter increment. */
export interface UsageIncrement {
  accountId: string;
  service: ApiService;
  day: string;
  outcome: UsageOutcome;
  count: number;
}

export type { CappedInsert, QueuedCaps } from './job-submit-queries.js';
// The render job queue: queries in jobs-queries.ts.
export type { JobError, JobPage, JobPdf, JobResult, NewRenderJob, RenderJobRow, RenderJobStore } from './jobs-queries.js';
// Per-key usage and the one-time display of a new key: queries in key-usage-queries.ts.
export type { KeyUsageIncrement, KeyUsageStore, UsageBatch } from './key-usage-queries.js';
// Account recovery, activity log, sessions list and deletion: queries in recovery-queries.ts.
export type { ActivityEntry, ActivityKind, RecoveryStore, SessionListing } from './recovery-queries.js';
// The render log (GET /v1/renders/{id}, the Renders page): queries in render-log-queries.ts.
export type { RenderLogPage, RenderLogStore, RenderSummary } from './render-log-queries.js';

// Webhook secrets and delivery attempts: queries in webhook-queries.ts.
export type {
  RedeliverOutcome,
  WebhookDeliveryRecord,
  WebhookDueJob,
  WebhookOutboxStore,
  WebhookSecretRecord,
  WebhookStore,
} from './webhook-queries.js';

/** The persistence interface; both adapters (SQLite, PostgreSQL) implement it with the same queries. */
export interface Store extends KeyUsageStore, RecoveryStore, RenderJobStore, RenderLogStore, WebhookStore, WebhookOutboxStore {
  readonly kind: 'sqlite' | 'postgres';
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

  insertKey(input: Omit<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'> & { keyHash: string }): Promise<ApiKeyRecord>;
  findKeyByHash(keyHash: string): Promise<KeyLookup | undefined>;
  listKeys(accountId: string, service?: ApiService): Promise<ApiKeyRecord[]>;
  findKeysByDisplayPrefix(displayPrefix: string): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked (if it belongs to accountId when given); returns whether an active key was revoked. */
  revokeKey(keyId: string, at: number, accountId?: string): Promise<boolean>;
  /** Moves last_used_at forward only: an older timestamp never overwrites a newer one. */
  touchKeys(entries: ReadonlyArray<{ keyId: string; at: number }>): Promise<void>;

  createSession(idHash: string, session: SessionRecord): Promise<void>;
  /** The session, unless its account is gone or its credential version is no longer the account's. */
  findSession(idHash: string): Promise<SessionRecord | undefined>;
  touchSession(idHash: string, at: number): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** Deletes every session of the account except the one given (all when undefined). */
  deleteSessionsOf(accountId: string, exceptIdHash?: string): Promise<void>;
  /** Deletes sessions idle since before `lastSeenBefore`, created before `createdBefore` or stale; returns how many. */
  deleteExpiredSessions(lastSeenBefore: number, createdBefore: number): Promise<number>;

  /** The account's daily counters from `fromDay` on (written by recordUsage). */
  usageSince(accountId: string, fromDay: string): Promise<UsageIncrement[]>;

  /** Cheap round trip to check the store is reachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
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

/** Prepares a SQL statement for synchronous execution (the embedded SQLite driver can). */
export type SyncPrepare = (sql: string) => (params: readonly unknown[]) => unknown[];

function keyLookupQuery(db: Kysely<Database>) {
  return db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .selectAll('api_keys')
    .select(['accounts.render_limit', 'accounts.metadata_limit'])
    .where('api_keys.key_hash', '=', '');
}

/** Normalises an email for the case-insensitive unique index. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The store's queries, written once with Kysely for both dialects. */
export class KyselyStore implements Store {
  // The key lookup runs on every API request: compiled once, executed with the hash as its only
  // parameter, and on SQLite run as a prepared statement of that same SQL (no async driver hops).
  private readonly keyLookup: CompiledQuery<KeyLookupRow>;
  private readonly runKeyLookup: ((params: readonly unknown[]) => KeyLookupRow[]) | undefined;
  /** Found keys, kept while the database is unchanged (only where the store can tell that per request). */
  private readonly foundKeys: UnchangedCache<KeyLookup> | undefined;

  constructor(
    readonly kind: 'sqlite' | 'postgres',
    private readonly db: Kysely<Database>,
    opts: { prepare?: SyncPrepare; changeStamp?: ChangeStamp; onClose?: () => Promise<void> } = {},
  ) {
    this.keyLookup = keyLookupQuery(db).compile() as CompiledQuery<KeyLookupRow>;
    this.runKeyLookup = opts.prepare?.(this.keyLookup.sql) as typeof this.runKeyLookup;
    this.foundKeys = opts.changeStamp ? new UnchangedCache(opts.changeStamp) : undefined;
    this.onClose = opts.onClose ?? (async () => {});
  }

  private readonly onClose: () => Promise<void>;

  async createAccount(input: { id: string; email: string; passwordHash: string | null; createdAt: number }) {
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
    await this.db.insertInto('accounts').values(row).execute();
    return toAccount(row);
  }

  async findAccountByEmail(email: string) {
    const row = await this.db
      .selectFrom('accounts')
      .selectAll()
      .where('email_normalized', '=', normalizeEmail(email))
      .executeTakeFirst();
    return row && toAccount(row);
  }

  async findAccountById(id: string) {
    const row = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toAccount(row);
  }

  async countAccounts() {
    const row = await this.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async setAccountLimit(accountId: string, service: ApiService, limit: number | null) {
    const column = service === 'render' ? 'render_limit' : 'metadata_limit';
    await this.db
      .updateTable('accounts')
      .set({ [column]: limit })
      .where('id', '=', accountId)
      .execute();
  }

  async setPasswordHash(accountId: string, passwordHash: string) {
    return this.db.transaction().execute(async (trx) => {
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

  async insertKey(input: Omit<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'> & { keyHash: string }) {
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
    await this.db.insertInto('api_keys').values(row).execute();
    return toKey(row);
  }

  async findKeyByHash(keyHash: string): Promise<KeyLookup | undefined> {
    const cached = this.foundKeys?.get(keyHash);
    if (cached) return cached;
    const row = this.runKeyLookup
      ? this.runKeyLookup([keyHash])[0]
      : (await this.db.executeQuery<KeyLookupRow>({ ...this.keyLookup, parameters: [keyHash] })).rows[0];
    if (!row) return undefined;
    const limit = row.service === 'render' ? row.render_limit : row.metadata_limit;
    // Frozen: the cache hands the same object to every later caller.
    const found = Object.freeze({ ...toKey(row), limitOverride: limit === null ? null : Number(limit) });
    this.foundKeys?.set(keyHash, found);
    return found;
  }

  async listKeys(accountId: string, service?: ApiService) {
    let query = this.db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId);
    if (service) query = query.where('service', '=', service);
    const rows = await query.orderBy('created_at', 'desc').orderBy('id').execute();
    return rows.map(toKey);
  }

  async findKeysByDisplayPrefix(displayPrefix: string) {
    const rows = await this.db.selectFrom('api_keys').selectAll().where('display_prefix', '=', displayPrefix).execute();
    return rows.map(toKey);
  }

  async revokeKey(keyId: string, at: number, accountId?: string) {
    let query = this.db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', keyId).where('revoked_at', 'is', null);
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async touchKeys(entries: ReadonlyArray<{ keyId: string; at: number }>) {
    if (entries.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (const { keyId, at } of entries) {
        await trx
          .updateTable('api_keys')
          .set({ last_used_at: at })
          .where('id', '=', keyId)
          .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
          .execute();
      }
    });
  }

  async createSession(idHash: string, s: SessionRecord) {
    await this.db
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

  async findSession(idHash: string) {
    const row = await this.db
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

  async touchSession(idHash: string, at: number) {
    await this.db.updateTable('sessions').set({ last_seen_at: at }).where('id_hash', '=', idHash).execute();
  }

  async deleteSession(idHash: string) {
    await this.db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
  }

  async deleteSessionsOf(accountId: string, exceptIdHash?: string) {
    let query = this.db.deleteFrom('sessions').where('account_id', '=', accountId);
    if (exceptIdHash !== undefined) query = query.where('id_hash', '!=', exceptIdHash);
    await query.execute();
  }

  async deleteExpiredSessions(lastSeenBefore: number, createdBefore: number) {
    const result = await this.db
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

  async usageSince(accountId: string, fromDay: string) {
    const rows = await this.db
      .selectFrom('usage_daily')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('day', '>=', fromDay)
      .orderBy('day')
      .execute();
    return rows.map((r) => ({
      accountId: r.account_id,
      service: r.service,
      day: r.day,
      outcome: r.outcome,
      count: Number(r.count),
    }));
  }

  // ---- per-key usage and one-time key display (issue 16, part 2 and 6): see key-usage-queries.ts ----

  recordUsage(batch: UsageBatch) {
    return keyUsage.recordUsage(this.db, batch);
  }

  keyUsageSince(accountId: string, fromDay: string) {
    return keyUsage.keyUsageSince(this.db, accountId, fromDay);
  }

  keyHourlyUsageSince(accountId: string, fromHour: string) {
    return keyUsage.keyHourlyUsageSince(this.db, accountId, fromHour);
  }

  putKeyReveal(sessionHash: string, keyId: string, sealed: string, at: number) {
    return keyUsage.putKeyReveal(this.db, sessionHash, keyId, sealed, at);
  }

  takeKeyReveal(sessionHash: string, keyId: string, notBefore: number) {
    return keyUsage.takeKeyReveal(this.db, sessionHash, keyId, notBefore);
  }

  deleteKeyRevealsBefore(before: number) {
    return keyUsage.deleteKeyRevealsBefore(this.db, before);
  }

  // ---- end of per-key usage ----

  // ---- account recovery, activity log, sessions list, account deletion: see recovery-queries.ts ----

  insertResetToken(input: { tokenHash: string; accountId: string; createdAt: number; expiresAt: number }) {
    return recovery.insertResetToken(this.db, input);
  }

  findUsableResetToken(tokenHash: string, at: number) {
    return recovery.findUsableResetToken(this.db, tokenHash, at);
  }

  consumeResetToken(tokenHash: string, at: number) {
    return recovery.consumeResetToken(this.db, tokenHash, at);
  }

  deleteResetTokensOf(accountId: string) {
    return recovery.deleteResetTokensOf(this.db, accountId);
  }

  deleteExpiredResetTokens(before: number) {
    return recovery.deleteExpiredResetTokens(this.db, before);
  }

  addActivity(e: ActivityEntry) {
    return recovery.addActivity(this.db, e);
  }

  listActivity(accountId: string, limit: number, offset: number) {
    return recovery.listActivity(this.db, accountId, limit, offset);
  }

  pruneActivity(before: number) {
    return recovery.pruneActivity(this.db, before);
  }

  listSessions(accountId: string) {
    return recovery.listSessions(this.db, accountId);
  }

  deleteSessionByPublicId(accountId: string, publicId: string) {
    return recovery.deleteSessionByPublicId(this.db, accountId, publicId);
  }

  deleteAccount(accountId: string, tombstone: ActivityEntry) {
    return recovery.deleteAccount(this.db, accountId, tombstone);
  }

  // ---- end of account recovery ----

  // ---- render jobs: see jobs-queries.ts ----

  insertJob(job: NewRenderJob) {
    return jobs.insertJob(this.db, job);
  }

  insertJobWithinCaps(job: NewRenderJob, caps: QueuedCaps) {
    return submits.insertJobWithinCaps(this.db, this.kind, job, caps);
  }

  findJob(id: string, accountId?: string) {
    return jobs.findJob(this.db, id, accountId);
  }

  findJobByIdempotencyKey(accountId: string, key: string) {
    return jobs.findJobByIdempotencyKey(this.db, accountId, key);
  }

  releaseIdempotencyKey(id: string) {
    return jobs.releaseIdempotencyKey(this.db, id);
  }

  countQueuedJobs(accountId: string) {
    return jobs.countQueuedJobs(this.db, accountId);
  }

  claimJob(owner: string, now: number, leaseMs: number, maxAttempts: number, lapsed = true) {
    return leases.claimJob(this.db, this.kind, owner, now, leaseMs, maxAttempts, lapsed);
  }

  renewJobLease(id: string, owner: string, until: number) {
    return leases.renewJobLease(this.db, id, owner, until);
  }

  heldJobs(owner: string, ids: readonly string[]) {
    return leases.heldJobs(this.db, owner, ids);
  }

  finishJob(id: string, owner: string, now: number, result: JobResult) {
    return leases.finishJob(this.db, id, owner, now, result);
  }

  requeueJob(id: string, owner: string, error: JobError) {
    return leases.requeueJob(this.db, id, owner, error);
  }

  releaseJob(id: string, owner: string) {
    return leases.releaseJob(this.db, id, owner);
  }

  cancelJob(id: string, accountId: string, now: number) {
    return jobs.cancelJob(this.db, id, accountId, now);
  }

  clearJobPdf(id: string, accountId: string) {
    return jobs.clearJobPdf(this.db, id, accountId);
  }

  listJobs(accountId: string, opts: { status?: RenderJobStatus; limit: number; cursor?: { createdAt: number; id: string } }) {
    return jobs.listJobs(this.db, accountId, opts);
  }

  expiredPdfs(now: number, limit: number, storeId: string, afterId?: string) {
    return jobs.expiredPdfs(this.db, now, limit, storeId, afterId);
  }

  clearExpiredPdf(id: string, pdfKey: string) {
    return jobs.clearExpiredPdf(this.db, id, pdfKey);
  }

  deleteFinishedJobs(before: number, limit: number) {
    return jobs.deleteFinishedJobs(this.db, before, limit);
  }

  cancelAccountJobs(accountId: string, now: number) {
    return jobs.cancelAccountJobs(this.db, accountId, now);
  }

  jobQueueStats() {
    return jobs.jobQueueStats(this.db);
  }

  // ---- end of render jobs ----

  // ---- webhook secrets and delivery attempts: see webhook-queries.ts ----

  findWebhookSecret(accountId: string) {
    return webhooks.findWebhookSecret(this.db, accountId);
  }

  ensureWebhookSecret(accountId: string, candidate: string, at: number) {
    return webhooks.ensureWebhookSecret(this.db, accountId, candidate, at);
  }

  findWebhookSecrets(accountId: string) {
    return webhooks.findWebhookSecrets(this.db, accountId);
  }

  rotateWebhookSecret(accountId: string, secret: string, at: number, previousUntil: number) {
    return webhooks.rotateWebhookSecret(this.db, accountId, secret, at, previousUntil);
  }

  insertWebhookDelivery(d: WebhookDeliveryRecord) {
    return webhooks.insertWebhookDelivery(this.db, d);
  }

  listWebhookDeliveries(accountId: string, jobIds: readonly string[]) {
    return webhooks.listWebhookDeliveries(this.db, accountId, jobIds);
  }

  purgeWebhookDeliveries(before: number) {
    return webhooks.purgeWebhookDeliveries(this.db, before);
  }

  claimDueWebhooks(now: number, leaseUntil: number, limit: number, perAccount: number) {
    return webhooks.claimDueWebhooks(this.db, this.kind, now, leaseUntil, limit, perAccount);
  }

  settleWebhook(
    jobId: string,
    outcome: { state: 'pending' | 'delivered' | 'exhausted'; attempts: number; nextAt: number | null },
    claimedAt: number,
  ) {
    return webhooks.settleWebhook(this.db, jobId, outcome, claimedAt);
  }

  redeliverWebhook(accountId: string, jobId: string, now: number, minIntervalMs: number) {
    return webhooks.redeliverWebhook(this.db, accountId, jobId, now, minIntervalMs);
  }

  // ---- end of webhooks ----

  // ---- the render log: see render-log-queries.ts ----

  insertRenderRecords(records: readonly RenderRecord[]) {
    return renderLog.insertRenderRecords(this.db, records);
  }

  findRenderRecord(id: string, accountId: string) {
    return renderLog.findRenderRecord(this.db, id, accountId);
  }

  listRenderRecords(
    accountId: string,
    opts: { limit: number; cursor?: { createdAt: number; id: string }; problemsOnly?: boolean },
  ) {
    return renderLog.listRenderRecords(this.db, accountId, opts);
  }

  purgeRenderRecords(before: number) {
    return renderLog.purgeRenderRecords(this.db, before);
  }

  // ---- end of the render log ----

  async ping() {
    await this.db.selectFrom('accounts').select('id').limit(1).execute();
  }

  async close() {
    await this.db.destroy();
    await this.onClose();
  }
}
