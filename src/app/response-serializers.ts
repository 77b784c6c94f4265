/**
 * Response serializers built from the route's schema with its plain unions said without `anyOf`.
 *
 * fast-json-stringify picks a branch of an `anyOf` by validating the value against each branch with
 * Ajv, and Ajv compiles those checks on a serializer's first use: a new process took 157–174 ms to
 * answer its first job submit, later ones 2–3 ms (docs/deploy.md, "The first answer of a route"). Most
 * unions in our schemas say something fast-json-stringify can write without Ajv: a choice of string
 * literals is a string, and `T | null` is a nullable `T`. Only those two are rewritten. The OpenAPI
 * document keeps the schemas as written, and every value they admit is written byte for byte as before
 * (test/app/response-serializers.test.ts); a string outside its choice, which only a bug of ours could
 * make, is written as it is instead of failing the answer.
 */

import fastJsonStringify, { type Options } from 'fast-json-stringify';
import type { FastifyServerOptions } from 'fastify';

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The literal of a `{ const: 'x' }` branch (TypeBox's Type.Literal), when it is a string. */
function stringConst(branch: Schema): string | undefined {
  return typeof branch.const === 'string' && (branch.type === undefined || branch.type === 'string') ? branch.const : undefined;
}

/** `anyOf` of string literals as an `enum` string; `anyOf [T, null]` as a nullable `T`; else as it is. */
function withoutPlainUnion(schema: Schema): Schema {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length === 0 || !branches.every(isSchema)) return schema;
  const { anyOf: _, ...rest } = schema;
  const literals = branches.map(stringConst);
  if (literals.every((l) => l !== undefined)) return { ...rest, type: 'string', enum: literals };
  const others = branches.filter((b) => b.type !== 'null');
  const [other] = others;
  if (branches.length === 2 && others.length === 1 && other.anyOf === undefined && other.$ref === undefined) {
    return { ...rest, ...other, nullable: true };
  }
  return schema;
}

/**
 * A copy of `schema` with its plain unions rewritten, innermost first (so `('a' | 'b') | null` becomes
 * a nullable enum). A copy: the route keeps the schema it documents. Only plain data is copied:
 * TypeBox's symbol keys have no meaning to fast-json-stringify.
 */
export function serializerSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializerSchema);
  if (!isSchema(schema)) return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = serializerSchema(value);
  return withoutPlainUnion(copy);
}

type BuildSerializer = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>;

/**
 * Fastify's serializer factory with fast-json-stringify (as its default is) on the rewritten schema;
 * shared schemas (`addSchema`) and `serializerOpts` reach it as they reach the default.
 */
export const buildSerializer: BuildSerializer = (externalSchemas, serializerOpts) => {
  const options: Options = { ...(serializerOpts as Options), schema: externalSchemas as Options['schema'] };
  return ({ schema }) => fastJsonStringify(serializerSchema(schema) as Parameters<typeof fastJsonStringify>[0], options);
};
