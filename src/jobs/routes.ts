/**
 * The render job routes: thin — authenticate, validate (the body: job-request.ts; the list's query:
 * job-list-query.ts), call the queue, map the result to HTTP.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { acceptMultipart, multipartDocs, requestUploads } from '../assemble/index.js';
import { invalid, RenderError } from '../errors.js';
import type { EgressPolicy } from '../net/policy.js';
import { ownValidator } from '../own-validator.js';
import {
  CLAIMS_HEADER,
  ClaimsHeaderDoc,
  claimsHeaderValue,
  HTML_BODY_HOLDS,
  PreferHeaders,
  prefersStrict,
  RenderErrorSchema,
  STRICT_APPLIED,
  storedReport,
  toPrintParams,
  warningCount,
} from '../render/index.js';
import type { ServiceApp } from '../service-app-type.js';
import type { RenderJobRow } from '../store/store.js';
import { checkIdempotencyKey } from './idempotency-key.js';
import { JobListQuerySchema, validateListQuery } from './job-list-query.js';
import { JobObjectSchema, toJobObject } from './job-object.js';
import { type JobRequest, JobRequestSchema, MAX_JOB_BODY_BYTES, validateJobRequest } from './job-request.js';
import type { JobQueue } from './queue.js';
import { validateWebhookUrl } from './webhook-url.js';

const IdParams = Type.Object({ id: Type.String({ description: 'The job id (job_…).' }) });
const errorResponse = (description: string) => ({ ...RenderErrorSchema, description });
/** What every job read can answer; the list has no job to miss, the others add 404. */
const JOB_READ_ERRORS = {
  401: errorResponse('UNAUTHORIZED'),
  429: errorResponse('RATE_LIMITED: over the job read limit, 10× the render limit (Retry-After set)'),
  500: errorResponse('INTERNAL_ERROR'),
  503: errorResponse('SERVICE_UNAVAILABLE: the account store is unavailable; OVERLOADED: shutting down (Retry-After set)'),
};
const JOB_ERRORS = { ...JOB_READ_ERRORS, 404: errorResponse('NOT_FOUND: no such job for this account') };

/** What the job routes need. */
export interface JobRoutesDeps {
  queue: JobQueue;
  policy: EgressPolicy;
  /** The render service's public base URL (absolute `pdf.url`). */
  publicUrl: string;
  /** An assembly job's certificate, checked at submit (another account's, expired: refused now, not hours later). */
  signerFor?: (accountId: string, certificateId: string) => Promise<unknown>;
}

const accountOf = (request: FastifyRequest) => {
  if (!request.auth) throw new RenderError('UNAUTHORIZED', 'missing API key');
  return request.auth.accountId;
};
const sendJob = (reply: FastifyReply, row: RenderJobRow, publicUrl: string, status = 200) =>
  reply.code(status).header('X-Render-ID', row.id).header('Cache-Control', 'no-store').send(toJobObject(row, publicUrl));

/** Registers the /v1/jobs routes on the render service app. */
export function registerJobRoutes(app: ServiceApp, deps: JobRoutesDeps): void {
  // Only POST /v1/jobs (beside POST /v1/assemble) reads multipart bodies, so it has a scope of its own.
  app.register((scope: ServiceApp, _opts, done) => {
    acceptMultipart(scope, MAX_JOB_BODY_BYTES);
    registerSubmitRoute(scope, deps);
    done();
  });
  registerJobReadRoutes(app, deps);
}

