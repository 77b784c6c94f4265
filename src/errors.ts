/**
 * One registry of coded errors per service. Handlers log the cause and send only the public message.
 */

/** Render service error codes with their HTTP status (docs/api.md#render-errors). */
export const RENDER_ERRORS = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  JOB_NOT_DONE: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RENDER_FAILED: 422,
  RENDER_INCOMPLETE: 422,
  PART_FAILED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  CERTIFICATE_EXPIRED: 422,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  OVERLOADED: 503,
  SERVICE_UNAVAILABLE: 503,
  RENDER_TIMEOUT: 504,
} as const;

/** A render error code. */
export type RenderErrorCode = keyof typeof RENDER_ERRORS;

/** A failure of the render service with a code from RENDER_ERRORS and a message safe for the client. */
export class RenderError extends Error {
  readonly status: number;
  constructor(
    readonly code: RenderErrorCode,
    message: string,
    readonly retryAfterS?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RenderError';
    this.status = RENDER_ERRORS[code];
  }
}

/** INVALID_REQUEST with `message`, which names the field: what the render, assemble and job validators throw. */
export function invalid(message: string, cause?: unknown): RenderError {
  return new RenderError('INVALID_REQUEST', message, undefined, cause === undefined ? undefined : { cause });
}

/**
 * Input the person must change (a flag, a value, an email address, a password): its message is written
 * for them. The CLI exits 2 on one (cli-errors.ts).
 */
export class InputError extends Error {
  override name = 'InputError';
}

/** A failure of the metadata service: a status and the `detail` text shown to the client. */
export class MetadataError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 405 | 429 | 500 | 502 | 503 | 504,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(detail, options);
    this.name = 'MetadataError';
  }
}
