/**
 * A Fastify validatorCompiler that hands one part of the request (the body, or the query string) to the
 * route's own validator and leaves the other parts alone. The routes validate strictly themselves: Fastify's
 * Ajv would coerce types and silently drop unknown fields.
 */

/** The validatorCompiler for a route whose `part` is checked (and normalised) by `validate`, which throws on bad input. */
export function ownValidator(part: 'body' | 'querystring', validate: (value: unknown) => unknown) {
  return ({ httpPart }: { httpPart?: string }) =>
    (value: unknown): { value: unknown } | { error: Error } => {
      // Other parts (a Prefer header, say) are documented, not validated.
      if (httpPart !== part) return { value };
      try {
        return { value: validate(value) };
      } catch (error) {
        return { error: error as Error };
      }
    };
}
