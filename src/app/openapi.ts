/**
 * The service's OpenAPI document at `/openapi.json` and a docs page at `/docs`. Swagger collects routes
 * as they are added, so it is registered before any route: health is in the document too.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { VERSION } from '../version.js';

/** What the service's OpenAPI document says about itself; paths come from the route schemas. */
export interface ServiceOpenApi {
  title: string;
  description: string;
  /** The public base address (`RENDER_PUBLIC_URL`, `METADATA_PUBLIC_URL`). */
  serverUrl: string;
  securitySchemes: Record<string, SecurityScheme>;
}

/** The two ways the services take a key: a bearer token (render) or a header (metadata). */
type SecurityScheme =
  | { type: 'http'; scheme: 'bearer'; description: string }
  | { type: 'apiKey'; in: 'header'; name: string; description: string };

/** Serves the OpenAPI document and its docs page; call before the routes are added. */
export async function registerOpenApi(app: FastifyInstance, openapi: ServiceOpenApi): Promise<void> {
  const { title, description, serverUrl, securitySchemes } = openapi;
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title, version: VERSION, description },
      servers: [{ url: serverUrl }],
      components: { securitySchemes },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
