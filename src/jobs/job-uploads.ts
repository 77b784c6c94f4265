/**
 * Files uploaded with an assembly job (multipart/form-data). A job may be made by another process than
 * the one that took it, so its files go where every worker reads: the result store, under keys of the
 * job's, from the submit until the job is final (then the worker, a cancel or the sweep deletes them).
 * The job's stored request lists their names in key order; its row lists the keys (store/job-file-queries.ts).
 */
import { once } from 'node:events';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AssembleRequest, Uploads } from '../assemble/index.js';
import { quoted } from '../cut-text.js';
import { invalid, RenderError } from '../errors.js';
import { scratchDir } from '../scratch-dirs.js';
import type { JobFileStore } from '../store/job-file-queries.js';
import type { RenderJobRow } from '../store/jobs-queries.js';
import type { ResultStore } from './results/result-store.js';

/** An uploaded file a job keeps: the name its parts give, and where the request left it. */
export interface JobUpload {
  name: string;
  path: string;
  bytes: number;
  sha256?: string;
}

/** The result store key of a job's `n`th uploaded file (from 1). */
export function uploadKey(accountId: string, jobId: string, n: number): string {
  return `${accountId}/${jobId}-upload-${n}.pdf`;
}

/** The uploaded files the request's parts name, each once, in the order they are first named. */
export function namedUploads(request: AssembleRequest, uploads: Uploads | undefined): JobUpload[] {
  if (!uploads) return [];
  const named: JobUpload[] = [];
  const seen = new Set<string>();
  for (const part of request.parts) {
    if (!('file' in part) || seen.has(part.file)) continue;
    const file = uploads.files.get(part.file);
    // The validator refused a name that was not uploaded; this is the same check where the bytes are taken.
    if (!file) throw invalid(`parts: the file ${quoted(part.file)} was not uploaded`);
    seen.add(part.file);
    named.push({ name: part.file, ...file });
  }
  return named;
}

/** Deletes the keys from the result store, every one tried; the first failure is thrown after. */
export async function deleteUploads(results: Pick<ResultStore, 'delete'>, keys: readonly string[]): Promise<void> {
  const outcomes = await Promise.allSettled(keys.map((key) => results.delete(key)));
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Streams the files into the result store under `keys`; on a failure, what was stored is deleted again. */
export async function storeUploads(results: ResultStore, keys: readonly string[], files: readonly JobUpload[]): Promise<void> {
  try {
    for (const [i, file] of files.entries()) await results.putFile(keys[i], file.path);
  } catch (err) {
    await deleteUploads(results, keys).catch(() => {});
    throw err;
  }
}

/**
 * Reads the job's uploaded files from the result store into a temporary directory, as a multipart
 * request leaves them, for its `{"file"}` parts; the caller removes the directory (removeUploads).
 * A file this process's result store does not hold is SERVICE_UNAVAILABLE naming RESULT_STORE (the attempt is retried).
 */
export async function fetchUploads(
  results: Pick<ResultStore, 'get'>,
  job: { accountId: string; id: string },
  names: readonly string[],
): Promise<Uploads> {
  const dir = await scratchDir('job-upload');
  const uploads: Uploads = { dir, files: new Map() };
  try {
    for (const [i, name] of names.entries()) {
      const stored = await results.get(uploadKey(job.accountId, job.id, i + 1));
      if (!stored) {
        throw new RenderError(
          'SERVICE_UNAVAILABLE',
          `the uploaded file ${JSON.stringify(name)} of job ${job.id} is not in this instance's result store: RESULT_STORE must be shared by every render instance`,
          5,
        );
      }
      const file = path.join(dir, `upload-${i + 1}.pdf`);
      const out = fs.createWriteStream(file, { flags: 'wx', mode: 0o600 });
      await Promise.all([pipeline(stored.body, out), once(out, 'close')]);
      uploads.files.set(name, { path: file, bytes: stored.bytes });
    }
    return uploads;
  } catch (err) {
    await fsp.rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Deletes a final job's uploaded files from `results` (when they are there), then forgets them. */
export async function dropJobUploads(
  store: Pick<JobFileStore, 'clearJobUploads'>,
  results: Pick<ResultStore, 'id' | 'delete'>,
  row: Pick<RenderJobRow, 'id' | 'upload_keys' | 'upload_store'>,
): Promise<void> {
  if (row.upload_keys === null || row.upload_store !== results.id) return;
  await deleteUploads(results, JSON.parse(row.upload_keys) as string[]);
  await store.clearJobUploads(row.id);
}

/**
 * Deletes the uploaded files of final jobs still holding them in `results` (a worker that stopped
 * before deleting them, a lease that lapsed for good, a delete that failed); returns how many jobs' files.
 */
export async function sweepJobUploads(
  store: Pick<JobFileStore, 'clearJobUploads' | 'finishedUploads'>,
  results: Pick<ResultStore, 'id' | 'delete'>,
  batch = 500,
): Promise<number> {
  let swept = 0;
  let after = '';
  for (;;) {
    const held = await store.finishedUploads(results.id, batch, after);
    for (const { id, keys } of held) {
      await deleteUploads(results, keys);
      await store.clearJobUploads(id);
      swept += 1;
      after = id;
    }
    if (held.length < batch) return swept;
  }
}