/** POST /v1/jobs. */
function registerSubmitRoute(app: ServiceApp, deps: JobRoutesDeps): void {
  const { queue, policy, publicUrl } = deps;
  // Our own validator for one part: Fastify's default Ajv would coerce types and silently drop unknown
  // fields. The other parts (headers, params) are only documented by their schemas and checked in the handler.
  app.post(
    '/v1/jobs',
    {
      onRequest: app.authenticate,
      bodyLimit: MAX_JOB_BODY_BYTES,
      config: { swaggerTransform: multipartDocs(JobRequestSchema), bodyHolds: HTML_BODY_HOLDS },
      validatorCompiler: ownValidator('body', validateJobRequest),
      schema: {
        summary: 'Queue an HTML document for rendering to PDF, or parts for assembling into one',
        description:
          'The body of POST /v1/render, or of POST /v1/assemble (`parts`, up to 5,000, each counted as a render), plus optional ' +
          '`webhook` and `reference`. Answers 202 with the job and `Location`. ' +
          'An assembly job may be sent as multipart/form-data, as POST /v1/assemble: its files are kept until the job ends. ' +
          'Idempotency-Key (≤ 255 characters): a repeat within 24 h returns the first job; with another body, 422 IDEMPOTENCY_KEY_REUSED. ' +
          'Prefer: handling=strict makes any warning fail the job with RENDER_INCOMPLETE (Preference-Applied: handling=strict).',
        tags: ['jobs'],
        security: [{ bearerAuth: [] }],
        headers: Type.Composite([
          Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
          PreferHeaders,
        ]),
        body: JobRequestSchema,
        response: {
          202: { ...JobObjectSchema, description: 'The job (Location: /v1/jobs/{id}).' },
          400: errorResponse(
            'INVALID_REQUEST: as POST /v1/render or /v1/assemble (a part naming a file not uploaded), or a bad webhook URL, reference, Idempotency-Key',
          ),
          401: errorResponse('UNAUTHORIZED'),
          413: errorResponse('PAYLOAD_TOO_LARGE: html over 10 MiB of UTF-8'),
          415: errorResponse('UNSUPPORTED_MEDIA_TYPE: body is neither application/json nor multipart/form-data'),
          422: errorResponse('IDEMPOTENCY_KEY_REUSED: the key was used with another body'),
          429: errorResponse(
            'RATE_LIMITED: over the render limit, or RENDER_JOBS_MAX_QUEUED jobs or RENDER_JOBS_MAX_QUEUED_MB of HTML queued (Retry-After set)',
          ),
          500: errorResponse('INTERNAL_ERROR'),
          503: errorResponse(
            'SERVICE_UNAVAILABLE: the account store is unavailable; OVERLOADED: shutting down (Retry-After set)',
          ),
        },
      },
    },
    async (request, reply) => {
      const accountId = accountOf(request);
      const idempotencyKey = checkIdempotencyKey(request.headers['idempotency-key']);
      const body = request.body as unknown as JobRequest;
      let charged: number | undefined;
      // The options' meaning (format names, margins that leave no page) is checked now, as /v1/render does, not at
      // render time (an assembly's HTML parts were checked by its validator).
      if ('html' in body.request) toPrintParams(body.request.options);
      else {
        if (body.request.sign) {
          if (!deps.signerFor) throw new RenderError('SERVICE_UNAVAILABLE', 'signing is not available on this instance', 5);
          await deps.signerFor(accountId, body.request.sign.certificate);
        }
        // An assembly job counts each part as a render: what one window can take now, the rest as the parts
        // start (jobs/part-meter.ts); every part is usage.
        const parts = body.request.parts.length;
        const spent = await app.spendMore(request, reply, parts - 1);
        if (!spent.allowed)
          throw new RenderError(
            'RATE_LIMITED',
            `${parts} parts count as ${parts} renders: over the limit of ${spent.limit} per window; retry in ${spent.retryAfterS} s`,
            spent.retryAfterS,
          );
        charged = spent.charged;
      }
      if (body.webhookUrl !== null) {
        const problem = await validateWebhookUrl(body.webhookUrl, policy);
        if (problem !== null) throw invalid(problem);
      }
      const strict = prefersStrict(request.headers.prefer);
      const uploads = requestUploads(request);
      const { row, replayed } = await queue.submit(accountId, {
        ...body,
        idempotencyKey,
        strict,
        keyId: request.auth?.keyId,
        ...(charged === undefined ? {} : { charged }),
        ...(uploads ? { uploads } : {}),
      });
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      if (strict) reply.header('Preference-Applied', STRICT_APPLIED);
      return sendJob(reply.header('Location', `/v1/jobs/${row.id}`), row, publicUrl, 202);
    },
  );
}

