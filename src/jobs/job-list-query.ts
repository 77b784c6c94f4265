/** The query of GET /v1/jobs: a status to keep, a page size, and the cursor of the previous page. */
import { Type } from '@sinclair/typebox';
import { RenderError } from '../errors.js';
import type { RenderJobStatus } from '../store/schema.js';

const invalid = (message: string) => new RenderError('INVALID_REQUEST', message);
const STATUSES: readonly RenderJobStatus[] = ['queued', 'running', 'succeeded', 'failed', 'canceled'];

/** Query of GET /v1/jobs. */
export const JobListQuerySchema = Type.Object(
  {
    status: Type.Optional(Type.Union(STATUSES.map((s) => Type.Literal(s)))),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page.' })),
  },
  { additionalProperties: false },
);

/** Checks the query of GET /v1/jobs; throws INVALID_REQUEST naming the parameter. */
export function validateListQuery(query: unknown): { status?: RenderJobStatus; limit: number; cursor?: string } {
  const q = (query ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(q).find((k) => !['status', 'limit', 'cursor'].includes(k));
  if (unknown !== undefined) throw invalid(`${unknown}: unknown query parameter`);
  for (const [name, value] of Object.entries(q)) if (typeof value !== 'string') throw invalid(`${name}: give it once`);
  const { status, limit, cursor } = q as Record<string, string | undefined>;
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
    throw invalid(`status: ${JSON.stringify(status)} is not a job status (${STATUSES.join(', ')})`);
  }
  if (limit !== undefined && (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 100)) {
    throw invalid(`limit: ${JSON.stringify(limit)} is not a whole number from 1 to 100`);
  }
  return { status: status as RenderJobStatus | undefined, limit: limit === undefined ? 20 : Number(limit), cursor };
}
