import type { Kysely, Migration } from 'kysely';

/**
 * A password change bumps the account's credential version in the same transaction that swaps the
 * hash and ends the sessions; a session keeps the version its log-in checked and is refused once that
 * is no longer current, so a log-in that raced the change cannot outlive it.
 */
export const credentialVersion: Migration = {
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
};
