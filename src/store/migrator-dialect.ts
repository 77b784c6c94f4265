/**
 * The PostgreSQL dialect the migrator runs on. Kysely's migrator asks whether its two tables exist by
 * listing every column of every table in every schema and filtering in JavaScript. On a database shared
 * with others that goes wrong three ways: a `kysely_migration` table of another application's schema
 * counts as the store's, so the store then selects from a table that is not on its search path and the
 * start fails; a schema dropped by someone else while the list is read fails the start with `schema …
 * does not exist`; and the start grows with every schema there is. This dialect lists the tables of the
 * store's own schema only: the first of its search path, where the migrator creates them.
 */
import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Dialect,
  type Kysely,
  PostgresDialect,
  type PostgresDialectConfig,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely';

class StoreSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(this.db);
    return rows.filter((row) => row.name !== null);
  }

  /** The tables of the store's schema, without their columns (the migrator reads names only). */
  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string }>`
      select c.relname as name, n.nspname as schema
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p') and n.nspname = current_schema()`.execute(this.db);
    return rows.map((row) => ({ name: row.name, schema: row.schema, isView: false, columns: [] }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

/** PostgreSQL as kysely speaks it, but for the introspection above. */
export function migratorDialect(config: PostgresDialectConfig): Dialect {
  const postgres = new PostgresDialect(config);
  return {
    createDriver: () => postgres.createDriver(),
    createQueryCompiler: () => postgres.createQueryCompiler(),
    createAdapter: () => postgres.createAdapter(),
    createIntrospector: (db) => new StoreSchemaIntrospector(db),
  };
}
