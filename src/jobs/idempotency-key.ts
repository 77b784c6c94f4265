/**
 * The Idempotency-Key of POST /v1/jobs: the header's check, the window in which a repeat returns the
 * first job, and the hash of the body a key is bound to.
 */
import crypto from 'node:crypto';
import type { AssembleRequest } from '../assemble/index.js';
import { invalid, RenderError } from '../errors.js';
import type { RenderRequest } from '../render/index.js';
import type { SecretBox } from '../secrets/sealing.js';
import type { RenderJobRow } from '../store/jobs-queries.js';
import type { JobUpload } from './job-uploads.js';

/** A repeated Idempotency-Key returns the first job within this window. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;
/** Longest Idempotency-Key. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** What of a submission (queue.ts JobSubmission) its Idempotency-Key is bound to. */
interface KeyedBody {
  request: RenderRequest | AssembleRequest;
  reference: string | null;
  webhookUrl: string | null;
  strict?: boolean;
}

/** JSON with object keys sorted, so the same body hashes the same whatever the client's key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The hash an Idempotency-Key is bound to: the whole submitted body. A body with `protect` passwords is
 * hashed with the server's key (`keyed`), so the stored hash is no way to guess the passwords offline.
 */
export function requestHash(s: KeyedBody, keyed?: SecretBox, files: readonly JobUpload[] = []): string {
  // `strict` and `files` only when there are some, so the hashes of keys given before them stay the same;
  // the files by their digest, so a repeat with other bytes under the same names is another body.
  const body = canonical({
    request: s.request,
    reference: s.reference,
    webhook: s.webhookUrl,
    strict: s.strict || undefined,
    files: files.length > 0 ? files.map((f) => [f.name, f.sha256]) : undefined,
  });
  if (keyed && 'protect' in s.request && s.request.protect !== undefined) return keyed.digest(body);
  return crypto.createHash('sha256').update(body).digest('hex');
}

/** Checks an Idempotency-Key header value; throws INVALID_REQUEST naming the header. */
export function checkIdempotencyKey(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  if (Array.isArray(value)) throw invalid('Idempotency-Key: send the header once');
  if (value === '' || value.length > MAX_IDEMPOTENCY_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(value)) {
    throw new RenderError(
      'INVALID_REQUEST',
      `Idempotency-Key: must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters without spaces`,
    );
  }
  return value;
}

/** The earlier job of a repeated Idempotency-Key; IDEMPOTENCY_KEY_REUSED when it was given another body. */
export function sameBody(row: RenderJobRow, hash: string | null): RenderJobRow {
  if (row.request_hash !== hash) {
    throw new RenderError(
      'IDEMPOTENCY_KEY_REUSED',
      `Idempotency-Key: already used for job ${row.id} with a different body; use a new key for a new request`,
    );
  }
  return row;
}
