/** The public shapes of render jobs, as GET /v1/jobs/{id} answers them. */
import type { RenderOptions } from './render-client.js';

/** Where a job is: queued → running → succeeded | failed; or canceled. */
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';

/** A render job (all times RFC 3339). */
export interface JobObject {
  id: string;
  status: JobStatus;
  reference: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  attempts: number;
  /** The render error code and message of a failed job. */
  error: { code: string; message: string } | null;
  /** The result of a succeeded job, until it expires. */
  pdf: { bytes: number; pages: number; url: string; expires_at: string } | null;
}

/** The body of POST /v1/jobs. */
export interface JobRequest {
  html: string;
  output?: 'pdf';
  options?: RenderOptions;
  /** Where the signed `job.succeeded` / `job.failed` event is posted. */
  webhook?: { url: string };
  /** Your own identifier (≤ 200 characters), echoed back. */
  reference?: string;
}

/** One page of GET /v1/jobs. */
export interface JobList {
  data: JobObject[];
  next_cursor: string | null;
}
