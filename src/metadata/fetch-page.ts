/**
 * Fetches a page through the egress policy and streams it into the extractor.
 *
 * Limits: the whole fetch (DNS, every redirect hop, headers and body) within `timeoutMs`; at most
 * `maxBytes` after decompression (a gzip/brotli bomb is cut off chunk by chunk, memory stays flat); a
 * non-HTML response is not read beyond its headers; reading stops as soon as every field is settled.
 */
import type { Dispatcher } from 'undici';
import { MetadataError } from '../errors.js';
import { Cancellation } from '../net/cancellation.js';
import { ACCEPT_ENCODING, contentCodings, readDecoded, UnsupportedCoding } from '../net/content-coding.js';
import { BadRedirect, deniedMessage, egressGet, TooManyRedirects } from '../net/follow.js';
import type { PushBody } from '../net/pinned-agent.js';
import { EgressDenied, type EgressPolicy } from '../net/policy.js';
import { shownUrl } from '../redact-url.js';
import { isHtmlContentType } from './content-type.js';
import { nonHtmlMetadata } from './extract.js';
import { MetadataExtractor } from './metadata-extractor.js';
import type { FetchOutcome } from './metrics.js';
import type { Metadata } from './types.js';

/** What fetchPageMetadata needs; built once per service. */
export interface PageFetcherOptions {
  policy: EgressPolicy;
  agent: Dispatcher;
  timeoutMs: number;
  maxBytes: number;
  userAgent: string;
  maxRedirects?: number;
  /** Told how each fetch ended (metrics). */
  onOutcome?: (outcome: FetchOutcome) => void;
}

const MAX_REDIRECTS = 5;

/** Response headers read at most: Chromium's limit; Node's default (16 KiB) failed pages a browser shows. */
export const MAX_RESPONSE_HEADER_BYTES = 256 * 1024;

/** What every fetch asks for: a polite, configurable User-Agent and what we can read. */
function requestHeaders(userAgent: string): Record<string, string> {
  return {
    'user-agent': userAgent,
    accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
    'accept-language': 'en-US,en;q=0.8,*;q=0.5',
    'accept-encoding': ACCEPT_ENCODING,
  };
}

class FetchTimeout extends Error {}

/** Transport error codes that mean "the target could not be reached or read". */
function describeTransportError(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return 'target host could not be resolved';
  if (code === 'ECONNREFUSED') return 'target refused the connection';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'target closed the connection unexpectedly';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'target is unreachable';
  if (
    code.startsWith('ERR_TLS') ||
    code.includes('CERT') ||
    code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
    /certificate|SSL|TLS/i.test(e.message ?? '')
  ) {
    return 'TLS handshake with the target failed';
  }
  if (code.startsWith('Z_')) return 'target sent a body that could not be decompressed';
  if (code === 'UND_ERR_HEADERS_OVERFLOW')
    return `target sent more than ${MAX_RESPONSE_HEADER_BYTES / 1024} KiB of response headers`;
  if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_')) return 'target sent an invalid HTTP response';
  return 'target could not be fetched';
}

