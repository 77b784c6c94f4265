/**
 * The signing certificate routes, served by the render service (a certificate signs assemblies there):
 * thin — authenticate with a render key, validate, call the certificate service, map the result to HTTP.
 * The private key never leaves the service. A certificate is account data (`accounts/certificates.ts`);
 * its routes are a room of their own, above `render/` only for the render service's error shape.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import {
  type CertificateService,
  type CertificateView,
  MAX_CERTIFICATE_NAME,
  MAX_PKCS12_BYTES,
} from '../accounts/certificates.js';
import { unshowableCharacterProblem } from '../accounts/user-text.js';
import { cutText, MAX_QUOTED } from '../cut-text.js';
import { invalid, RenderError } from '../errors.js';
import { RenderErrorSchema } from '../render/index.js';
import type { ServiceApp } from '../service-app-type.js';

const errorResponse = (description: string) => ({ ...RenderErrorSchema, description });

/** A signing certificate as the API shows it (never its private key). */
export const CertificateObjectSchema = Type.Object({
  id: Type.String({ description: '`crt_…`' }),
  name: Type.Union([Type.String(), Type.Null()]),
  subject: Type.String({ description: 'The certificate’s subject, e.g. `CN=Acme Ltd, O=Acme, C=GB`.' }),
  issuer: Type.String(),
  not_after: Type.String({ format: 'date-time', description: 'When the certificate expires; it cannot sign after.' }),
  created_at: Type.String({ format: 'date-time' }),
});

/** The body of POST /v1/certificates. */
export const CertificateUploadSchema = Type.Object(
  {
    pkcs12: Type.String({ description: 'The PKCS#12 file (.p12/.pfx: certificate, chain and private key), base64.' }),
    password: Type.String({ description: 'The PKCS#12 file’s password; used once to read it, never stored.' }),
    name: Type.Optional(Type.String({ maxLength: MAX_CERTIFICATE_NAME, description: 'Your own label.' })),
  },
  { additionalProperties: false },
);

type CertificateUpload = Static<typeof CertificateUploadSchema>;

const CERTIFICATE_ID = /^crt_[0-9a-f]{32}$/;
/** Largest body of POST /v1/certificates: a PKCS#12 file at its limit in base64, with room for the password and name. */
const MAX_UPLOAD_BODY_BYTES = 128 * 1024;

/** The API's JSON of a certificate. */
function certificateJson(c: CertificateView): Static<typeof CertificateObjectSchema> {
  return {
    id: c.id,
    name: c.name,
    subject: c.subject,
    issuer: c.issuer,
    not_after: new Date(c.notAfter).toISOString(),
    created_at: new Date(c.createdAt).toISOString(),
  };
}

/** Checks the upload body by hand (no type coercion, unknown fields refused), naming the field at fault. */
function validateCertificateUpload(body: unknown): CertificateUpload {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('body: expected a JSON object');
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!['pkcs12', 'password', 'name'].includes(key))
      throw invalid(`${cutText(key, MAX_QUOTED)}: unknown field (allowed: pkcs12, password, name)`);
  }
  if (typeof input.pkcs12 !== 'string' || input.pkcs12 === '') throw invalid('pkcs12: required, the PKCS#12 file as base64');
  const compact = input.pkcs12.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 === 1) throw invalid('pkcs12: not base64');
  if (compact.length > Math.ceil(MAX_PKCS12_BYTES / 3) * 4) throw invalid(`pkcs12: larger than ${MAX_PKCS12_BYTES / 1024} KiB`);
  if (typeof input.password !== 'string') throw invalid('password: required (a string; "" for a file without one)');
  if (input.name !== undefined) {
    if (typeof input.name !== 'string') throw invalid('name: expected a string');
    if (input.name.length > MAX_CERTIFICATE_NAME) throw invalid(`name: longer than ${MAX_CERTIFICATE_NAME} characters`);
    const problem = unshowableCharacterProblem('name', input.name);
    if (problem) throw invalid(problem);
  }
  return { pkcs12: compact, password: input.password, name: input.name as string | undefined };
}

