/**
 * The public job object: the JSON every job route answers and every webhook carries, and its TypeBox
 * schema for the OpenAPI document.
 */
import { type Static, Type } from '@sinclair/typebox';
import { ClaimsSchema, ReportEntrySchema, storedReport } from '../render/index.js';
import type { RenderJobRow } from '../store/store.js';
import { MAX_REFERENCE_LENGTH } from './job-request.js';

const Time = (description: string) => Type.String({ format: 'date-time', description });
const NullableTime = (description: string) => Type.Union([Time(description), Type.Null()]);

/** The job object's schema (OpenAPI). */
export const JobObjectSchema = Type.Object(
  {
    id: Type.String({
      pattern: '^job_[0-9a-f]{32}$',
      description:
        'The job id; also the X-Render-ID of the answers about this job (the list and errors carry a request id, rnd_…).',
    }),
    status: Type.Union([
      Type.Literal('queued'),
      Type.Literal('running'),
      Type.Literal('succeeded'),
      Type.Literal('failed'),
      Type.Literal('canceled'),
    ]),
    reference: Type.Union([Type.String({ maxLength: MAX_REFERENCE_LENGTH }), Type.Null()], {
      description: 'Echoed back as submitted.',
    }),
    created_at: Time('When the job was submitted (RFC 3339).'),
    started_at: NullableTime('When its latest attempt started.'),
    finished_at: NullableTime('When it succeeded, failed or was canceled.'),
    attempts: Type.Integer({ minimum: 0, description: 'Attempts so far (at most RENDER_JOB_ATTEMPTS).' }),
    error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()], {
      description: 'Why it failed, with the codes of POST /v1/render.',
    }),
    pdf: Type.Union(
      [
        Type.Object({
          bytes: Type.Integer(),
          pages: Type.Integer(),
          url: Type.String({ description: 'GET it with the same key.' }),
          expires_at: Time('When the PDF is deleted (RENDER_JOB_RETENTION_H after the job finished).'),
        }),
        Type.Null(),
      ],
      { description: 'The PDF once the job succeeded, until it expires or is deleted.' },
    ),
    warnings: Type.Array(ReportEntrySchema, {
      description: 'What the document could not get (the render report; GET /v1/renders/{id}); empty until the job printed.',
    }),
    claims: ClaimsSchema(
      'The standards the PDF claims (docs/standards.md), as GET /v1/renders/{id} and the X-Render-Claims header of its PDF say; empty until the job succeeded, and when its document declared none or met none.',
    ),
  },
  { additionalProperties: false },
);

/** The job as the API shows it (and the client types it): derived from the schema, so the two cannot drift. */
export type JobObject = Static<typeof JobObjectSchema>;

function time(ms: number | null): string | null {
  return ms === null ? null : new Date(Number(ms)).toISOString();
}

/** The public object of a stored job; `pdf.url` is absolute under the render service's public URL. */
export function toJobObject(row: RenderJobRow, publicBaseUrl: string, now = Date.now()): JobObject {
  const pdfLive = row.pdf_key !== null && row.pdf_expires_at !== null && Number(row.pdf_expires_at) > now;
  return {
    id: row.id,
    status: row.status,
    reference: row.reference,
    created_at: time(row.created_at) as string,
    started_at: time(row.started_at),
    finished_at: time(row.finished_at),
    attempts: Number(row.attempts),
    error: row.error_code === null || row.status !== 'failed' ? null : { code: row.error_code, message: row.error_message ?? '' },
    pdf: pdfLive
      ? {
          bytes: Number(row.pdf_bytes),
          pages: Number(row.pdf_pages),
          url: `${publicBaseUrl.replace(/\/+$/, '')}/v1/jobs/${row.id}/pdf`,
          expires_at: time(row.pdf_expires_at) as string,
        }
      : null,
    ...jobReport(row),
  };
}

/** The job's report entries, and its claims once it succeeded (a failed job delivered no PDF to claim anything). */
function jobReport(row: RenderJobRow): Pick<JobObject, 'warnings' | 'claims'> {
  const { warnings, claims } = storedReport(row.warnings);
  return { warnings, claims: row.status === 'succeeded' ? claims : [] };
}
