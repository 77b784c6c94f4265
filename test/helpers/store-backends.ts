import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { DATABASE_URL, uniqueName } from './backends.js';

/** One store backend a contract suite runs against: SQLite always, PostgreSQL when DATABASE_URL is set. */
export interface StoreBackend {
  name: 'sqlite' | 'postgres';
  enabled: boolean;
  open(): Promise<Store>;
  cleanup(): Promise<void>;
}

/** Both backends, each on a fresh place of its own (a temporary SQLite directory, a PostgreSQL schema) named after `prefix`. */
export function storeBackends(prefix: string): StoreBackend[] {
  const sqliteDir = fs.mkdtempSync(path.join(os.tmpdir(), `pw-${prefix}-`));
  const pgSchema = uniqueName(prefix);
  return [
    {
      name: 'sqlite',
      enabled: true,
      open: () => openSqliteStore(sqliteDir),
      cleanup: async () => fs.rmSync(sqliteDir, { recursive: true, force: true }),
    },
    {
      name: 'postgres',
      enabled: Boolean(DATABASE_URL),
      open: () => openPostgresStore(DATABASE_URL ?? '', { schema: pgSchema }),
      cleanup: () => dropSchema(pgSchema),
    },
  ];
}

/** Drops a PostgreSQL schema a test made (nothing without DATABASE_URL). */
export async function dropSchema(schema: string): Promise<void> {
  if (!DATABASE_URL) return;
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}
