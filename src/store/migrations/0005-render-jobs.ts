import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Render jobs: the queue of record, the stored PDFs' keys and the webhook outbox, in one table so
 * that a job becomes final and its webhook due in one statement.
 */
export const renderJobs: Migration = {
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
};
