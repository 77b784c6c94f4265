import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, type Migration, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/store/migrate.js';
import { migrationNamingProblem } from '../../src/store/migration-order.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { openSqliteFile } from '../../src/store/sqlite-driver.js';
import { DATABASE_URL, uniqueName } from '../helpers/backends.js';
import { dropSchema } from '../helpers/store-backends.js';

const released = Object.keys(MIGRATIONS);

describe('migration names: next number only', () => {
  it("this release's migrations keep the rule, and the next one is 0012", () => {
    expect(migrationNamingProblem(released)).toBeUndefined();
    expect(migrationNamingProblem([...released, '0012_next_thing'])).toBeUndefined();
  });

  it('a letter suffix, a skipped number, a taken number or a missing number fail with the number to use', () => {
    expect(migrationNamingProblem([...released, '0008b_late_fix'])).toBe(
      'migration 0008b_late_fix: name it 0009_what_it_does (four digits, the next number)',
    );
    expect(migrationNamingProblem([...released, '0013_too_far'])).toBe(
      'migration 0013_too_far: its number must be 0012, the next one (next number only)',
    );
    expect(migrationNamingProblem([...released, '0011_extra_eleven'])).toBe(
      'migration 0011_job_uploads: its number must be 0012, the next one (next number only)',
    );
    expect(migrationNamingProblem(released.filter((n) => n !== '0004_credential_version'))).toBe(
      'migration 0005_render_jobs: its number must be 0004, the next one (next number only)',
    );
  });
});

// A migration written after the store applied 0011 but sorting before it would never run: the store
// refuses to start, says why, and writes nothing (the late migration's `up` would fail loudly).
const late: Migration = {
  async up() {
    throw new Error('the late migration ran');
  },
};
const withLate = { ...MIGRATIONS, '0008b_late_fix': late };
const refusal =
  'migration 0008b_late_fix sorts before 0011_job_uploads, which this store has applied already, so it would never run: ' +
  'a new migration takes the next number (see src/store/migration-order.ts)';

describe('a store refuses a migration that sorts before one it applied', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-migration-order-'));
  const schema = uniqueName('migration_order');
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('sqlite', async () => {
    await (await openSqliteStore(dir)).close();
    const db = new Kysely<unknown>({
      dialect: new SqliteDialect({ database: openSqliteFile(path.join(dir, 'pageworks.sqlite')) }),
    });
    try {
      await expect(migrateToLatest(db, { migrations: withLate })).rejects.toThrow(refusal);
      await expect(migrateToLatest(db)).resolves.toBeUndefined();
    } finally {
      await db.destroy();
    }
    const store = await openSqliteStore(dir);
    expect(await store.countAccounts()).toBe(0);
    await store.close();
  });

  it.runIf(DATABASE_URL)('postgres', async () => {
    await (await openPostgresStore(DATABASE_URL ?? '', { schema })).close();
    const pool = new pg.Pool({ connectionString: DATABASE_URL, options: `-c search_path=${schema}`, max: 1 });
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
    try {
      await expect(migrateToLatest(db, { schema, migrations: withLate })).rejects.toThrow(refusal);
      await expect(migrateToLatest(db, { schema })).resolves.toBeUndefined();
    } finally {
      await db.destroy();
    }
  });
});
