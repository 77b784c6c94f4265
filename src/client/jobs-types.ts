/** The public shapes of render jobs, as GET /v1/jobs/{id} answers them. */
import type { Static } from '@sinclair/typebox';
import type { JobObjectSchema } from '../jobs/job-object.js';
import type { AssembleRequest, RenderOptions } from './render-client.js';

/** A render job as GET /v1/jobs/{id} answers it (all times RFC 3339): the service's own schema. */
export type JobObject = Static<typeof JobObjectSchema>;

/** Where a job is: queued → running → succeeded | failed; or canceled. */
export type JobStatus = JobObject['status'];

/** What every job body may add. */
interface JobExtras {
  /** Where the signed `job.succeeded` / `job.failed` event is posted. */
  webhook?: { url: string };
  /** Your own identifier (≤ 200 characters), echoed back. */
  reference?: string;
}

/** The body of POST /v1/jobs: an HTML document to render, or parts to assemble (up to 5,000). */
export type JobRequest = ({ html: string; output?: 'pdf'; options?: RenderOptions } | AssembleRequest) & JobExtras;

/** One page of GET /v1/jobs. */
export interface JobList {
  data: JobObject[];
  next_cursor: string | null;
}
