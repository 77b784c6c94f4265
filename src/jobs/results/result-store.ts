/**
 * Where job PDFs are kept: one interface, files under the data dir by default or any S3-compatible
 * store (`RESULT_STORE=s3://bucket/prefix`), so that any instance serves any job's PDF. The backends
 * implement it; open-result-store.ts picks one.
 */
import type { Readable } from 'node:stream';

/** A stored PDF, streamed. */
export interface StoredResult {
  body: Readable;
  bytes: number;
}

/** Keeps result bytes under keys such as `acc_…/job_….pdf`. */
export interface ResultStore {
  readonly kind: 'files' | 's3';
  /**
   * Which store this is, recorded with each job's PDF: `s3://bucket/prefix`, or `files:<host>:<random>`
   * made once per results directory. Instances that share a store share its id.
   */
  readonly id: string;
  /** Stores the bytes under the key, replacing what was there; durable when it resolves. */
  put(key: string, bytes: Buffer): Promise<void>;
  /** As `put`, the bytes streamed from a file (an upload), never held whole in memory. */
  putFile(key: string, file: string): Promise<void>;
  /** The stored bytes as a stream, or undefined when nothing is stored under the key. */
  get(key: string): Promise<StoredResult | undefined>;
  /**
   * Deletes the key; deleting a missing key is not an error. True when the key was held here
   * (S3: always, since a bucket cannot say and is the same for every instance that names it).
   */
  delete(key: string): Promise<boolean>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** Keys are made by the jobs code from ids; anything else is refused before it reaches a path or a bucket. */
export function checkKey(key: string): string {
  if (!/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*\.(pdf|zip)$/.test(key)) throw new Error(`not a result key: ${JSON.stringify(key)}`);
  return key;
}
