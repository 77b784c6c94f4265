import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** What every store query runs over: the database (or a transaction of it) and its dialect. */
export interface StoreContext {
  readonly db: Kysely<Database>;
  readonly kind: 'sqlite' | 'postgres';
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
