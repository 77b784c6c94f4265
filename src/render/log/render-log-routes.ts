/**
 * `GET /v1/renders/{id}`: what one render (sync or job) could not get, from the render log. Thin:
 * authenticate, look the record up for the key's account, map it to the public object.
 */
import { type Static, Type } from '@sinclair/typebox';
import { RenderError } from '../../errors.js';
import type { RecordPart, RenderRecord } from '../../report/report.js';
import type { ServiceApp } from '../../service-app-type.js';
import { ClaimsSchema } from '../report/claims-header.js';
import { RenderErrorSchema } from '../request/schema.js';
import type { RenderLog } from './render-log.js';

/** A render id: a sync render's `X-Render-ID` or a job's id; anything else names no render. */
const RENDER_ID = /^(rnd_[0-9a-f]{24}|job_[0-9a-f]{32})$/;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

/** The public render object's schema (OpenAPI). */
export const RenderObjectSchema = Type.Object(
  {
    id: Type.String({ description: 'The render id: the X-Render-ID of a POST /v1/render (rnd_…) or a job id (job_…).' }),
    created_at: Type.String({ format: 'date-time', description: 'When the render was asked for (RFC 3339).' }),
    duration_ms: Type.Integer({ minimum: 0, description: 'How long it took, queue wait excluded.' }),
    source: Type.Union([Type.Literal('api'), Type.Literal('job')], { description: 'POST /v1/render or a job.' }),
    job_id: Nullable(Type.String(), 'The job it rendered, for source "job".'),
    status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
    error: Nullable(
      Type.Object({ code: Type.String(), message: Type.String() }),
      'Why it failed, with the codes of POST /v1/render.',
    ),
    pages: Nullable(Type.Integer({ minimum: 0 }), 'Pages of the PDF, when one was printed.'),
    bytes: Nullable(Type.Integer({ minimum: 0 }), 'Size of the PDF, when one was printed.'),
    warnings: Type.Array(
      Type.Object(
        {
          kind: Type.String({
            description:
              'resource_blocked, resource_failed, font_failed, script_error, not_ready, printed_while_pending, frames_missed, truncated, …',
          }),
          message: Type.String({ description: 'What happened, in plain words.' }),
        },
        // Each kind has its own fields (url, reason, status, family, count, …): all are passed on.
        { additionalProperties: true },
      ),
      { description: 'What the document could not get, in the order met (at most 100, then one "truncated").' },
    ),
    claims: ClaimsSchema(
      'The standards the PDF claims (docs/standards.md): what its document declared and the PDF meets. Empty when it declared none, or met none.',
    ),
    part_count: Type.Optional(Type.Integer({ minimum: 1, description: 'An assembly only: how many parts it had.' })),
    parts: Type.Optional(
      Type.Array(
        Type.Object(
          {
            label: Type.String({ description: 'Its place in the request: parts[N].' }),
            kind: Type.Union([Type.Literal('html'), Type.Literal('pdf'), Type.Literal('url')]),
            pages: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Its pages in the assembly.' }),
            warnings: Type.Integer({ minimum: 0, description: 'Its entries among warnings (those whose part is its label).' }),
            url: Type.Optional(Type.String({ description: 'A URL part’s address, credentials hidden.' })),
          },
          { additionalProperties: false },
        ),
        {
          description:
            'An assembly only: its parts in order (a record keeps the first 150 to 250 of a larger one; part_count has them all).',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

/** A render as `GET /v1/renders/{id}` answers it. */
export type RenderObject = Static<typeof RenderObjectSchema>;

/** A part as the API shows it: what the dashboard shows beside (its title, pages kept, turn) is the record's alone. */
function publicPart({ label, kind, pages, warnings, url }: RecordPart): NonNullable<RenderObject['parts']>[number] {
  return { label, kind, pages, warnings, ...(url === undefined ? {} : { url }) };
}

/** The public object of a render record. */
export function toRenderObject(record: RenderRecord): RenderObject {
  return {
    id: record.id,
    created_at: new Date(record.createdAt).toISOString(),
    duration_ms: Math.round(record.durationMs),
    source: record.source,
    job_id: record.jobId,
    status: record.status,
    error: record.error,
    pages: record.pages,
    bytes: record.bytes,
    warnings: record.warnings,
    claims: record.claims,
    ...(record.assembly ? { part_count: record.assembly.partCount, parts: record.assembly.parts.map(publicPart) } : {}),
  };
}

const errorResponse = (description: string) => ({ ...RenderErrorSchema, description });

/** Registers `GET /v1/renders/{id}` on the render service app. */
export function registerRenderLogRoutes(
  app: ServiceApp,
  deps: {
    renderLog: RenderLog;
    retentionDays: number;
    /** The account's job of this id, so a job's id without a render says why (canceled before it printed). */
    findJob: (id: string, accountId: string) => Promise<{ status: string } | undefined>;
  },
): void {
  const { renderLog, retentionDays, findJob } = deps;
  app.get(
    '/v1/renders/:id',
    {
      // As reading a job: the key's account only, limited with the job reads (10× the render limit), not usage.
      onRequest: app.authenticateKey,
      schema: {
        summary: 'What one render could not get (its report)',
        description:
          `The record of a render (POST /v1/render or a job) of this key's account, kept ${retentionDays} days ` +
          "(RENDER_LOG_RETENTION_DAYS): its outcome and every warning. Another account's render, an unknown or malformed id: 404.",
        tags: ['render'],
        security: [{ bearerAuth: [] }],
        params: Type.Object({ id: Type.String({ description: 'The X-Render-ID of a render, or a job id.' }) }),
        response: {
          200: RenderObjectSchema,
          401: errorResponse('UNAUTHORIZED'),
          404: errorResponse(
            'NOT_FOUND: no such render for this account (or past its retention); a job canceled before it printed has none, and its message says so',
          ),
          429: errorResponse('RATE_LIMITED: over the read limit, 10× the render limit (Retry-After set)'),
          500: errorResponse('INTERNAL_ERROR'),
          503: errorResponse('SERVICE_UNAVAILABLE: the account store is unavailable'),
        },
      },
    },
    async (request, reply) => {
      const auth = request.auth;
      if (!auth) throw new RenderError('UNAUTHORIZED', 'missing API key');
      const { id } = request.params;
      const record = RENDER_ID.test(id) ? await renderLog.find(id, auth.accountId) : undefined;
      if (!record && id.startsWith('job_') && RENDER_ID.test(id)) {
        const job = await findJob(id, auth.accountId);
        if (job?.status === 'canceled')
          throw new RenderError('NOT_FOUND', `no render ${id}: the job was canceled before it printed`);
        if (job?.status === 'queued' || job?.status === 'running')
          throw new RenderError('NOT_FOUND', `no render ${id} yet: the job is ${job.status}`);
      }
      // Another account's render and no render at all look the same.
      if (!record) throw new RenderError('NOT_FOUND', `no render ${id.length > 80 ? `${id.slice(0, 80)}…` : id}`);
      return reply.header('Cache-Control', 'no-store').send(toRenderObject(record));
    },
  );
}
