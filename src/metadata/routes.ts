/** GET /v1/fetch: thin — authenticate, check the url, fetch through the service, answer the eight fields. */
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { ServiceApp } from '../service-app-type.js';
import { MAX_URL_LENGTH, type MetadataService } from './service.js';

/** Sends the metadata service's error shape `{"detail": "…"}`. */
export function sendMetadataError(reply: FastifyReply, status: number, _code: string, message: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ detail: message });
}

const field = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

/** The response body: all eight fields, always present, string or null. */
export const MetadataSchema = Type.Object(
  {
    title: field('Text of the first HTML <title>'),
    description: field('content of the first <meta name="description">'),
    og_title: field('og:title (property, else name)'),
    og_description: field('og:description'),
    og_image: field('og:image, absolute URL'),
    og_url: field('og:url, absolute URL'),
    canonical_url: field('First <link rel="canonical">, absolute URL'),
    favicon_url: field('First <link rel~="icon">, else apple-touch-icon, else /favicon.ico on the final origin'),
  },
  { additionalProperties: false },
);

/** The error body. */
export const MetadataErrorSchema = Type.Object({ detail: Type.String() }, { additionalProperties: false });

const errorResponse = (description: string) => ({ ...MetadataErrorSchema, description });

/** Registers GET /v1/fetch on a metadata service app. */
export function registerMetadataRoutes(app: ServiceApp, service: MetadataService): void {
  app.get(
    '/v1/fetch',
    {
      onRequest: app.authenticate,
      // The handler checks `url` itself so every refusal has a precise `detail`.
      validatorCompiler: () => (data: unknown) => ({ value: data }),
      schema: {
        summary: 'Fetch a page and return its title, description, Open Graph tags, canonical link and favicon',
        description:
          'Every field is always present (string or null). Failures are JSON {"detail": "…"}; every response carries X-Request-ID.',
        tags: ['metadata'],
        security: [{ apiKey: [] }],
        querystring: Type.Object({
          url: Type.String({
            maxLength: MAX_URL_LENGTH,
            description: 'Address of the page, http:// or https:// (URL-encoded)',
            examples: ['https://example.com/'],
          }),
        }),
        response: {
          200: MetadataSchema,
          400: errorResponse('url missing, not http(s), malformed, longer than 2048 characters, or refused by the egress policy'),
          401: errorResponse('key missing, malformed, unknown, revoked, or a render key'),
          429: errorResponse('account over its fetch limit (Retry-After set)'),
          500: errorResponse('anything else (no internals in the detail)'),
          502: errorResponse('target unreachable (DNS, refused, TLS), answered non-2xx, or redirected more than 5 times'),
          503: errorResponse('the account store is unavailable, or the instance is shutting down (Retry-After set)'),
          504: errorResponse('target did not answer within METADATA_TIMEOUT_MS'),
        },
      },
    },
    async (request) => service.fetch((request.query as { url?: unknown }).url),
  );
}
