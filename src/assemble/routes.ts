/**
 * POST /v1/assemble: thin — authenticate (before the body is read), validate, count the parts against
 * the rate limit, run the assembly, send the PDF with the headers of POST /v1/render (X-Render-Claims included).
 */
import type { FastifyRequest } from 'fastify';
import { RenderError } from '../errors.js';
import { ownValidator } from '../own-validator.js';
import {
  CLAIMS_HEADER,
  ClaimsHeaderDoc,
  claimsHeaderValue,
  HTML_BODY_HOLDS,
  incompleteError,
  PreferHeaders,
  prefersStrict,
  RenderErrorSchema,
  type RenderRecorder,
  recordRender,
  STRICT_APPLIED,
  warningCount,
} from '../render/index.js';
import type { ServiceApp } from '../service-app-type.js';
import { type AssemblyDeps, type AssemblyResult, runAssembly } from './assembly.js';
import { acceptMultipart, multipartDocs, requestUploads } from './multipart-parser.js';
import { type AssembleRequest, AssembleRequestSchema, MAX_ASSEMBLE_BODY_BYTES } from './schema.js';
import { validateAssembleRequest } from './validate-request.js';

const errorResponse = (description: string) => ({ ...RenderErrorSchema, description });

/** What each assembly made, for its record once the answer is sent (a strict 422 included). */
const assembled = new WeakMap<FastifyRequest, AssemblyResult>();

/** What the route needs beside the assembly's own dependencies. */
export interface AssembleRouteDeps extends AssemblyDeps {
  /** Parts made at once (the pool's concurrency). */
  width: number;
  /** ASSEMBLE_MAX_PARTS. */
  maxParts: number;
  recorder: RenderRecorder;
}

/** Registers POST /v1/assemble on the render service app. */
export function registerAssembleRoutes(app: ServiceApp, deps: AssembleRouteDeps): void {
  // Only this route reads multipart bodies, so the parser lives in a scope of its own.
  app.register((scope: ServiceApp, _opts, done) => {
    registerAssembleRoute(scope, deps);
    done();
  });
}

