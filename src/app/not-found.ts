/**
 * 404 and 405 in the service's own error shape: an unknown path is 404 NOT_FOUND; a known path with
 * another method is 405 METHOD_NOT_ALLOWED with `Allow` listing the methods it has, on a route with a
 * path parameter (`/v1/jobs/:id`) as on a fixed one. What the router answers before any hook (a path
 * parameter over Fastify's 100 characters, a malformed percent-encoding) gets the service's shape too.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { cutText, MAX_QUOTED } from '../cut-text.js';
import type { SendError } from '../service-app-type.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * A route's path as a pattern over request paths: `:name` stands for one segment, a final `*` for the
 * rest. Fastify's `hasRoute` compares the route's own text, so `/v1/jobs/job_1` is not `/v1/jobs/:id` to it.
 */
function pathPattern(url: string): RegExp {
  const segments = url.split('/').map((segment) => {
    if (segment === '*') return '.*';
    if (segment.startsWith(':')) return '[^/]+';
    return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return new RegExp(`^${segments.join('/')}$`);
}

/**
 * Collects the routes registered from now on (Fastify's `onRoute`); call before any route is added.
 * Returns the methods a request path has a route for, in METHODS' order.
 */
function routeMethods(app: FastifyInstance): (path: string) => string[] {
  const routes: Array<{ pattern: RegExp; methods: Set<string> }> = [];
  app.addHook('onRoute', (route) => {
    const methods = new Set((Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase()));
    routes.push({ pattern: pathPattern(route.url), methods });
  });
  return (path) => METHODS.filter((method) => routes.some((r) => r.methods.has(method) && r.pattern.test(path)));
}

/**
 * Answers requests no route takes: 405 with `Allow` when the path has other methods, else 404. Call
 * before any route is added, so that it sees them all.
 */
export function answerUnrouted(app: FastifyInstance, sendError: SendError): void {
  const methodsOf = routeMethods(app);
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = methodsOf(path);
    // The path is the client's: the message quotes at most MAX_QUOTED characters of it.
    const shown = cutText(path, MAX_QUOTED);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendError(
        reply,
        405,
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed on ${shown} (allowed: ${allowed.join(', ')})`,
      );
    }
    return sendError(reply, 404, 'NOT_FOUND', `not found: ${request.method} ${shown}`);
  });
}

/**
 * Fastify's `frameworkErrors` option: a path parameter over Fastify's 100 characters (a made-up job or
 * render id) is 404, a malformed percent-encoding 400, both in the service's shape with the request id.
 */
export function routerErrorHandler(requestIdHeader: string, sendError: SendError) {
  return (error: { code?: string }, request: FastifyRequest, reply: FastifyReply) => {
    reply.header(requestIdHeader, request.id);
    const path = (request.url.split('?')[0] ?? '').slice(0, 100);
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
      return sendError(reply, 404, 'NOT_FOUND', `not found: ${request.method} ${path}…`);
    return sendError(reply, 400, 'INVALID_REQUEST', 'the URL path is not valid: a malformed percent-encoding');
  };
}