/** A header's values as Fetch combines repeated headers (joined by ", "), or null when it is absent. */
function combined(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Bytes read and discarded after an early stop so the connection can serve the next request. */
const DRAIN_LIMIT = 1024 * 1024;

/** The body length a response declares (Content-Length), or null when it declares none or an unusable one. */
function declaredLength(header: string | string[] | undefined): number | null {
  return typeof header === 'string' && /^\d{1,15}$/.test(header) ? Number(header) : null;
}

/**
 * Feeds an uncompressed body to the extractor, chunk by chunk as it arrives, up to `maxBytes`. After an
 * early stop the rest (up to DRAIN_LIMIT) is read and dropped in the background: reusing a keep-alive
 * connection is cheaper than a new handshake, and undici's body timeout bounds a target that stalls. A rest
 * the Content-Length says is longer than that is not read at all: draining would end with the connection
 * dropped anyway, after a megabyte read for nothing.
 */
function readPlain(body: PushBody, extractor: MetadataExtractor, maxBytes: number, length: number | null): Promise<void> {
  let remaining = maxBytes;
  let received = 0;
  return body.read((chunk) => {
    received += chunk.length;
    const part = chunk.length > remaining ? chunk.subarray(0, remaining) : chunk;
    remaining -= part.length;
    const settled = extractor.push(part);
    if (settled && remaining > 0 && (length === null || length - received <= DRAIN_LIMIT)) body.dump(DRAIN_LIMIT);
    else if (settled || remaining <= 0) body.destroy();
  });
}

/**
 * Feeds a compressed body, decoded, to the extractor up to `maxBytes` after decompression: a gzip or
 * brotli bomb is cut off chunk by chunk and memory stays flat.
 */
function readCompressed(body: PushBody, codings: string[], extractor: MetadataExtractor, maxBytes: number): Promise<void> {
  let remaining = maxBytes;
  try {
    return readDecoded(body, codings, (chunk) => {
      const part = chunk.length > remaining ? chunk.subarray(0, remaining) : chunk;
      remaining -= part.length;
      return extractor.push(part) || remaining <= 0;
    });
  } catch (err) {
    if (err instanceof UnsupportedCoding)
      throw new MetadataError(502, `target used an unsupported content encoding "${err.coding}"`, { cause: err });
    throw err;
  }
}

/** Fetches `url` and returns its metadata, or throws MetadataError (400, 502, 504). */
export async function fetchPageMetadata(url: string, opts: PageFetcherOptions): Promise<Metadata> {
  const cancel = new Cancellation();
  const timer = setTimeout(() => cancel.abort(new FetchTimeout()), opts.timeoutMs);
  let body: PushBody | undefined;
  let outcome: FetchOutcome = 'ok';
  try {
    const res = await egressGet(opts.policy, opts.agent, url, {
      maxRedirects: opts.maxRedirects ?? MAX_REDIRECTS,
      cancel,
      headersTimeoutMs: opts.timeoutMs,
      bodyTimeoutMs: opts.timeoutMs,
      headers: requestHeaders(opts.userAgent),
    });
    body = res.body;
    const finalUrl = res.url.href;
    if (res.statusCode < 200 || res.statusCode > 299) {
      outcome = 'http_error';
      throw new MetadataError(502, `target answered HTTP ${res.statusCode}`);
    }
    const contentType = combined(res.headers['content-type']);
    if (!isHtmlContentType(contentType)) return nonHtmlMetadata(finalUrl);
    const codings = contentCodings(res.headers['content-encoding']);
    const extractor = new MetadataExtractor(contentType, finalUrl);
    if (codings.length === 0) await readPlain(body, extractor, opts.maxBytes, declaredLength(res.headers['content-length']));
    else await readCompressed(body, codings, extractor, opts.maxBytes);
    return extractor.finish();
  } catch (err) {
    const failure = toFailure(err, cancel, opts.timeoutMs);
    if (outcome === 'ok') outcome = failure.outcome;
    throw failure.error;
  } finally {
    clearTimeout(timer);
    opts.onOutcome?.(outcome);
    // Whatever was not read is dropped with its connection (cap, error, non-HTML); a no-op after an early stop.
    body?.destroy();
  }
}

/** The client-facing error of a failed fetch, and the outcome it counts as. */
function toFailure(err: unknown, cancel: Cancellation, timeoutMs: number): { error: MetadataError; outcome: FetchOutcome } {
  if (err instanceof MetadataError) return { error: err, outcome: 'bad_response' };
  const name = (err as { name?: string; code?: string }).name;
  const code = (err as { code?: string }).code ?? '';
  if (cancel.aborted || name === 'HeadersTimeoutError' || name === 'BodyTimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return { error: new MetadataError(504, `target did not answer within ${timeoutMs} ms`, { cause: err }), outcome: 'timeout' };
  }
  if (err instanceof EgressDenied)
    return {
      error: new MetadataError(400, `url not allowed: ${deniedMessage(err, shownUrl)}`, { cause: err }),
      outcome: 'refused',
    };
  if (err instanceof TooManyRedirects) {
    return {
      error: new MetadataError(502, `target redirected more than ${err.limit} times`, { cause: err }),
      outcome: 'too_many_redirects',
    };
  }
  if (err instanceof BadRedirect) {
    return {
      error: new MetadataError(502, `target answered a redirect (HTTP ${err.status}) without a valid Location`, { cause: err }),
      outcome: 'bad_redirect',
    };
  }
  const detail = describeTransportError(err);
  const unreadable = code.startsWith('Z_') || code.startsWith('HPE_') || code === 'UND_ERR_HEADERS_OVERFLOW';
  return { error: new MetadataError(502, detail, { cause: err }), outcome: unreadable ? 'bad_response' : 'connection_error' };
}
