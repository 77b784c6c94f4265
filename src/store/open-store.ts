import type { Config } from '../config.js';
import { openPostgresStore } from './postgres.js';
import { openSqliteStore } from './sqlite.js';
import type { Store } from './store.js';

/** Opens the store the configuration asks for: PostgreSQL with DATABASE_URL, else embedded SQLite. */
export async function openStore(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Store> {
  return config.databaseUrl ? openPostgresStore(config.databaseUrl) : openSqliteStore(config.dataDir);
}
