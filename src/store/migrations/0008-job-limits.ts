import { type Kysely, type Migration, sql } from 'kysely';

/**
 * The queued caps (count and HTML bytes per account, summed from one covering index), which result
 * store holds each PDF (so an instance neither answers 410 for nor sweeps another store's PDF), and
 * the sweep of finished rows.
 */
export const jobLimits: Migration = {
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
};
