import type { ApiService } from '../config.js';

/** Row shapes of the store's tables; timestamps are epoch milliseconds. */
export interface AccountsTable {
  id: string;
  email: string;
  email_normalized: string;
  password_hash: string | null;
  render_limit: number | null;
  metadata_limit: number | null;
  created_at: number;
  /** Bumped with every password change; a session minted under an older one is refused. */
  credential_version: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  service: ApiService;
  key_hash: string;
  display_prefix: string;
  name: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface SessionsTable {
  /** SHA-256 of the session id: a copy of the table does not hand out live sessions. */
  id_hash: string;
  account_id: string;
  csrf_token: string;
  created_at: number;
  last_seen_at: number;
  /** Random id that names the session in forms (ending it from the sessions list); null only mid-migration. */
  public_id: string | null;
  ip: string | null;
  user_agent: string | null;
  /** The account's credential version its log-in checked; valid only while still the account's. */
  credential_version: number;
}

export interface UsageDailyTable {
  account_id: string;
  service: ApiService;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  outcome: UsageOutcome;
  count: number;
}

/**
 * How an authenticated request ended, for the usage counters. `target_error`: the page a metadata
 * request asked for failed (502/504), not our service.
 */
export type UsageOutcome = 'ok' | 'client_error' | 'server_error' | 'rate_limited' | 'target_error';

/** Requests of one key per UTC day and outcome (kept like usage_daily). */
export interface UsageDailyKeysTable {
  key_id: string;
  account_id: string;
  service: ApiService;
  day: string;
  outcome: UsageOutcome;
  count: number;
}

/** Requests of one key per UTC hour and outcome, for the "last 24 hours" view; pruned after 48 hours. */
export interface UsageHourlyKeysTable {
  key_id: string;
  account_id: string;
  service: ApiService;
  /** UTC hour, YYYY-MM-DDTHH. */
  hour: string;
  outcome: UsageOutcome;
  count: number;
}

/** A just-created API key waiting for its one display, sealed with the session's own id (see key-reveal.ts). */
export interface KeyRevealsTable {
  session_hash: string;
  key_id: string;
  sealed: string;
  created_at: number;
}

export interface PasswordResetTokensTable {
  /** SHA-256 of the token: a copy of the table does not hand out usable links. */
  token_hash: string;
  account_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface ActivityLogTable {
  id: string;
  /** Not a foreign key: an account's deletion tombstone outlives the account. */
  account_id: string;
  at: number;
  kind: string;
  /** Who did it: 'dashboard', 'cli' or 'system'. */
  actor: string;
  ip: string | null;
  user_agent: string | null;
  /** A short human-readable detail (key prefix, service and limit, …); never a secret or an email. */
  detail: string | null;
}

/** Where a render job is: queued → running → succeeded | failed; canceled by its owner. */
export type RenderJobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';

/** A render job: the queue of record (leases over this table) and its webhook outbox. */
export interface RenderJobsTable {
  /** `job_` and 32 random hex characters. */
  id: string;
  account_id: string;
  status: RenderJobStatus;
  /** The render request as JSON `{html, output, options}`; emptied once the job is final. */
  request: string;
  reference: string | null;
  idempotency_key: string | null;
  /** SHA-256 of the request body with its webhook and reference: a repeated key must carry the same body. */
  request_hash: string | null;
  webhook_url: string | null;
  created_at: number;
  /** When the current (or last) attempt started. */
  started_at: number | null;
  finished_at: number | null;
  attempts: number;
  /** The worker holding the job while it runs, and until when; a lapsed lease makes the job claimable again. */
  lease_owner: string | null;
  lease_expires_at: number | null;
  error_code: string | null;
  error_message: string | null;
  /** The result store's key of the PDF; null before success and once deleted or expired. */
  pdf_key: string | null;
  pdf_bytes: number | null;
  pdf_pages: number | null;
  pdf_expires_at: number | null;
  /** `pending` once the job is final and has a webhook URL (set in the statement that makes it final), then `delivered` or `exhausted`. */
  webhook_state: string | null;
  webhook_next_at: number | null;
  webhook_attempts: number;
  webhook_lease_expires_at: number | null;
  /** UTF-8 bytes of the request's HTML, counted against RENDER_JOBS_MAX_QUEUED_MB while queued. */
  html_bytes: number;
  /** Which result store holds the PDF (ResultStore.id); null for PDFs stored before it was recorded. */
  pdf_store: string | null;
  /** When Redeliver was last asked for (at most once a minute per job); null when never. */
  webhook_redeliver_at: number | null;
  /** 1 when submitted with `Prefer: handling=strict`: any warning fails the job RENDER_INCOMPLETE. */
  strict: number;
  /** The API key that submitted the job (null for jobs older than the column). */
  key_id: string | null;
  /** The render report's entries (JSON array) once the job is final; null before. */
  warnings: string | null;
  /**
   * The result store keys (JSON array) of files uploaded with the request, until they are deleted once
   * the job is final; null when it had none.
   */
  upload_keys: string | null;
  /** Which result store holds the uploads (ResultStore.id). */
  upload_store: string | null;
}

/** One signing secret per account (`whsec_…`), created on first need, replaced on rotation. */
/** An account's signing certificate (PKCS#12 upload): chain in the clear, private key sealed with the server's key (SECRETS_KEY). */
export interface SigningCertificatesTable {
  id: string;
  account_id: string;
  name: string | null;
  subject: string;
  issuer: string;
  not_after: number;
  /** Base64 DER certificates, comma-separated, the signer's own first. */
  chain: string;
  /** `v1.` + base64 of IV, GCM tag and the encrypted PKCS#8 key. */
  sealed_key: string;
  created_at: number;
}

export interface WebhookSecretsTable {
  account_id: string;
  secret: string;
  created_at: number;
  /** The secret the last rotation replaced: it signs too (a second signature) until `previous_until`. */
  previous_secret: string | null;
  previous_until: number | null;
}

/** One webhook delivery attempt; kept 7 days. No foreign key to the job: the attempt outlives its job's purge. */
export interface WebhookDeliveriesTable {
  id: string;
  job_id: string;
  account_id: string;
  /** The `webhook-id` header sent (the same on every attempt of one event). */
  webhook_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  created_at: number;
}

/** One render as the render log keeps it (RENDER_LOG_RETENTION_DAYS); no foreign keys: rows are swept by age. */
export interface RenderLogTable {
  /** The render id: a sync render's `X-Render-ID` (`rnd_…`) or a job's id. */
  id: string;
  account_id: string;
  key_id: string | null;
  created_at: number;
  duration_ms: number;
  /** `api` (POST /v1/render) or `job`. */
  source: string;
  job_id: string | null;
  /** `succeeded` or `failed`. */
  status: string;
  error_code: string | null;
  error_message: string | null;
  pages: number | null;
  bytes: number | null;
  warning_count: number;
  /** The report entries as a JSON array. */
  warnings: string;
}

/** Kysely's view of the whole database. */
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  usage_daily: UsageDailyTable;
  usage_daily_keys: UsageDailyKeysTable;
  usage_hourly_keys: UsageHourlyKeysTable;
  key_reveals: KeyRevealsTable;
  password_reset_tokens: PasswordResetTokensTable;
  activity_log: ActivityLogTable;
  render_jobs: RenderJobsTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  render_log: RenderLogTable;
  signing_certificates: SigningCertificatesTable;
}
