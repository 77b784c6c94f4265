import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from './schema.js';

/** What every store query runs over: the database (or a transaction of it) and its dialect. */
export interface StoreContext {
  readonly db: Kysely<Database>;
  readonly kind: 'sqlite' | 'postgres';
}

/**
 * Ends the text of a statement that PostgreSQL parses and plans once per connection (a named prepared
 * statement, postgres.ts): the hot statements of a render job's way through the queue. Only for
 * statements whose text never varies (no IN-list of varying length): each text is kept on every
 * connection for as long as it lives. SQLite keeps every statement prepared anyway.
 */
export const PREPARED = '/* prepared */';

/**
 * Ends a select that picks rows to change: on PostgreSQL it locks them and skips any row another
 * transaction holds, so a statement over many rows never waits on one while holding others (an
 * account's deletion locks its jobs in its own order). SQLite has one writer at a time: nothing.
 */
export function skipHeldRows(kind: StoreContext['kind']): RawBuilder<unknown> {
  return kind === 'postgres' ? sql`for update skip locked` : sql``;
}

// `never[]`: a query's own parameters vary, and any parameter type accepts `never`.
type Query = (ctx: StoreContext, ...args: never[]) => unknown;

/** A concern's queries as its store interface sees them: the context already given. */
export type BoundQueries<Q> = {
  [K in keyof Q]: Q[K] extends (ctx: StoreContext, ...args: infer A) => infer R ? (...args: A) => R : never;
};

/**
 * Gives a concern's queries their context once, so the store is only a composition of concerns
 * (each written as plain functions over `{ db, kind }`, the way Kysely recommends) and a
 * transaction can run the same functions over `{ ...ctx, db: trx }`.
 */
export function bindQueries<Q extends Record<string, Query>>(ctx: StoreContext, queries: Q): BoundQueries<Q> {
  const bound: Record<string, unknown> = {};
  for (const [name, query] of Object.entries(queries)) {
    const run = query as (ctx: StoreContext, ...args: unknown[]) => unknown;
    bound[name] = (...args: unknown[]) => run(ctx, ...args);
  }
  return bound as BoundQueries<Q>;
}
