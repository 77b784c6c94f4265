/**
 * The query of GET /v1/jobs: a status to keep, a page size, and the cursor of the previous page (which
 * the dashboard's Jobs page pages with too).
 */
import { Type } from '@sinclair/typebox';
import { cutText, MAX_QUOTED, quoted } from '../cut-text.js';
import { invalid } from '../errors.js';
import type { RenderJobStatus } from '../store/schema.js';

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
  if (unknown !== undefined) throw invalid(`${cutText(unknown, MAX_QUOTED)}: unknown query parameter`);
  for (const [name, value] of Object.entries(q)) if (typeof value !== 'string') throw invalid(`${name}: give it once`);
  const { status, limit, cursor } = q as Record<string, string | undefined>;
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
    throw invalid(`status: ${quoted(status)} is not a job status (${STATUSES.join(', ')})`);
  }
  if (limit !== undefined && (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 100)) {
    throw invalid(`limit: ${quoted(limit)} is not a whole number from 1 to 100`);
  }
  return { status: status as RenderJobStatus | undefined, limit: limit === undefined ? 20 : Number(limit), cursor };
}

/** The list cursor: opaque to clients, the last row's creation time and id. */
export function encodeCursor(next: { createdAt: number; id: string }): string {
  return Buffer.from(`${next.createdAt}.${next.id}`).toString('base64url');
}

/** Parses a list cursor; throws INVALID_REQUEST. */
export function decodeCursor(cursor: string): { createdAt: number; id: string } {
  const m = /^(\d{1,16})\.(job_[0-9a-f]{32})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) throw invalid('cursor: not a cursor from a previous page');
  return { createdAt: Number(m[1]), id: m[2] };
}
