/**
 * The service's OpenAPI document at `/openapi.json` and a docs page at `/docs`. Swagger collects routes
 * as they are added, so it is registered before any route: health is in the document too.
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { VERSION } from '../version.js';
import { registerDocsPage } from './docs-page.js';
import { declareCommonHeaders, type RequestIdHeader } from './openapi-headers.js';

/** What the service's OpenAPI document says about itself; paths come from the route schemas. */
export interface ServiceOpenApi {
  title: string;
  description: string;
  /** The public base address (`RENDER_PUBLIC_URL`, `METADATA_PUBLIC_URL`). */
  serverUrl: string;
  securitySchemes: Record<string, SecurityScheme>;
  /** What the request id on every answer (X-Render-ID, X-Request-ID) is, in the service's words. */
  requestIdDescription: string;
}

/** The two ways the services take a key: a bearer token (render) or a header (metadata). */
type SecurityScheme =
  | { type: 'http'; scheme: 'bearer'; description: string }
  | { type: 'apiKey'; in: 'header'; name: string; description: string };

/** Replaces every JSON Schema `examples: [x, …]` in the document by OpenAPI 3.0's `example: x`, in place. */
function singleExamples<T>(node: T): T {
  if (Array.isArray(node)) for (const item of node) singleExamples(item);
  else if (node !== null && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.examples)) {
      if (record.example === undefined && record.examples.length > 0) record.example = record.examples[0];
      delete record.examples;
    }
    for (const value of Object.values(record)) singleExamples(value);
  }
  return node;
}

/**
 * Serves the OpenAPI document and its docs page, the request id (`requestIdHeader`) and the other headers
 * every answer has declared on its responses; call before the routes are added.
 */
export async function registerOpenApi(app: FastifyInstance, openapi: ServiceOpenApi, requestIdHeader: string): Promise<void> {
  const { title, description, serverUrl, securitySchemes } = openapi;
  const requestId: RequestIdHeader = { name: requestIdHeader, description: openapi.requestIdDescription };
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title, version: VERSION, description },
      servers: [{ url: serverUrl }],
      components: { securitySchemes },
    },
    // OpenAPI 3.0 schemas take one `example`; the TypeBox schemas' JSON Schema `examples` arrays survive the
    // plugin's own conversion where a schema is nested (an assembly part's render options), so convert them all.
    transformObject: (doc) =>
      declareCommonHeaders(singleExamples('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject), requestId),
  });
  await registerDocsPage(app);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