function registerAssembleRoute(app: ServiceApp, deps: AssembleRouteDeps): void {
  acceptMultipart(app, MAX_ASSEMBLE_BODY_BYTES);
  app.post(
    '/v1/assemble',
    {
      onRequest: app.authenticate,
      onSend: (request, reply, payload, done) => {
        recordRender(deps.recorder, request, reply, payload, assembled.get(request));
        done(null, payload);
      },
      bodyLimit: MAX_ASSEMBLE_BODY_BYTES,
      config: { swaggerTransform: multipartDocs(AssembleRequestSchema), bodyHolds: HTML_BODY_HOLDS },
      validatorCompiler: ownValidator('body', (data) => validateAssembleRequest(data, deps.maxParts)),
      schema: {
        summary: 'Assemble rendered HTML and existing PDFs into one PDF, optionally protected and signed',
        description:
          'Parts in order: {"html", "options"} rendered exactly as POST /v1/render, {"pdf": base64}, {"url"} (fetched ' +
          'through the egress policy) or {"file"} (a PDF uploaded beside the body, multipart/form-data). One PDF with one outline (an entry per part); then `protect` (AES-256) and `sign` ' +
          '(PAdES, a certificate of POST /v1/certificates). Answers like POST /v1/render: X-Render-ID, X-Render-Warnings, X-Render-Claims, ' +
          'Prefer: handling=strict. A part that cannot be had or read fails the request, its message naming it (parts[2]: …). ' +
          'Each part counts as one render against the rate limit.',
        tags: ['render'],
        security: [{ bearerAuth: [] }],
        headers: PreferHeaders,
        body: AssembleRequestSchema,
        response: {
          200: {
            description: 'The PDF (Content-Type application/pdf, exact Content-Length).',
            headers: {
              'X-Render-Warnings': {
                type: 'integer',
                minimum: 0,
                description:
                  'What the parts could not get and what the assembly could not claim; GET /v1/renders/{id} lists it by part.',
              },
              [CLAIMS_HEADER]: ClaimsHeaderDoc,
              'Preference-Applied': {
                type: 'string',
                enum: [STRICT_APPLIED],
                description: 'Sent when strict handling was asked for.',
              },
            },
            content: {
              'application/pdf': { schema: { type: 'string', format: 'binary' } },
              'application/zip': {
                schema: {
                  type: 'string',
                  format: 'binary',
                  description: 'With `split`: a PDF per piece, named by part title or pages.',
                },
              },
            },
          },
          400: errorResponse(
            'INVALID_REQUEST: malformed JSON, unknown field, no parts or more than ASSEMBLE_MAX_PARTS, a part that is not base64 or not a PDF, a bad option of an HTML part (named parts[N]), a URL the egress policy refuses',
          ),
          401: errorResponse('UNAUTHORIZED: missing, malformed, unknown or revoked key, or a metadata key'),
          413: errorResponse(
            'PAYLOAD_TOO_LARGE: an HTML part over 10 MiB of UTF-8, a body over about 60 MiB, or parts that come to more than ASSEMBLE_MAX_BYTES (named parts[N])',
          ),
          415: errorResponse('UNSUPPORTED_MEDIA_TYPE: body is neither application/json nor multipart/form-data'),
          422: errorResponse(
            'PART_FAILED: a part could not be had or read (its address failed, not a PDF, encrypted, damaged), named parts[N]; ' +
              'RENDER_FAILED: Chromium could not print an HTML part; RENDER_INCOMPLETE: strict handling and a warning',
          ),
          429: errorResponse('RATE_LIMITED: the parts are over the account’s render limit (Retry-After set)'),
          500: errorResponse('INTERNAL_ERROR'),
          503: errorResponse('OVERLOADED, SERVICE_UNAVAILABLE: as POST /v1/render (Retry-After set)'),
          504: errorResponse('RENDER_TIMEOUT: an HTML part exceeded RENDER_TIMEOUT_MS'),
        },
      },
    },
    async (request, reply) => {
      const body = request.body as AssembleRequest;
      const auth = request.auth;
      if (!auth) throw new RenderError('UNAUTHORIZED', 'missing API key');
      // The first part was counted when the request was let in; the rest count now.
      const spent = await app.spendMore(request, reply, body.parts.length - 1);
      if (!spent.allowed) {
        throw new RenderError(
          'RATE_LIMITED',
          `${body.parts.length} parts count as ${body.parts.length} renders: over the limit of ${spent.limit} per window; retry in ${spent.retryAfterS} s`,
          spent.retryAfterS,
        );
      }
      const gone = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) gone.abort(new RenderError('INTERNAL_ERROR', 'client closed the connection'));
      });
      const strict = prefersStrict(request.headers.prefer);
      const started = Date.now();
      const uploads = requestUploads(request);
      const result = await runAssembly(body, deps, {
        accountId: auth.accountId,
        signal: gone.signal,
        width: deps.width,
        ...(uploads ? { uploads } : {}),
      });
      assembled.set(request, result);
      const { pdf, warnings } = result;
      request.log.info(
        { assembleMs: Date.now() - started, parts: body.parts.length, pdfBytes: pdf.length, warnings: warnings.length },
        'assembled',
      );
      if (strict) reply.header('Preference-Applied', STRICT_APPLIED);
      if (strict && warnings.length > 0) throw incompleteError(warnings, `GET /v1/renders/${request.id} lists them all`);
      const claimed = claimsHeaderValue(result.claims);
      if (claimed !== undefined) reply.header(CLAIMS_HEADER, claimed);
      // A split answers with the zip of its files.
      if (result.files) reply.header('Content-Disposition', 'attachment; filename="assembly.zip"');
      return reply
        .code(200)
        .header('Content-Type', result.files ? 'application/zip' : 'application/pdf')
        .header('Content-Length', String(pdf.length))
        .header('Cache-Control', 'no-store')
        .header('X-Render-Warnings', String(warningCount(warnings)))
        .send(pdf);
    },
  );
}
