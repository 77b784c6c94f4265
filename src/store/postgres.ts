import crypto from 'node:crypto';
import { type Dialect, Kysely, PostgresDialect, type PostgresDialectConfig, sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrate.js';
import { migratorDialect } from './migrator-dialect.js';
import type { Database } from './schema.js';
import { composeStore, type Store } from './store.js';
import { PREPARED } from './store-context.js';

const INT8_OID = 20;

/** Where the background start-up reports its attempts (pino's Logger fits). */
export interface StartupLog {
  error(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** Options for the PostgreSQL store; `schema` isolates test suites that share one database. */
export interface PostgresStoreOptions {
  schema?: string;
  poolSize?: number;
  /** Milliseconds to wait for a connection before failing (so no request hangs on a dead database). */
  connectTimeoutMs?: number;
  /** Milliseconds one query may take on the request path before it fails (a stalled server, not a slow query). */
  queryTimeoutMs?: number;
  /**
   * When the database cannot be reached at start, return at once and keep connecting (and then
   * migrating) in the background with back-off; until then every store call fails fast with a
   * {@link StoreUnavailableError}. Used by `serve`; the CLI leaves it unset and fails at once.
   */
  background?: { log: StartupLog; firstDelayMs?: number; maxDelayMs?: number };
}

/** A store call made before the database was reached and migrated. */
export class StoreUnavailableError extends Error {}

// Errors that mean "the server is not there (yet)", as opposed to a wrong password or a broken migration.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** Whether an error (or one of its causes) says the database server is unreachable or starting. */
export function isConnectionError(err: unknown): boolean {
  let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
    if (typeof e.message === 'string' && /connection terminated|timeout exceeded when trying to connect/i.test(e.message))
      return true;
    e = e.cause as typeof e;
  }
  return false;
}

function pgTypes() {
  return {
    // Timestamps and counters are bigint; they fit a JS number for the next 285,000 years.
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
}

/** Statement names by text: the marked texts are a handful of constants. */
const statementNames = new Map<string, string>();

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `pw_${crypto.createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** PostgreSQL's "cached plan must not change result type": a table a prepared `returning *` reads gained a column. */
const RESULT_TYPE_CHANGED = '0A000';

/**
 * Runs the statements marked PREPARED (store-context.ts) as named prepared statements of this
 * connection, which Kysely's driver has no way to ask for: parsed once, and planned once PostgreSQL
 * finds its generic plan as good (after five runs). The job claim's fair pick took the backend about
 * 0.6 ms to plan on every claim, three times what it took to run.
 */
function preparing(client: pg.PoolClient): void {
  // `any`: pg's query() has a dozen overloads; this passes every call through but the marked ones.
  // biome-ignore lint/suspicious/noExplicitAny: see above
  const query = client.query.bind(client) as (...args: any[]) => Promise<unknown>;
  // A text prepared again under another name on this connection (see below).
  const renamed = new Map<string, string>();
  let renames = 0;
  // biome-ignore lint/suspicious/noExplicitAny: see above
  (client as { query: unknown }).query = (text: unknown, ...rest: any[]) => {
    // Kysely's form only (text and values, a promise back); any other call goes as it came.
    if (typeof text !== 'string' || !text.endsWith(PREPARED) || rest.length !== 1) return query(text, ...rest);
    const run = (name: string) => query({ name, text, values: rest[0] });
    return run(renamed.get(text) ?? statementName(text)).catch((err: { code?: unknown }) => {
      // A newer instance migrated the table under this connection (a rolling upgrade): the statement
      // prepared before can never run again, so the text is prepared anew under a name of its own.
      if (err?.code !== RESULT_TYPE_CHANGED) throw err;
      renames += 1;
      const name = `${statementName(text)}_${renames}`;
      renamed.set(text, name);
      return run(name);
    });
  };
}

function openDb(
  url: string,
  opts: PostgresStoreOptions,
  pool: pg.PoolConfig,
  dialect: (config: PostgresDialectConfig) => Dialect = (config) => new PostgresDialect(config),
): Kysely<Database> {
  const p = new pg.Pool({
    connectionString: url,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
    types: pgTypes(),
    ...pool,
  });
  // A network error must not crash the process; the query in flight (or the next one) reports it.
  // The pool listens on idle clients only: a checked-out client between two queries (inside a
  // transaction, say) would emit an unhandled 'error' when the database goes away.
  p.on('error', () => {});
  p.on('connect', (client) => {
    client.on('error', () => {});
    preparing(client);
  });
  return new Kysely<Database>({ dialect: dialect({ pool: p }) });
}

/**
 * Creates the schema (tests) and migrates, on a connection of its own without a query timeout:
 * a second instance waits on the migrator's advisory lock for as long as the first one migrates.
 */
async function migrate(url: string, opts: PostgresStoreOptions): Promise<void> {
  const db = openDb(url, opts, { max: 1, connectionTimeoutMillis: opts.connectTimeoutMs ?? 3000 }, migratorDialect);
  try {
    if (opts.schema) await sql`create schema if not exists ${sql.id(opts.schema)}`.execute(db);
    await migrateToLatest(db as Kysely<unknown>, { schema: opts.schema });
  } finally {
    await db.destroy();
  }
}

/**
 * Opens the PostgreSQL store at `url` and migrates it (concurrent starts are serialised by the
 * migrator's lock). With `background`, an unreachable database does not stop the start: see
 * {@link PostgresStoreOptions.background}.
 */
export async function openPostgresStore(url: string, opts: PostgresStoreOptions = {}): Promise<Store> {
  if (opts.schema && !/^[a-z_][a-z0-9_]*$/.test(opts.schema)) throw new Error(`invalid schema name ${opts.schema}`);
  const db = openDb(url, opts, {
    max: opts.poolSize ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 3000,
    query_timeout: opts.queryTimeoutMs ?? 5000,
    // A connection's prepared statements go with it, and the next one plans each of them six times
    // again (the job claim's fair pick about 2 ms a time). At pg's 10 s, the connections a burst of
    // submits had opened closed between bursts; a minute keeps them through a pause and still lets
    // an idle instance give its backends back.
    idleTimeoutMillis: 60_000,
  });
  const store = composeStore('postgres', db);
  try {
    await migrate(url, opts);
    return store;
  } catch (err) {
    if (!opts.background || !isConnectionError(err)) {
      await store.close();
      throw err;
    }
    return startInBackground(url, opts, store, err, opts.background);
  }
}

/** Keeps trying to migrate with back-off; the returned store refuses calls until that succeeds. */
function startInBackground(
  url: string,
  opts: PostgresStoreOptions,
  store: Store,
  firstError: unknown,
  bg: NonNullable<PostgresStoreOptions['background']>,
): Store {
  let ready = false;
  let closed = false;
  let lastError = (firstError as Error).message;
  let delay = bg.firstDelayMs ?? 500;
  let timer: NodeJS.Timeout | undefined;
  bg.log.error(
    { err: lastError },
    'DATABASE_URL: database unreachable at start; serving 503 to authenticated requests and retrying in the background',
  );

  const attempt = async () => {
    timer = undefined;
    try {
      await migrate(url, opts);
      if (closed) return;
      ready = true;
      bg.log.info({}, 'database reachable and migrated; authenticated requests are served again');
    } catch (err) {
      if (closed) return;
      lastError = (err as Error).message;
      delay = Math.min(delay * 2, bg.maxDelayMs ?? 10_000);
      bg.log.error({ err: lastError, retryInMs: delay }, 'database still unreachable (or migration failed); retrying');
      timer = setTimeout(attempt, delay);
      timer.unref();
    }
  };
  timer = setTimeout(attempt, delay);
  timer.unref();

  const unavailable = () =>
    Promise.reject(
      new StoreUnavailableError(`database not reachable or not migrated yet (${lastError}); retrying in the background`),
    );
  // A proxy rather than a second class repeating every Store method: until the background start
  // succeeds, each method fails fast with the same clear error; afterwards calls go straight through.
  return new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop === 'close') {
        return async () => {
          closed = true;
          if (timer) clearTimeout(timer);
          await target.close();
        };
      }
      return ready ? value.bind(target) : unavailable;
    },
  });
}
