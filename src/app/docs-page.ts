/**
 * The interactive page over a service's OpenAPI document at `/docs` (Swagger UI), with a Content Security
 * Policy of our own. Swagger UI's own (`staticCSP: true`) always says `upgrade-insecure-requests`, so a
 * browser that reached the page over plain HTTP by any name but loopback asked for its scripts and styles
 * over https, where nothing answers, and showed a blank page.
 */
import crypto from 'node:crypto';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The one style element the page's scripts write: the Swagger logo's SVG in the top bar (drawn before the
 * plugin replaces it by its own logo). Allowed by its hash, so that no other inline style is.
 */
const LOGO_STYLE = '.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}';
const LOGO_STYLE_HASH = `'sha256-${crypto.createHash('sha256').update(LOGO_STYLE).digest('base64')}'`;

/** The page's policy: its own scripts, styles, fonts and images (the logo is a data: URL), nothing else. */
const DOCS_CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "font-src 'self' data:",
  "frame-ancestors 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  `style-src 'self' ${LOGO_STYLE_HASH}`,
].join('; ');

/**
 * The policy of one answer. `upgrade-insecure-requests` only when the request came over TLS (the socket's
 * own, or a trusted proxy's X-Forwarded-Proto): over plain HTTP it would send the page's every request to
 * an https port that is not there.
 */
function docsCsp(request: FastifyRequest): string {
  return request.protocol === 'https' ? `${DOCS_CSP}; upgrade-insecure-requests` : DOCS_CSP;
}

/** Serves Swagger UI at `/docs` with the policy above on its answers; call after `@fastify/swagger` is registered. */
export async function registerDocsPage(app: FastifyInstance): Promise<void> {
  // In a context of its own, so that the policy is set on the page's answers alone.
  await app.register(docsContext);
}

function docsContext(docs: FastifyInstance, _opts: unknown, ready: (err?: Error) => void): void {
  docs.addHook('onSend', (request, reply, payload, done) => {
    reply.header('content-security-policy', docsCsp(request));
    done(null, payload);
  });
  // Loaded within this context once this function is done (Fastify's plugin queue), so the hook covers it.
  void docs.register(swaggerUi, { routePrefix: '/docs' });
  ready();
}
