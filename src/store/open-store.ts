import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Store } from './store.js';

/** The embedded store's file name inside PAGEWORKS_DATA_DIR. */
export const SQLITE_FILE = 'pageworks.sqlite';

/** Opens the store the configuration asks for: PostgreSQL with DATABASE_URL, else embedded SQLite. */
export async function openStore(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Store> {
  // Each backend is loaded when opened: a command that opens no store (`--help`, a usage error) does not
  // load Kysely, pg and every query file, and a SQLite deployment never loads pg.
  if (config.databaseUrl) return (await import('./postgres.js')).openPostgresStore(config.databaseUrl);
  return (await import('./sqlite.js')).openSqliteStore(config.dataDir, SQLITE_FILE);
}

/**
 * Which store a command used, in words an operator can act on: the CLI opens `./data` when
 * PAGEWORKS_DATA_DIR is not set, so "no account" alone sends people looking in the wrong place.
 * A PostgreSQL URL is shown without its user and password.
 */
export function describeStore(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (!config.databaseUrl) return `${path.join(config.dataDir, SQLITE_FILE)} (PAGEWORKS_DATA_DIR)`;
  const url = new URL(config.databaseUrl);
  return `postgres://${url.host}${url.pathname} (DATABASE_URL)`;
}

/** Whether the store is there before anything opens it (PostgreSQL: assumed; SQLite: its file). */
export function storeExists(config: Pick<Config, 'databaseUrl' | 'dataDir'>): boolean {
  return Boolean(config.databaseUrl) || fs.existsSync(path.join(config.dataDir, SQLITE_FILE));
}
