/**
 * POST /v1/render: thin — authenticate (before the body is read), validate, compute print parameters,
 * render through the pool, send the PDF.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RenderError } from '../errors.js';
import { ownValidator } from '../own-validator.js';
import { DISCARD_RECORDS, type RenderRecorder, warningCount } from '../report/report.js';
import type { ServiceApp } from '../service-app-type.js';
import { recordRender } from './log/render-record.js';
import type { BrowserPool } from './pool/browser-pool.js';
import type { RenderResult } from './pool/render-attempt.js';
import { CLAIMS_HEADER, ClaimsHeaderDoc, claimsHeaderValue } from './report/claims-header.js';
import { toPrintParams } from './request/options.js';
import {
  HTML_BODY_HOLDS,
  MAX_BODY_BYTES,
  RenderErrorSchema,
  type RenderRequest,
  RenderRequestSchema,
  validateRenderRequest,
} from './request/schema.js';
import { incompleteError, PreferHeaders, prefersStrict, STRICT_APPLIED } from './request/strict.js';

/** Sends the render service's error shape `{"error":{"code","message"}}`. */
export function sendRenderError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ error: { code, message } });
}

const errorResponse = (description: string) => ({ ...RenderErrorSchema, description });

/** What each render printed, for its record once the answer is sent (a strict render's 422 included). */
const printed = new WeakMap<FastifyRequest, RenderResult>();

/**
 * Registers POST /v1/render on a render service app. Every render past authentication is reported to
 * `recorder` (the render log) as it is answered, succeeded or failed.
 */
export function registerRenderRoutes(
  app: ServiceApp,
  pool: Pick<BrowserPool, 'render'>,
  recorder: RenderRecorder = DISCARD_RECORDS,
): void {
  app.post(
    '/v1/render',
    {
      onRequest: app.authenticate,
      onSend: (request, reply, payload, done) => {
        recordRender(recorder, request, reply, payload, printed.get(request));
        done(null, payload);
      },
      bodyLimit: MAX_BODY_BYTES,
      config: { bodyHolds: HTML_BODY_HOLDS },
      // The Prefer header is documented, not validated: a preference a server does not know is ignored (RFC 7240).
      validatorCompiler: ownValidator('body', validateRenderRequest),
      schema: {
        summary: 'Render an HTML document to PDF',
        description:
          'Returns the raw PDF. Every response carries X-Render-ID; a 200 also carries X-Render-Warnings, the number of ' +
          'things the document could not get (GET /v1/renders/{id} lists them), and X-Render-Claims when the PDF claims a ' +
          'standard (docs/standards.md). With the header Prefer: handling=strict, ' +
          'any warning is 422 RENDER_INCOMPLETE instead. Failures are JSON {"error":{"code","message"}}.',
        tags: ['render'],
        security: [{ bearerAuth: [] }],
        headers: PreferHeaders,
        body: RenderRequestSchema,
        response: {
          200: {
            description: 'The PDF (Content-Type application/pdf, exact Content-Length).',
            headers: {
              'X-Render-Warnings': {
                type: 'integer',
                minimum: 0,
                description: 'What the document could not get (0 when it got everything); GET /v1/renders/{id} lists it.',
              },
              [CLAIMS_HEADER]: ClaimsHeaderDoc,
              'Preference-Applied': {
                type: 'string',
                enum: [STRICT_APPLIED],
                description: 'Sent when the request asked for strict handling (Prefer: handling=strict).',
              },
            },
            content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
          },
          400: errorResponse('INVALID_REQUEST: malformed JSON, unknown field, wrong type, bad option value'),
          401: errorResponse('UNAUTHORIZED: missing, malformed, unknown or revoked key, or a metadata key'),
          413: errorResponse('PAYLOAD_TOO_LARGE: html over 10 MiB of UTF-8'),
          415: errorResponse('UNSUPPORTED_MEDIA_TYPE: body is not application/json'),
          422: errorResponse(
            'RENDER_FAILED: Chromium could not print this document; RENDER_INCOMPLETE: Prefer: handling=strict and the ' +
              'document could not get everything, or a profile it declared could not be claimed (Preference-Applied: handling=strict)',
          ),
          429: errorResponse('RATE_LIMITED: account over its render limit (Retry-After set)'),
          500: errorResponse('INTERNAL_ERROR'),
          503: errorResponse(
            'OVERLOADED: queue full, no renderer free in time, or shutting down; SERVICE_UNAVAILABLE: Chromium cannot be started (or stopped twice during the render), or the account store is unreachable (Retry-After set)',
          ),
          504: errorResponse('RENDER_TIMEOUT: render exceeded RENDER_TIMEOUT_MS'),
        },
      },
    },
    async (request, reply) => {
      const body = request.body as RenderRequest;
      const params = toPrintParams(body.options);
      const auth = request.auth;
      if (!auth) throw new RenderError('UNAUTHORIZED', 'missing API key');
      // A client that hangs up while queued gives its turn away.
      const gone = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) gone.abort(new RenderError('INTERNAL_ERROR', 'client closed the connection'));
      });
      const strict = prefersStrict(request.headers.prefer);
      const started = Date.now();
      const result = await pool.render(auth.accountId, body.html, params, { signal: gone.signal, log: request.log });
      const { pdf, warnings, claims } = result;
      printed.set(request, result);
      request.log.info({ renderMs: Date.now() - started, pdfBytes: pdf.length, warnings: warnings.length }, 'rendered');
      if (strict) reply.header('Preference-Applied', STRICT_APPLIED);
      if (strict && warnings.length > 0) throw incompleteError(warnings, `GET /v1/renders/${request.id} lists them all`);
      const claimed = claimsHeaderValue(claims);
      if (claimed !== undefined) reply.header(CLAIMS_HEADER, claimed);
      return reply
        .code(200)
        .header('Content-Type', 'application/pdf')
        .header('Content-Length', String(pdf.length))
        .header('Cache-Control', 'no-store')
        .header('X-Render-Warnings', String(warningCount(warnings)))
        .send(pdf);
    },
  );
}
