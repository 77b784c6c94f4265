import { type Kysely, type Migration, sql } from 'kysely';

/**
 * The render log: one row per render (sync and job) with its report, read by GET /v1/renders/{id}
 * and the dashboard's Renders page, swept after RENDER_LOG_RETENTION_DAYS. No foreign key to the
 * account: a deleted account's rows are removed with it (deleteAccount) and the sweep takes the rest.
 */
export const renderLog: Migration = {
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
};
