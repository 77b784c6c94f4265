import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Signing certificates (PKCS#12 uploads): the chain in the clear, the private key sealed with the
 * server's CERTIFICATE_KEY (AES-256-GCM), listed per account.
 */
export const signingCertificates: Migration = {
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
};
