import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrations.js';
import type { Database } from './schema.js';
import { KyselyStore, type Store } from './store.js';

const INT8_OID = 20;

/** Options for the PostgreSQL store; `schema` isolates test suites that share one database. */
export interface PostgresStoreOptions {
  schema?: string;
  poolSize?: number;
  /** Milliseconds to wait for a connection before failing (so no request hangs on a dead database). */
  connectTimeoutMs?: number;
}

/** Opens the PostgreSQL store at `url` and migrates it (concurrent starts are serialised by a lock). */
export async function openPostgresStore(url: string, opts: PostgresStoreOptions = {}): Promise<Store> {
  if (opts.schema && !/^[a-z_][a-z0-9_]*$/.test(opts.schema)) throw new Error(`invalid schema name ${opts.schema}`);
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
    // Timestamps and counters are bigint; they fit a JS number for the next 285,000 years.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client's network error must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    if (opts.schema) await sql`create schema if not exists ${sql.id(opts.schema)}`.execute(db);
    await migrateToLatest(db as Kysely<unknown>, opts.schema);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return new KyselyStore('postgres', db);
}
