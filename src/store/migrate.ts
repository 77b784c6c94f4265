import { type Kysely, type Migration, Migrator } from 'kysely';
import { migrationOrderProblem } from './migration-order.js';
import { MIGRATIONS } from './migrations.js';

/** Where and what to migrate. */
export interface MigrateOptions {
  /** The PostgreSQL schema that holds the store (its own migration tables too). */
  schema?: string;
  /** The migrations to apply: this release's unless a test checks the rule with others. */
  migrations?: Readonly<Record<string, Migration>>;
}

/**
 * Brings the schema up to date; safe when several instances start together (the migrator locks).
 * A store that has applied a migration sorting after one of ours it has not applied is refused
 * with the reason, before anything is written.
 */
export async function migrateToLatest(db: Kysely<unknown>, opts: MigrateOptions = {}): Promise<void> {
  const migrations = opts.migrations ?? MIGRATIONS;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...migrations }) },
    ...(opts.schema ? { migrationTableSchema: opts.schema } : {}),
  });
  const known = await migrator.getMigrations();
  const problem = migrationOrderProblem(
    known.map((m) => m.name),
    known.filter((m) => m.executedAt !== undefined).map((m) => m.name),
  );
  if (problem) throw new Error(problem);
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String((error as Error)?.message ?? error)}`, {
      cause: error,
    });
  }
}
