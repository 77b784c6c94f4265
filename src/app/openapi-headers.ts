/**
 * The response headers the service's common part sends, declared on the responses of its OpenAPI document
 * that carry them, so that a generated client can read them: the request id on every answer, the
 * rate-limit fields on every answer past the key check, Retry-After on 429 and 503, and the challenge of
 * a Bearer 401. A route's schema declares only what the route itself adds (X-Render-Warnings, …).
 */

/** An OpenAPI 3.0 document as far as this file reads and writes it. */
interface OpenApiDocument {
  paths?: Record<string, Record<string, Operation>>;
  components?: { headers?: Record<string, unknown>; securitySchemes?: Record<string, { type?: string; scheme?: string }> };
}

interface Operation {
  security?: Array<Record<string, unknown>>;
  responses?: Record<string, { headers?: Record<string, unknown> }>;
}

/** What the request id header is called on this service and what its value is. */
export interface RequestIdHeader {
  name: string;
  description: string;
}

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The shared header objects, by their name under `components.headers`; the Bearer challenge where a scheme is Bearer. */
function headerObjects(requestId: RequestIdHeader, bearer: boolean): Record<string, unknown> {
  const objects: Record<string, unknown> = {
    RequestId: { description: requestId.description, required: true, schema: { type: 'string' } },
    RateLimit: {
      description: 'Requests left in the current window and seconds until it resets (IETF httpapi rate-limit draft).',
      schema: { type: 'string', example: '"render";r=119;t=60' },
    },
    RateLimitPolicy: {
      description: "The account's quota: q requests per window of w seconds (IETF httpapi rate-limit draft).",
      schema: { type: 'string', example: '"render";q=120;w=60' },
    },
    RetryAfter: {
      description: 'Seconds to wait before trying again.',
      schema: { type: 'integer', minimum: 1, example: 42 },
    },
  };
  if (bearer)
    objects.WwwAuthenticate = {
      description: 'The Bearer challenge (RFC 6750); error="invalid_token" when the request sent a key that was refused.',
      schema: { type: 'string', example: 'Bearer realm="pageworks", error="invalid_token"' },
    };
  return objects;
}

type SecuritySchemes = NonNullable<OpenApiDocument['components']>['securitySchemes'];

const isBearer = (schemes: SecuritySchemes, name: string) =>
  schemes?.[name]?.type === 'http' && schemes[name]?.scheme === 'bearer';

/** Whether an operation asks for a Bearer token (a render key), by the security schemes it names. */
function takesBearer(op: Operation, schemes: SecuritySchemes): boolean {
  return (op.security ?? []).some((requirement) => Object.keys(requirement).some((name) => isBearer(schemes, name)));
}

/** Declares the common headers on every response of `doc` that carries them, in place; returns `doc`. */
export function declareCommonHeaders<T>(doc: T, requestId: RequestIdHeader): T {
  const document = doc as OpenApiDocument;
  const schemes = document.components?.securitySchemes;
  const bearer = Object.keys(schemes ?? {}).some((name) => isBearer(schemes, name));
  document.components = {
    ...document.components,
    headers: { ...document.components?.headers, ...headerObjects(requestId, bearer) },
  };
  for (const operations of Object.values(document.paths ?? {}))
    for (const op of Object.values(operations)) {
      // Past the key check every answer carries the account's rate-limit fields; a 401 never got that far.
      const keyed = (op.security ?? []).length > 0;
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const headers: Record<string, unknown> = { [requestId.name]: ref('RequestId') };
        if (keyed && status !== '401')
          Object.assign(headers, { RateLimit: ref('RateLimit'), 'RateLimit-Policy': ref('RateLimitPolicy') });
        if (status === '429' || status === '503') headers['Retry-After'] = ref('RetryAfter');
        if (status === '401' && takesBearer(op, schemes)) headers['WWW-Authenticate'] = ref('WwwAuthenticate');
        response.headers = { ...response.headers, ...headers };
      }
    }
  return doc;
}
