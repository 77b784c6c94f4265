/**
 * What a job makes, by the kind its stored request says: one HTML document rendered (a render job) or
 * parts assembled into one PDF (an assembly job, `"kind": "assemble"`). Both through the render
 * service's pool, in the background (interactive renders go first).
 */
import { type AssembleRequest, type AssemblyDeps, removeUploads, runAssembly } from '../assemble/index.js';
import { RenderError } from '../errors.js';
import { type BrowserPool, type RecordAssembly, type RenderResult, toPrintParams } from '../render/index.js';
import type { SecretBox } from '../secrets/sealing.js';
import type { RenderJobRow } from '../store/jobs-queries.js';
import { openProtect, type SealedProtect } from './job-secrets.js';
import { fetchUploads } from './job-uploads.js';
import type { PartMeter } from './part-meter.js';
import type { ResultStore } from './results/result-store.js';

/** The stored request of an assembly job (`protect` passwords sealed: job-secrets.ts). */
export interface StoredAssembly extends Omit<AssembleRequest, 'protect'> {
  kind: 'assemble';
  protect?: SealedProtect | AssembleRequest['protect'];
  /** Parts already counted against the account's limit at submit; the rest count as they start (part-meter.ts). */
  charged?: number;
  /** The names of the files uploaded with the request, in the order of their result store keys (job-uploads.ts). */
  uploads?: string[];
}

/** The stored request of a render job (written before job kinds existed, so it has no `kind`). */
interface StoredRender {
  kind?: undefined;
  html: string;
  options?: Parameters<typeof toPrintParams>[0];
}

/** The request column of a job as written at submit (jobs/queue.ts). */
export function storedJobRequest(row: Pick<RenderJobRow, 'request'>): StoredAssembly | StoredRender {
  return JSON.parse(row.request) as StoredAssembly | StoredRender;
}

/** What a job's attempt made: a render's result, and an assembly's parts. */
export type JobResult = RenderResult & { assembly?: RecordAssembly; files?: string[] };

/** What jobs are made with. */
export interface JobMakers {
  pool: Pick<BrowserPool, 'render'>;
  /** Assembly jobs' dependencies; unset, an assembly job fails INTERNAL_ERROR (a process built without them). */
  assembly?: Omit<AssemblyDeps, 'pool'>;
  /** Parts of an assembly job made at once: the worker's job slots. */
  width: number;
  /** Where a job's uploaded files are read from (the result store); unset, a job with uploads fails SERVICE_UNAVAILABLE. */
  results?: Pick<ResultStore, 'get'>;
  /** The server's key, which opens a job's sealed `protect` passwords. */
  secrets?: SecretBox;
  /** Counts an assembly's parts beyond those charged at submit against the account's limit. */
  meter?: PartMeter;
}

/** Whether the job is an assembly, without reading its whole request (queue.ts writes `kind` first). */
export function isAssemblyJob(row: Pick<RenderJobRow, 'request'>): boolean {
  return row.request.startsWith('{"kind":"assemble"');
}

/** Makes the job's PDF; aborting `signal` (cancel, lease lost, shutdown) stops it at once, slots freed. */
export async function makeJob(row: RenderJobRow, makers: JobMakers, signal: AbortSignal): Promise<JobResult> {
  const request = storedJobRequest(row);
  if (request.kind === 'assemble') {
    if (!makers.assembly) throw new RenderError('INTERNAL_ERROR', 'this worker cannot assemble PDFs');
    const { kind: _kind, protect, charged, uploads: uploadNames, ...rest } = request;
    const { meter } = makers;
    // A job queued before parts were metered was charged at submit all it will be (at most a window's worth).
    const prepaid = charged ?? rest.parts.length;
    const body: AssembleRequest = protect
      ? { ...rest, protect: openProtect(protect, makers.secrets, row.account_id, row.id) }
      : rest;
    let uploads: Awaited<ReturnType<typeof fetchUploads>> | undefined;
    if (uploadNames && uploadNames.length > 0) {
      if (!makers.results)
        throw new RenderError('SERVICE_UNAVAILABLE', 'this worker has no result store to read uploads from', 5);
      uploads = await fetchUploads(makers.results, { accountId: row.account_id, id: row.id }, uploadNames);
    }
    try {
      return await runAssembly(
        body,
        { ...makers.assembly, pool: makers.pool },
        {
          accountId: row.account_id,
          signal,
          priority: 'background',
          width: makers.width,
          ...(uploads ? { uploads } : {}),
          ...(meter
            ? {
                beforePart: (index: number, stop: AbortSignal) =>
                  index < prepaid ? Promise.resolve() : meter.charge(row.account_id, stop),
              }
            : {}),
        },
      );
    } finally {
      if (uploads) await removeUploads(uploads);
    }
  }
  return makers.pool.render(row.account_id, request.html, toPrintParams(request.options), { signal, priority: 'background' });
}
