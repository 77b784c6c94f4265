import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Webhook signing secrets (one per account) and every delivery attempt (purged after 7 days).
 */
export const webhooks: Migration = {
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
};
