import type { Kysely, Migration } from 'kysely';

/**
 * Secret rotation with overlap: the secret a rotation replaced keeps signing (beside the new one)
 * until `previous_until`. Redeliver is throttled per job: the time of its last request.
 */
export const webhookRotation: Migration = {
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
};
