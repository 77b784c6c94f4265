import { type Kysely, type Migration, sql } from 'kysely';

/**
 * Files uploaded with a job's request (multipart/form-data), kept in the result store until the job is
 * final: their keys and the store that holds them, so that whatever ends the job (a worker, a cancel,
 * a lapsed lease, the account's deletion) leaves a row the sweep finds them by.
 */
export const jobUploads: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('render_jobs').addColumn('upload_keys', 'text').execute();
    await db.schema.alterTable('render_jobs').addColumn('upload_store', 'text').execute();
    // Partial: the sweep looks only at the few rows still holding uploads.
    await sql`create index render_jobs_uploads_idx on render_jobs (upload_store) where upload_keys is not null`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`drop index if exists render_jobs_uploads_idx`.execute(db);
    for (const column of ['upload_store', 'upload_keys']) {
      await db.schema.alterTable('render_jobs').dropColumn(column).execute();
    }
  },
};
