import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Per-key usage (daily, and hourly for the last 48 hours) and the one-time display of a new key.
 * Separate tables: usage_daily keeps serving per-account limits and history unchanged.
 */
export const usagePerKey: Migration = {
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
};
