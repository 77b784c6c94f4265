/**
 * A queued assembly job's `protect` passwords, sealed at rest: the store keeps them only sealed with the
 * server's key (secrets/sealing.ts), bound to the job's account and id, and the worker opens them when it
 * makes the job. The permissions (`allow`) stay readable: they are no secret.
 */
import type { AssembleRequest } from '../assemble/index.js';
import { RenderError } from '../errors.js';
import { isSealed, type SecretBox } from '../secrets/sealing.js';

type Protect = NonNullable<AssembleRequest['protect']>;

/** `protect` as a job's stored request holds it: the passwords sealed, the permissions as given. */
export interface SealedProtect {
  sealed: string;
  allow?: Protect['allow'];
}

/** What a job's sealed passwords are bound to. */
export function jobSealContext(accountId: string, jobId: string): string {
  return `${accountId}\n${jobId}\nprotect`;
}

/** Whether a stored `protect` is the sealed form (a job queued by an older version holds them in clear). */
export function isSealedProtect(protect: unknown): protect is SealedProtect {
  return typeof protect === 'object' && protect !== null && isSealed((protect as { sealed?: unknown }).sealed);
}

/** The passwords of `protect` sealed for the job; SERVICE_UNAVAILABLE on a server without a key (they are never stored in clear). */
export function sealProtect(protect: Protect, secrets: SecretBox | undefined, accountId: string, jobId: string): SealedProtect {
  if (!secrets) {
    throw new RenderError(
      'SERVICE_UNAVAILABLE',
      'protect: a job keeps its passwords until it runs, sealed with the server key, and this server has none: its operator must set SECRETS_KEY',
    );
  }
  const { allow, ...passwords } = protect;
  const sealed = secrets.seal(JSON.stringify(passwords), jobSealContext(accountId, jobId));
  return allow === undefined ? { sealed } : { sealed, allow };
}

/** The job's `protect` with its passwords opened (a clear one from an older version as it is). */
export function openProtect(
  protect: SealedProtect | Protect,
  secrets: SecretBox | undefined,
  accountId: string,
  jobId: string,
): Protect {
  if (!isSealedProtect(protect)) return protect;
  try {
    if (!secrets) throw new Error('no server key');
    const passwords = JSON.parse(secrets.open(protect.sealed, jobSealContext(accountId, jobId)).toString('utf8')) as Protect;
    return protect.allow === undefined ? passwords : { ...passwords, allow: protect.allow };
  } catch (err) {
    // The operator changed the key without keeping the old one in SECRETS_KEY_PREVIOUS: nothing the caller can fix.
    throw new RenderError(
      'SERVICE_UNAVAILABLE',
      `protect: the job's passwords do not open with this server's key (was SECRETS_KEY changed without SECRETS_KEY_PREVIOUS?)`,
      undefined,
      { cause: err },
    );
  }
}

/**
 * A job's stored request with its `protect` passwords sealed again with the current key (or sealed at
 * last, when a job from an older version holds them in clear); undefined when there is nothing to do.
 * Throws when the sealed passwords open with none of the server's keys.
 */
export function resealJobRequest(request: string, secrets: SecretBox, accountId: string, jobId: string): string | undefined {
  const parsed = JSON.parse(request) as { protect?: unknown };
  const { protect } = parsed;
  if (protect === undefined || protect === null || typeof protect !== 'object') return undefined;
  if (isSealedProtect(protect) && secrets.sealedWithCurrent(protect.sealed, jobSealContext(accountId, jobId))) return undefined;
  const opened = openProtect(protect as SealedProtect | Protect, secrets, accountId, jobId);
  return JSON.stringify({ ...parsed, protect: sealProtect(opened, secrets, accountId, jobId) });
}
