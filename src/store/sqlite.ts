import fs from 'node:fs';
import path from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import { migrateToLatest } from './migrate.js';
import type { Database } from './schema.js';
import { openSqliteFile, scalarOf } from './sqlite-driver.js';
import { composeStore, type Store } from './store.js';

/** Opens (creating if needed) the embedded SQLite store in `dataDir`, WAL mode, migrated. */
export async function openSqliteStore(dataDir: string, fileName = 'pageworks.sqlite'): Promise<Store> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, fileName);
  const sqlite = openSqliteFile(file);
  sqlite.exec('PRAGMA journal_mode = WAL');
  // WAL + NORMAL is durable against process crashes; only an OS crash can lose the last transactions.
  sqlite.exec('PRAGMA synchronous = NORMAL');
  sqlite.exec('PRAGMA foreign_keys = ON');
  // A deleted or overwritten row (a finished job's request, a deleted certificate) is zeroed on its page,
  // not left readable in the file's free space.
  sqlite.exec('PRAGMA secure_delete = ON');
  // Another process (the CLI while `serve` runs) may hold the write lock for a moment.
  sqlite.exec('PRAGMA busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  await migrateToLatest(db as Kysely<unknown>);
  fs.chmodSync(file, 0o600);
  // This connection's own writes move total_changes(); a commit by any other connection (another
  // process on the same file) moves data_version.
  const ownChanges = sqlite.prepare('SELECT total_changes()');
  const otherCommits = sqlite.prepare('PRAGMA data_version');
  return composeStore('sqlite', db, {
    prepare: (text) => {
      const statement = sqlite.prepare(text);
      return (params) => statement.all(params);
    },
    changeStamp: () => [scalarOf(ownChanges) as number, scalarOf(otherCommits) as number],
  });
}
