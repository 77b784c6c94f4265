import type { Kysely, Migration } from 'kysely';

/**
 * The render report on jobs: whether the job was submitted strict (Prefer: handling=strict), the key
 * that submitted it (the render log names it), and the report's entries as JSON once the job is final.
 */
export const jobReport: Migration = {
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
};
