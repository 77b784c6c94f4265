import { type Kysely, type Migration, sql } from 'kysely';

/**
 * The schema's history. One set serves SQLite and PostgreSQL: only portable column types
 * (text, integer, bigint) are used; PostgreSQL's int8 is parsed back to a JS number by the adapter.
 * They apply in name order: a new one takes the next number, `0012_…` (migration-order.ts, tested),
 * and a name once released never changes (stores record it).
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_initial': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('email_normalized', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text')
        .addColumn('render_limit', 'integer')
        .addColumn('metadata_limit', 'integer')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('service', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('display_prefix', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .addColumn('revoked_at', 'bigint')
        .execute();
      await db.schema.createIndex('api_keys_account_idx').on('api_keys').columns(['account_id', 'service']).execute();
      await db.schema
        .createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('sessions_account_idx').on('sessions').column('account_id').execute();
      await db.schema
        .createTable('usage_daily')
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('service', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('count', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_daily_pk', ['account_id', 'service', 'day', 'outcome'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of ['usage_daily', 'sessions', 'api_keys', 'accounts']) {
        await sql`drop table if exists ${sql.table(table)}`.execute(db);
      }
    },
  },
  '0002_account_recovery': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('password_reset_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema.createIndex('password_reset_tokens_account_idx').on('password_reset_tokens').column('account_id').execute();
      // No foreign key: the tombstone of a deleted account outlives its account row.
      await db.schema
        .createTable('activity_log')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('ip', 'text')
        .addColumn('user_agent', 'text')
        .addColumn('detail', 'text')
        .execute();
      await db.schema.createIndex('activity_log_account_at_idx').on('activity_log').columns(['account_id', 'at']).execute();
      await db.schema.createIndex('activity_log_at_idx').on('activity_log').column('at').execute();
      await db.schema.alterTable('sessions').addColumn('public_id', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('ip', 'text').execute();
      await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
      // Sessions from before this migration get a public id derived from their hash: a part of a hash
      // of the cookie is no more usable as a cookie than the whole hash, and nobody is logged out.
      await sql`update sessions set public_id = substr(id_hash, 1, 22) where public_id is null`.execute(db);
      await db.schema.createIndex('sessions_public_id_idx').on('sessions').column('public_id').unique().execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop index if exists sessions_public_id_idx`.execute(db);
      for (const column of ['user_agent', 'ip', 'public_id']) await db.schema.alterTable('sessions').dropColumn(column).execute();
      for (const table of ['activity_log', 'password_reset_tokens']) {
        await sql`drop table if exists ${sql.table(table)}`.execute(db);
      }
    },
  },
  // Per-key usage (daily, and hourly for the last 48 hours) and the one-time display of a new key.
  // Separate tables: usage_daily keeps serving per-account limits and history unchanged.
  '0003_usage_per_key': {
    async up(db: Kysely<unknown>) {
      for (const [table, bucket] of [
        ['usage_daily_keys', 'day'],
        ['usage_hourly_keys', 'hour'],
      ] as const) {
        await db.schema
          .createTable(table)
          .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
          .addColumn('service', 'text', (c) => c.notNull())
          .addColumn(bucket, 'text', (c) => c.notNull())
          .addColumn('outcome', 'text', (c) => c.notNull())
          .addColumn('count', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint(`${table}_pk`, ['key_id', bucket, 'outcome'])
          .execute();
        await db.schema.createIndex(`${table}_account_idx`).on(table).columns(['account_id', bucket]).execute();
      }
      await db.schema
        .createTable('key_reveals')
        .addColumn('session_hash', 'text', (c) => c.notNull().references('sessions.id_hash').onDelete('cascade'))
        .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
        .addColumn('sealed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('key_reveals_pk', ['session_hash', 'key_id'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of ['key_reveals', 'usage_hourly_keys', 'usage_daily_keys']) {
        await sql`drop table if exists ${sql.table(table)}`.execute(db);
      }
    },
  },
  // A password change bumps the account's credential version in the same transaction that swaps the
  // hash and ends the sessions; a session keeps the version its log-in checked and is refused once that
  // is no longer current, so a log-in that raced the change cannot outlive it.
  '0004_credential_version': {
    async up(db: Kysely<unknown>) {
      for (const table of ['accounts', 'sessions']) {
        await db.schema
          .alterTable(table)
          .addColumn('credential_version', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
      }
    },
    async down(db: Kysely<unknown>) {
      for (const table of ['sessions', 'accounts']) await db.schema.alterTable(table).dropColumn('credential_version').execute();
    },
  },
  // Render jobs: the queue of record, the stored PDFs' keys and the webhook outbox, in one table so
  // that a job becomes final and its webhook due in one statement.
  '0005_render_jobs': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('render_jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('request', 'text', (c) => c.notNull())
        .addColumn('reference', 'text')
        .addColumn('idempotency_key', 'text')
        .addColumn('request_hash', 'text')
        .addColumn('webhook_url', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('started_at', 'bigint')
        .addColumn('finished_at', 'bigint')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'bigint')
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('pdf_key', 'text')
        .addColumn('pdf_bytes', 'bigint')
        .addColumn('pdf_pages', 'integer')
        .addColumn('pdf_expires_at', 'bigint')
        .addColumn('webhook_state', 'text')
        .addColumn('webhook_next_at', 'bigint')
        .addColumn('webhook_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('webhook_lease_expires_at', 'bigint')
        .execute();
      // The idempotency key decides races between identical requests: the second insert conflicts.
      await db.schema
        .createIndex('render_jobs_idempotency_idx')
        .on('render_jobs')
        .columns(['account_id', 'idempotency_key'])
        .unique()
        .where(sql.ref('idempotency_key'), 'is not', null)
        .execute();
      // Claiming (per account, oldest first), the per-account queued count and the running count per account.
      await db.schema
        .createIndex('render_jobs_status_account_idx')
        .on('render_jobs')
        .columns(['status', 'account_id', 'created_at', 'id'])
        .execute();
      // Lapsed leases, found by the claim.
      await db.schema.createIndex('render_jobs_lease_idx').on('render_jobs').columns(['status', 'lease_expires_at']).execute();
      // An account's listing (newest first) and its last claim (round-robin across accounts).
      await db.schema
        .createIndex('render_jobs_account_created_idx')
        .on('render_jobs')
        .columns(['account_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('render_jobs_account_started_idx')
        .on('render_jobs')
        .columns(['account_id', 'started_at'])
        .execute();
      // The retention sweep.
      await db.schema.createIndex('render_jobs_pdf_expires_idx').on('render_jobs').column('pdf_expires_at').execute();
      // The webhook dispatcher's due deliveries.
      await db.schema
        .createIndex('render_jobs_webhook_idx')
        .on('render_jobs')
        .columns(['webhook_state', 'webhook_next_at'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table if exists render_jobs`.execute(db);
    },
  },
  // Webhook signing secrets (one per account) and every delivery attempt (purged after 7 days).
  '0006_webhooks': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('webhook_secrets')
        .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('job_id', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('webhook_id', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_job_idx')
        .on('webhook_deliveries')
        .columns(['job_id', 'created_at'])
        .execute();
      await db.schema.createIndex('webhook_deliveries_at_idx').on('webhook_deliveries').column('created_at').execute();
    },
    async down(db: Kysely<unknown>) {
      for (const table of ['webhook_deliveries', 'webhook_secrets']) {
        await sql`drop table if exists ${sql.table(table)}`.execute(db);
      }
    },
  },
  // The render log: one row per render (sync and job) with its report, read by GET /v1/renders/{id}
  // and the dashboard's Renders page, swept after RENDER_LOG_RETENTION_DAYS. No foreign key to the
  // account: a deleted account's rows are removed with it (deleteAccount) and the sweep takes the rest.
  '0007_render_log': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('render_log')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('key_id', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('job_id', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('pages', 'integer')
        .addColumn('bytes', 'bigint')
        .addColumn('warning_count', 'integer', (c) => c.notNull())
        .addColumn('warnings', 'text', (c) => c.notNull())
        .execute();
      // An account's renders, newest first (the Renders page and its paging).
      await db.schema
        .createIndex('render_log_account_created_idx')
        .on('render_log')
        .columns(['account_id', 'created_at', 'id'])
        .execute();
      // The same for "with warnings or failed" only: an account with a million clean renders still finds
      // its few problems without reading past the rest. The query repeats this predicate word for word
      // (PROBLEM_RENDERS in render-log-queries.ts, no parameters), so SQLite and PostgreSQL can prove
      // the partial index applies.
      await db.schema
        .createIndex('render_log_account_problems_idx')
        .on('render_log')
        .columns(['account_id', 'created_at', 'id'])
        .where(sql<boolean>`(status = 'failed' or warning_count > 0)`)
        .execute();
      // The retention sweep.
      await db.schema.createIndex('render_log_created_idx').on('render_log').column('created_at').execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table if exists render_log`.execute(db);
    },
  },
  // The queued caps (count and HTML bytes per account, summed from one covering index), which result
  // store holds each PDF (so an instance neither answers 410 for nor sweeps another store's PDF), and
  // the sweep of finished rows.
  '0008_job_limits': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('render_jobs')
        .addColumn('html_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('render_jobs').addColumn('pdf_store', 'text').execute();
      await db.schema
        .createIndex('render_jobs_queued_bytes_idx')
        .on('render_jobs')
        .columns(['status', 'account_id', 'html_bytes'])
        .execute();
      await db.schema.createIndex('render_jobs_finished_idx').on('render_jobs').column('finished_at').execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop index if exists render_jobs_finished_idx`.execute(db);
      await sql`drop index if exists render_jobs_queued_bytes_idx`.execute(db);
      await sql`alter table render_jobs drop column pdf_store`.execute(db);
      await sql`alter table render_jobs drop column html_bytes`.execute(db);
    },
  },
  // Secret rotation with overlap: the secret a rotation replaced keeps signing (beside the new one)
  // until `previous_until`. Redeliver is throttled per job: the time of its last request.
  '0009_webhook_rotation': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('webhook_secrets').addColumn('previous_secret', 'text').execute();
      await db.schema.alterTable('webhook_secrets').addColumn('previous_until', 'bigint').execute();
      await db.schema.alterTable('render_jobs').addColumn('webhook_redeliver_at', 'bigint').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('render_jobs').dropColumn('webhook_redeliver_at').execute();
      for (const column of ['previous_until', 'previous_secret']) {
        await db.schema.alterTable('webhook_secrets').dropColumn(column).execute();
      }
    },
  },
  // The render report on jobs: whether the job was submitted strict (Prefer: handling=strict), the key
  // that submitted it (the render log names it), and the report's entries as JSON once the job is final.
  '0007b_job_report': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('render_jobs')
        .addColumn('strict', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('render_jobs').addColumn('key_id', 'text').execute();
      await db.schema.alterTable('render_jobs').addColumn('warnings', 'text').execute();
    },
    async down(db: Kysely<unknown>) {
      for (const column of ['warnings', 'key_id', 'strict']) {
        await db.schema.alterTable('render_jobs').dropColumn(column).execute();
      }
    },
  },
  // Signing certificates (PKCS#12 uploads): the chain in the clear, the private key sealed with the
  // server's CERTIFICATE_KEY (AES-256-GCM), listed per account.
  '0010_signing_certificates': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('signing_certificates')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text')
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('issuer', 'text', (c) => c.notNull())
        .addColumn('not_after', 'bigint', (c) => c.notNull())
        .addColumn('chain', 'text', (c) => c.notNull())
        .addColumn('sealed_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('signing_certificates_account_idx')
        .on('signing_certificates')
        .columns(['account_id', 'created_at'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await sql`drop table if exists signing_certificates`.execute(db);
    },
  },
  // Files uploaded with a job's request (multipart/form-data), kept in the result store until the job is
  // final: their keys and the store that holds them, so that whatever ends the job (a worker, a cancel,
  // a lapsed lease, the account's deletion) leaves a row the sweep finds them by.
  '0011_job_uploads': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('render_jobs').addColumn('upload_keys', 'text').execute();
      await db.schema.alterTable('render_jobs').addColumn('upload_store', 'text').execute();
      // Partial: the sweep looks only at the few rows still holding uploads.
      await sql`create index render_jobs_uploads_idx on render_jobs (upload_store) where upload_keys is not null`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop index if exists render_jobs_uploads_idx`.execute(db);
      for (const column of ['upload_store', 'upload_keys']) {
        await db.schema.alterTable('render_jobs').dropColumn(column).execute();
      }
    },
  },
};
