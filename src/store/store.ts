import type { Kysely } from 'kysely';
import { type AccountStore, accountQueries } from './account-queries.js';
import { type CertificateStore, certificateQueries } from './certificate-queries.js';
import { type JobFileStore, jobFileQueries } from './job-file-queries.js';
import { type JobLeaseStore, jobLeaseQueries } from './job-lease-queries.js';
import { type JobSubmitStore, jobSubmitQueries } from './job-submit-queries.js';
import { type RenderJobStore, renderJobQueries } from './jobs-queries.js';
import { type KeyLookupOptions, type KeyStore, keyQueries } from './key-queries.js';
import { type KeyUsageStore, keyUsageQueries } from './key-usage-queries.js';
import { type RecoveryStore, recoveryQueries } from './recovery-queries.js';
import { type RenderLogStore, renderLogQueries } from './render-log-queries.js';
import type { Database } from './schema.js';
import { type SealedSecretStore, sealedSecretQueries } from './sealed-secret-queries.js';
import { type SessionStore, sessionQueries } from './session-queries.js';
import type { StoreContext } from './store-context.js';
import { type UsageStore, usageQueries } from './usage-queries.js';
import { type WebhookOutboxStore, type WebhookStore, webhookOutboxQueries, webhookQueries } from './webhook-queries.js';

// The store composes one file of queries per concern, each written once with Kysely for both
// dialects over a `{ db, kind }` context. A consumer takes the narrow interface it uses (for
// example `KeyStore`, from key-queries.ts); only the composition root holds the whole `Store`.

export type { Account, AccountStore } from './account-queries.js';
export type { CertificateStore, SigningCertificateRecord } from './certificate-queries.js';
export type { JobFileStore } from './job-file-queries.js';
export type { JobLeaseStore } from './job-lease-queries.js';
export type { CappedInsert, JobSubmitStore, QueuedCaps } from './job-submit-queries.js';
export type { JobError, JobPage, JobPdf, JobResult, NewRenderJob, RenderJobRow, RenderJobStore } from './jobs-queries.js';
export type { ApiKeyRecord, KeyLookup, KeyStore, SyncPrepare } from './key-queries.js';
export type { KeyUsageIncrement, KeyUsageStore, UsageBatch } from './key-usage-queries.js';
export type { ActivityEntry, ActivityKind, RecoveryStore, SessionListing } from './recovery-queries.js';
export type { RenderListOptions, RenderLogPage, RenderLogStore, RenderSummary } from './render-log-queries.js';
export type { SealedRow, SealedSecretStore, StoredWebhookSecrets } from './sealed-secret-queries.js';
export type { SessionRecord, SessionStore } from './session-queries.js';
export type { UsageIncrement, UsageStore } from './usage-queries.js';
export type {
  RedeliverOutcome,
  WebhookDeliveryRecord,
  WebhookDueJob,
  WebhookOutboxStore,
  WebhookSecretRecord,
  WebhookStore,
} from './webhook-queries.js';

/** The persistence interface; both adapters (SQLite, PostgreSQL) implement it with the same queries. */
export interface Store
  extends AccountStore,
    KeyStore,
    SessionStore,
    UsageStore,
    KeyUsageStore,
    RecoveryStore,
    RenderJobStore,
    JobFileStore,
    JobSubmitStore,
    JobLeaseStore,
    RenderLogStore,
    WebhookStore,
    WebhookOutboxStore,
    CertificateStore,
    SealedSecretStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Cheap round trip to check the store is reachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** What an adapter gives the store beside its database. */
export interface ComposeStoreOptions extends KeyLookupOptions {
  /** Runs after the database is closed (the adapter's own resources). */
  onClose?: () => Promise<void>;
}

/** The store over one database: every concern's queries, composed. */
export function composeStore(kind: 'sqlite' | 'postgres', db: Kysely<Database>, opts: ComposeStoreOptions = {}): Store {
  const ctx: StoreContext = { db, kind };
  return {
    kind,
    ...accountQueries(ctx),
    ...keyQueries(ctx, opts),
    ...sessionQueries(ctx),
    ...usageQueries(ctx),
    ...keyUsageQueries(ctx),
    ...recoveryQueries(ctx),
    ...renderJobQueries(ctx),
    ...jobFileQueries(ctx),
    ...jobSubmitQueries(ctx),
    ...jobLeaseQueries(ctx),
    ...renderLogQueries(ctx),
    ...webhookQueries(ctx),
    ...webhookOutboxQueries(ctx),
    ...certificateQueries(ctx),
    ...sealedSecretQueries(ctx),
    async ping() {
      await db.selectFrom('accounts').select('id').limit(1).execute();
    },
    async close() {
      await db.destroy();
      await opts.onClose?.();
    },
  };
}
