import { type Kysely, type Migration, sql } from 'kysely';

/** Password reset tokens, the activity log, and a public id, IP and user agent on sessions. */
export const accountRecovery: Migration = {
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
};