/** Registers POST/GET /v1/certificates and DELETE /v1/certificates/{id} on the render service app. */
export function registerCertificateRoutes(app: ServiceApp, certificates: CertificateService): void {
  const accountOf = (request: FastifyRequest) => {
    if (!request.auth) throw new RenderError('UNAUTHORIZED', 'missing API key');
    return request.auth.accountId;
  };
  const common = { 401: errorResponse('UNAUTHORIZED'), 500: errorResponse('INTERNAL_ERROR') };

  app.post(
    '/v1/certificates',
    {
      onRequest: app.authenticateKey,
      bodyLimit: MAX_UPLOAD_BODY_BYTES,
      config: { bodyHolds: `pkcs12: at most ${MAX_PKCS12_BYTES / 1024} KiB` },
      validatorCompiler:
        ({ httpPart }: { httpPart?: string }) =>
        (value: unknown) => {
          if (httpPart !== 'body') return { value };
          try {
            return { value: validateCertificateUpload(value) };
          } catch (error) {
            return { error: error as Error };
          }
        },
      schema: {
        summary: 'Upload a signing certificate (PKCS#12)',
        description:
          'Reads the PKCS#12 file with its password and keeps the certificate chain and the private key, the key encrypted ' +
          'at rest with the server’s key (SECRETS_KEY). The key and the password are never returned or logged. ' +
          '`POST /v1/assemble` signs with it (`sign.certificate`).',
        tags: ['certificates'],
        security: [{ bearerAuth: [] }],
        body: CertificateUploadSchema,
        response: {
          201: { ...CertificateObjectSchema, description: 'The certificate (Location: /v1/certificates).' },
          400: errorResponse('INVALID_REQUEST: not base64 or not PKCS#12, a wrong password, no private key, an unknown field'),
          413: errorResponse(`PAYLOAD_TOO_LARGE: body over ${MAX_UPLOAD_BODY_BYTES / 1024} KiB`),
          415: errorResponse('UNSUPPORTED_MEDIA_TYPE: body is not application/json'),
          422: errorResponse('CERTIFICATE_EXPIRED: the certificate’s not-after date has passed'),
          429: errorResponse('RATE_LIMITED: over the read limit, 10× the render limit (Retry-After set)'),
          503: errorResponse('SERVICE_UNAVAILABLE: the server has no SECRETS_KEY, or the account store is unavailable'),
          ...common,
        },
      },
    },
    async (request, reply) => {
      const body = request.body as CertificateUpload;
      const created = await certificates.upload(
        accountOf(request),
        { pkcs12: Buffer.from(body.pkcs12, 'base64'), password: body.password, name: body.name },
        { actor: 'api', client: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null } },
      );
      return reply.code(201).header('Cache-Control', 'no-store').send(certificateJson(created));
    },
  );

  app.get(
    '/v1/certificates',
    {
      onRequest: app.authenticateKey,
      schema: {
        summary: 'List the account’s signing certificates, newest first',
        tags: ['certificates'],
        security: [{ bearerAuth: [] }],
        response: {
          200: Type.Object({ data: Type.Array(CertificateObjectSchema) }),
          429: errorResponse('RATE_LIMITED: over the read limit, 10× the render limit (Retry-After set)'),
          503: errorResponse('SERVICE_UNAVAILABLE: the account store is unavailable'),
          ...common,
        },
      },
    },
    async (request, reply) => {
      const list = await certificates.list(accountOf(request));
      return reply.header('Cache-Control', 'no-store').send({ data: list.map(certificateJson) });
    },
  );

  app.delete(
    '/v1/certificates/:id',
    {
      onRequest: app.authenticateKey,
      schema: {
        summary: 'Delete a signing certificate (its private key goes with it)',
        tags: ['certificates'],
        security: [{ bearerAuth: [] }],
        params: Type.Object({ id: Type.String({ description: '`crt_…`' }) }),
        response: {
          204: { type: 'null', description: 'Deleted.' },
          404: errorResponse('NOT_FOUND: this account has no such certificate (another account’s included)'),
          429: errorResponse('RATE_LIMITED: over the read limit, 10× the render limit (Retry-After set)'),
          503: errorResponse('SERVICE_UNAVAILABLE: the account store is unavailable'),
          ...common,
        },
      },
    },
    async (request, reply) => {
      const accountId = accountOf(request);
      const { id } = request.params as { id: string };
      if (!CERTIFICATE_ID.test(id)) throw new RenderError('NOT_FOUND', `no certificate ${id.slice(0, 64)}`);
      await certificates.delete(accountId, id, {
        actor: 'api',
        client: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null },
      });
      return reply.code(204).send();
    },
  );
}