/** GET /v1/jobs, GET /v1/jobs/{id}, its PDF, and DELETE. */
function registerJobReadRoutes(app: ServiceApp, deps: JobRoutesDeps): void {
  const { queue, publicUrl } = deps;

  app.get(
    '/v1/jobs',
    {
      onRequest: app.authenticateKey,
      validatorCompiler: ownValidator('querystring', validateListQuery),
      schema: {
        summary: 'List jobs, newest first',
        tags: ['jobs'],
        security: [{ bearerAuth: [] }],
        querystring: JobListQuerySchema,
        response: {
          200: Type.Object({ data: Type.Array(JobObjectSchema), next_cursor: Type.Union([Type.String(), Type.Null()]) }),
          400: errorResponse('INVALID_REQUEST: bad status, limit or cursor'),
          ...JOB_READ_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const accountId = accountOf(request);
      const page = await queue.list(accountId, request.query as ReturnType<typeof validateListQuery>);
      return reply
        .header('Cache-Control', 'no-store')
        .send({ data: page.rows.map((row) => toJobObject(row, publicUrl)), next_cursor: page.nextCursor });
    },
  );

  app.get(
    '/v1/jobs/:id',
    {
      onRequest: app.authenticateKey,
      schema: {
        summary: 'A job',
        tags: ['jobs'],
        security: [{ bearerAuth: [] }],
        params: IdParams,
        response: { 200: JobObjectSchema, ...JOB_ERRORS },
      },
    },
    async (request, reply) => sendJob(reply, await queue.get(accountOf(request), request.params.id), publicUrl),
  );

  app.get(
    '/v1/jobs/:id/pdf',
    {
      onRequest: app.authenticateKey,
      schema: {
        summary: 'Download the PDF of a succeeded job',
        tags: ['jobs'],
        security: [{ bearerAuth: [] }],
        params: IdParams,
        response: {
          200: {
            description: 'The PDF (Content-Type application/pdf, exact Content-Length), streamed.',
            headers: {
              'X-Render-Warnings': {
                type: 'integer',
                minimum: 0,
                description: 'What the document could not get (0 when it got everything); the job object lists it.',
              },
              [CLAIMS_HEADER]: ClaimsHeaderDoc,
            },
            content: {
              'application/pdf': { schema: { type: 'string', format: 'binary' } },
              'application/zip': { schema: { type: 'string', format: 'binary', description: 'An assembly job with `split`.' } },
            },
          },
          409: errorResponse('JOB_NOT_DONE: the job is queued or running, or ended without a PDF'),
          410: errorResponse('GONE: the PDF expired (RENDER_JOB_RETENTION_H) or was deleted'),
          ...JOB_ERRORS,
          503: errorResponse(
            'SERVICE_UNAVAILABLE: the account store is unavailable, or the PDF is in a result store this instance cannot read (RESULT_STORE)',
          ),
        },
      },
    },
    async (request, reply) => {
      const found = await queue.openPdf(accountOf(request), request.params.id);
      if (found.kind === 'not_found') throw new RenderError('NOT_FOUND', `no job ${request.params.id}`);
      reply.header('X-Render-ID', found.row.id);
      if (found.kind === 'not_done') {
        const state =
          found.row.status === 'queued' || found.row.status === 'running'
            ? `is ${found.row.status}`
            : `${found.row.status}: it has no PDF`;
        throw new RenderError('JOB_NOT_DONE', `job ${found.row.id} ${state}`);
      }
      if (found.kind === 'gone') throw new RenderError('GONE', `the PDF of job ${found.row.id} expired or was deleted`);
      if (found.kind === 'elsewhere') throw found.error;
      // The headers of POST /v1/render: what the document could not get, and a strict job says so.
      if (Number(found.row.strict) === 1) reply.header('Preference-Applied', STRICT_APPLIED);
      const report = storedReport(found.row.warnings);
      const claimed = claimsHeaderValue(report.claims);
      if (claimed !== undefined) reply.header(CLAIMS_HEADER, claimed);
      // A split assembly's result is stored as a zip (attempt-settlement.ts names its key so).
      const zip = found.row.pdf_key?.endsWith('.zip') === true;
      if (zip) reply.header('Content-Disposition', 'attachment; filename="assembly.zip"');
      return reply
        .code(200)
        .header('Content-Type', zip ? 'application/zip' : 'application/pdf')
        .header('Content-Length', String(found.result.bytes))
        .header('X-Render-Warnings', String(warningCount(report.warnings)))
        .header('Cache-Control', 'no-store')
        .send(found.result.body);
    },
  );

  app.delete(
    '/v1/jobs/:id',
    {
      onRequest: app.authenticateKey,
      schema: {
        summary: 'Cancel a queued or running job, or delete a finished job’s PDF',
        tags: ['jobs'],
        security: [{ bearerAuth: [] }],
        params: IdParams,
        response: { 200: JobObjectSchema, ...JOB_ERRORS },
      },
    },
    async (request, reply) => sendJob(reply, await queue.cancel(accountOf(request), request.params.id), publicUrl),
  );
}
