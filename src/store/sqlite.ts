import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { migrateToLatest } from './migrations.js';
import type { Database } from './schema.js';
import { KyselyStore, type Store } from './store.js';

/** Opens (creating if needed) the embedded SQLite store in `dataDir`, WAL mode, migrated. */
export async function openSqliteStore(dataDir: string, fileName = 'pageworks.sqlite'): Promise<Store> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, fileName);
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  // WAL + NORMAL is durable against process crashes; only an OS crash can lose the last transactions.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // Another process (the CLI while `serve` runs) may hold the write lock for a moment.
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  await migrateToLatest(db as Kysely<unknown>);
  fs.chmodSync(file, 0o600);
  // This connection's own writes move total_changes(); a commit by any other connection (another
  // process on the same file) moves data_version.
  const ownChanges = sqlite.prepare('SELECT total_changes()').pluck();
  const otherCommits = sqlite.prepare('PRAGMA data_version').pluck();
  return new KyselyStore('sqlite', db, {
    prepare: (text) => {
      const statement = sqlite.prepare(text);
      return (params) => statement.all(...params);
    },
    changeStamp: () => [ownChanges.get() as number, otherCommits.get() as number],
  });
}
