/**
 * `pageworks backup --to FILE`: a consistent copy of the embedded SQLite store, taken while `serve`
 * keeps running (WAL lets a reader copy while others write), with SQLite's `VACUUM INTO`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../cli-errors.js';
import type { Config } from '../config.js';
import { openSqliteFile } from './sqlite-driver.js';

/** Writes a compacted, self-contained copy of the SQLite store to `to`; returns its size in bytes. */
export function backupSqliteStore(config: Pick<Config, 'databaseUrl' | 'dataDir'>, to: string): number {
  if (config.databaseUrl) throw new UsageError('backup copies the embedded SQLite store; on PostgreSQL use pg_dump');
  const source = path.join(config.dataDir, 'pageworks.sqlite');
  if (!fs.existsSync(source)) throw new UsageError(`no store at ${source} (PAGEWORKS_DATA_DIR)`);
  if (fs.existsSync(to)) throw new UsageError(`${to} exists already; choose a new file`);
  const db = openSqliteFile(source, { readonly: true });
  try {
    // The copy is one read transaction: every table as of the same instant.
    db.prepare('VACUUM INTO ?').run([to]);
  } finally {
    db.close();
  }
  fs.chmodSync(to, 0o600);
  return fs.statSync(to).size;
}
