/**
 * The embedded store's SQLite driver: Node's built-in `node:sqlite` where the runtime has it (22.13 and
 * newer: no native build, nothing compiled at install), else `better-sqlite3` 12 (Node 20, an optional
 * dependency built only there). better-sqlite3 12 must never load on Node 24.19+: its raw ObjectWrap
 * statements abort the process when the GC finalises them (nodejs/node#65446). Both are wrapped in the
 * shape Kysely's SqliteDialect expects, so the store above sees one driver.
 */
import { createRequire } from 'node:module';

/** A prepared statement in the shape Kysely's SqliteDialect calls (parameters as one array). */
export interface SqliteStatement {
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  get(parameters: readonly unknown[]): unknown;
  run(parameters: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
}

/** One open SQLite file. */
export interface SqliteFile {
  /** Which driver opened it: `node:sqlite` or `better-sqlite3`. */
  readonly driver: 'node:sqlite' | 'better-sqlite3';
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  close(): void;
}

// Both drivers' statements take parameters spread out.
interface SpreadStatement {
  all(...parameters: unknown[]): unknown[];
  get(...parameters: unknown[]): unknown;
  run(...parameters: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...parameters: unknown[]): IterableIterator<unknown>;
}

// The slice of node:sqlite used here. Typed locally: @types/node 20 (the oldest supported line) has none.
interface NodeStatement extends SpreadStatement {
  columns(): unknown[];
}
interface NodeSqlite {
  DatabaseSync: new (
    file: string,
    options?: { readOnly?: boolean },
  ) => {
    prepare(sql: string): NodeStatement;
    exec(sql: string): void;
    close(): void;
  };
  StatementSync: { prototype: Partial<NodeStatement> };
}
interface BetterStatement extends SpreadStatement {
  readonly reader: boolean;
}
type BetterSqlite = new (
  file: string,
  options?: { readonly?: boolean; fileMustExist?: boolean },
) => { prepare(sql: string): BetterStatement; exec(sql: string): void; close(): void };

let builtIn: NodeSqlite | null | undefined;

/** Prepared statements one open file keeps for reuse. */
const STATEMENTS_KEPT = 256;

/** node:sqlite when this runtime has it with `columns()` (22.16+, 23.11+), else null. */
function nodeSqlite(): NodeSqlite | null {
  if (builtIn !== undefined) return builtIn;
  // Node 22 calls node:sqlite experimental and says so on every start; the module is the store's tested
  // driver on every line that has it, so that one notice is dropped deliberately, every other warning kept.
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/^SQLite is an experimental feature/.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    const mod = process.getBuiltinModule?.('node:sqlite') as NodeSqlite | undefined;
    builtIn = mod && typeof mod.StatementSync.prototype.columns === 'function' ? mod : null;
  } catch {
    // 22.5–22.12 know the module only behind --experimental-sqlite.
    builtIn = null;
  } finally {
    process.emitWarning = emitWarning;
  }
  return builtIn;
}

/** Either driver's connection in Kysely's shape: parameters as one array, `reader` as the driver tells it. */
function wrap<S extends SpreadStatement>(
  driver: SqliteFile['driver'],
  db: { prepare(sql: string): S; exec(sql: string): void; close(): void },
  returnsRows: (statement: S) => boolean,
): SqliteFile {
  // Kysely prepares every query it runs; compiling the same SQL again each time cost about half a
  // millisecond of the event loop per render request (auth, usage, the render log, the job poll).
  // Statements are kept by their text, the oldest dropped past the bound (the store's queries are a few
  // dozen texts; IN-lists of varying length make more). Nothing here iterates a statement while another
  // call runs it, which is the one way a shared statement could be busy.
  const statements = new Map<string, SqliteStatement>();
  return {
    driver,
    prepare(sql) {
      const kept = statements.get(sql);
      if (kept) return kept;
      const s = db.prepare(sql);
      const statement: SqliteStatement = {
        reader: returnsRows(s),
        all: (p) => s.all(...p),
        get: (p) => s.get(...p),
        run: (p) => s.run(...p),
        iterate: (p) => s.iterate(...p),
      };
      if (statements.size >= STATEMENTS_KEPT) statements.delete(statements.keys().next().value as string);
      statements.set(sql, statement);
      return statement;
    },
    exec: (sql) => db.exec(sql),
    close: () => {
      statements.clear();
      db.close();
    },
  };
}

function viaBetterSqlite(file: string, readonly: boolean): SqliteFile {
  let Database: BetterSqlite;
  try {
    Database = createRequire(import.meta.url)('@pageworks/sqlite-fallback') as BetterSqlite;
  } catch (err) {
    throw new Error(
      `Node.js ${process.versions.node} has no node:sqlite and better-sqlite3 is not installed (run npm run setup): ${(err as Error).message}`,
    );
  }
  return wrap('better-sqlite3', new Database(file, { readonly, fileMustExist: readonly }), (s) => s.reader);
}

/** Opens `file` with the driver this runtime supports; `readonly` also requires the file to exist. */
export function openSqliteFile(file: string, options: { readonly?: boolean } = {}): SqliteFile {
  const mod = nodeSqlite();
  const readonly = options.readonly ?? false;
  return mod
    ? wrap('node:sqlite', new mod.DatabaseSync(file, { readOnly: readonly }), (s) => s.columns().length > 0)
    : viaBetterSqlite(file, readonly);
}

/** The first column of the first row `sql` returns (a PRAGMA's value, a count). */
export function scalarOf(statement: SqliteStatement, parameters: readonly unknown[] = []): unknown {
  const row = statement.get(parameters) as Record<string, unknown> | undefined;
  return row ? Object.values(row)[0] : undefined;
}
