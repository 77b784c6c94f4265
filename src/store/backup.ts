/**
 * `pageworks backup --to FILE`: a consistent copy of the embedded SQLite store, taken while `serve`
 * keeps running (WAL lets a reader copy while others write), with SQLite's `VACUUM INTO`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../cli-errors.js';
import type { Config } from '../config.js';
import { openStore, SQLITE_FILE } from './open-store.js';
import { openSqliteFile } from './sqlite-driver.js';

/**
 * Writes a compacted, self-contained copy of the SQLite store to `to` (its folder created as needed);
 * returns the copy's size in bytes and the store it copied.
 */
export async function backupSqliteStore(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  to: string,
): Promise<{ bytes: number; source: string }> {
  if (config.databaseUrl) throw new UsageError('backup copies the embedded SQLite store; on PostgreSQL use pg_dump');
  const source = path.join(config.dataDir, SQLITE_FILE);
  if (fs.existsSync(to)) throw new UsageError(`${to} exists already; choose a new file`);
  // A fresh checkout has no store yet: opening it creates and migrates it, as every other command does,
  // so the backup is of the same (empty) store `serve` would start with.
  if (!fs.existsSync(source)) await (await openStore(config)).close();
  // VACUUM INTO creates the file but not its folder (`backups/nightly/…` on a first run).
  fs.mkdirSync(path.dirname(path.resolve(to)), { recursive: true });
  const db = openSqliteFile(source, { readonly: true });
  try {
    // The copy is one read transaction: every table as of the same instant.
    db.prepare('VACUUM INTO ?').run([to]);
  } finally {
    db.close();
  }
  fs.chmodSync(to, 0o600);
  return { bytes: fs.statSync(to).size, source };
}
