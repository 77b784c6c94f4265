/**
 * The client's errors: one class for every failure, with the service's code, the HTTP status and the
 * request id the service gave (X-Render-ID / X-Request-ID), so a caller can branch on `code` and quote
 * the id to support.
 */
import type { RenderErrorCode } from '../errors.js';

/** Failures that happen on the client's side of the wire. */
export type ClientErrorCode = 'TIMEOUT' | 'NETWORK_ERROR' | 'INVALID_RESPONSE';

/**
 * Metadata answers carry only `{"detail"}`; the client names the status so callers can branch on a code
 * as they do for render.
 */
export type MetadataErrorCode =
  | 'INVALID_REQUEST'
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'TARGET_UNREACHABLE'
  | 'SERVICE_UNAVAILABLE'
  | 'TARGET_TIMEOUT';

const METADATA_CODES: Record<number, MetadataErrorCode> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  502: 'TARGET_UNREACHABLE',
  503: 'SERVICE_UNAVAILABLE',
  504: 'TARGET_TIMEOUT',
};

/** The code the client gives a metadata status (unknown statuses count as INTERNAL_ERROR). */
export function metadataCodeOf(status: number): MetadataErrorCode {
  return METADATA_CODES[status] ?? 'INTERNAL_ERROR';
}

/** A failed call to a Pageworks service. */
export class PageworksError<Code extends string = RenderErrorCode | MetadataErrorCode | ClientErrorCode> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    /** HTTP status; undefined when no answer arrived (timeout, network). */
    readonly status: number | undefined,
    /** X-Render-ID (render) or X-Request-ID (metadata) of the answer, when there was one. */
    readonly requestId: string | undefined,
    /** Seconds the service asked to wait (Retry-After), on 429 and 503. */
    readonly retryAfterS: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PageworksError';
  }
}

/** A render failure: `code` is one of the render service's error codes (or a client-side one). */
export class RenderApiError extends PageworksError<RenderErrorCode | ClientErrorCode> {
  override readonly name = 'RenderApiError';

  /** The render's X-Render-ID (same as requestId). */
  get renderId(): string | undefined {
    return this.requestId;
  }
}

/** A metadata failure: `message` is the service's `detail`. */
export class MetadataApiError extends PageworksError<MetadataErrorCode | ClientErrorCode> {
  override readonly name = 'MetadataApiError';
}

/** The error of a render-service answer (`/v1/render`, `/v1/jobs`): its `{"error":{"code","message"}}`, or anything else as it came. */
export function renderApiErrorOf(
  status: number,
  body: string,
  renderId: string | undefined,
  retryAfterS: number | undefined,
): RenderApiError {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
    const { code, message } = parsed.error ?? {};
    if (typeof code === 'string' && typeof message === 'string') {
      return new RenderApiError(code as RenderErrorCode, message, status, renderId, retryAfterS);
    }
  } catch {
    // Not JSON: a proxy in front of the service answered; fall through.
  }
  return new RenderApiError('INVALID_RESPONSE', `HTTP ${status}: ${body.slice(0, 200)}`, status, renderId, retryAfterS);
}
