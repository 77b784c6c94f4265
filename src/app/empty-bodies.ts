/**
 * DELETE, GET and HEAD carry no body, and an empty one is ignored whatever its Content-Type: client
 * wrappers that send `Content-Type: application/json` on every request must not have a cancel refused.
 */
import type { FastifyInstance } from 'fastify';

const BODILESS = new Set(['DELETE', 'GET', 'HEAD']);

/** Replaces the app's JSON parser with Fastify's own that lets an empty body of a bodiless method through. */
export function ignoreEmptyBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && BODILESS.has(request.method)) return done(null, undefined);
    // Fastify's JSON parser answers through `done` (its return value is not a promise to wait on).
    void parseJson(request, String(body), done);
  });
}
