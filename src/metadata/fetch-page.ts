/**
 * Fetches a page through the egress policy and streams it into the extractor.
 *
 * Limits: the whole fetch (DNS, every redirect hop, headers and body) within `timeoutMs`; at most
 * `maxBytes` after decompression (a gzip/brotli bomb is cut off chunk by chunk, memory stays flat); a
 * non-HTML response is not read beyond its headers; reading stops as soon as every field is settled.
 */
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { Dispatcher } from 'undici';
import { MetadataError } from '../errors.js';
import { BadRedirect, TooManyRedirects, egressGet } from '../net/follow.js';
import { EgressDenied, type EgressPolicy } from '../net/policy.js';
import { isHtmlContentType } from './encoding.js';
import { MetadataExtractor, nonHtmlMetadata } from './extract.js';
import type { Metadata } from './types.js';

/** What fetchPageMetadata needs; built once per service. */
export interface PageFetcherOptions {
  policy: EgressPolicy;
  agent: Dispatcher;
  timeoutMs: number;
  maxBytes: number;
  userAgent: string;
  maxRedirects?: number;
}

const MAX_REDIRECTS = 5;

type ResponseBody = Dispatcher.ResponseData['body'];

class FetchTimeout extends Error {}

/** Transport error codes that mean "the target could not be reached or read". */
function describeTransportError(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return 'target host could not be resolved';
  if (code === 'ECONNREFUSED') return 'target refused the connection';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'target closed the connection unexpectedly';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'target is unreachable';
  if (code.startsWith('ERR_TLS') || code.includes('CERT') || code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || /certificate|SSL|TLS/i.test(e.message ?? '')) {
    return 'TLS handshake with the target failed';
  }
  if (code.startsWith('Z_')) return 'target sent a body that could not be decompressed';
  if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_')) return 'target sent an invalid HTTP response';
  return 'target could not be fetched';
}

/** Wraps the body in decompressors for its Content-Encoding (applied in reverse order). */
function decoded(body: Readable, encodingHeader: string | string[] | undefined): Readable {
  const header = Array.isArray(encodingHeader) ? encodingHeader.join(',') : (encodingHeader ?? '');
  const codings = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  let stream: Readable = body;
  for (const coding of codings.reverse()) {
    let next: zlib.Gunzip | zlib.BrotliDecompress | zlib.Inflate;
    if (coding === 'gzip' || coding === 'x-gzip') next = zlib.createGunzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    else if (coding === 'br') next = zlib.createBrotliDecompress();
    // "deflate" is meant to be zlib-wrapped but is often raw; Unzip detects gzip/zlib, raw is rarer than broken.
    else if (coding === 'deflate') next = zlib.createUnzip({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    else throw new MetadataError(502, `target used an unsupported content encoding "${coding}"`);
    stream.on('error', (err) => next.destroy(err));
    stream = stream.pipe(next);
  }
  return stream;
}

/** Fetches `url` and returns its metadata, or throws MetadataError (400, 502, 504). */
export async function fetchPageMetadata(url: string, opts: PageFetcherOptions): Promise<Metadata> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new FetchTimeout()), opts.timeoutMs);
  let body: ResponseBody | undefined;
  let stream: Readable | undefined;
  try {
    const res = await egressGet(opts.policy, opts.agent, url, {
      maxRedirects: opts.maxRedirects ?? MAX_REDIRECTS,
      signal: controller.signal,
      headersTimeoutMs: opts.timeoutMs,
      bodyTimeoutMs: opts.timeoutMs,
      headers: {
        'user-agent': opts.userAgent,
        accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
        'accept-language': 'en-US,en;q=0.8,*;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    body = res.body;
    const finalUrl = res.url.href;
    if (res.statusCode < 200 || res.statusCode > 299) {
      throw new MetadataError(502, `target answered HTTP ${res.statusCode}`);
    }
    const contentType = typeof res.headers['content-type'] === 'string' ? res.headers['content-type'] : null;
    if (!isHtmlContentType(contentType)) return nonHtmlMetadata(finalUrl);
    stream = decoded(body, res.headers['content-encoding']);
    const length = Number(res.headers['content-length']);
    const extractor = new MetadataExtractor(contentType, finalUrl, {
      sizeHint: stream === body && Number.isSafeInteger(length) ? Math.min(length, opts.maxBytes) : undefined,
    });
    let remaining = opts.maxBytes;
    let settled = false;
    // destroyOnReturn: false, so an early stop can hand the rest of the body to drainForReuse.
    for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      const part = chunk.length > remaining ? chunk.subarray(0, remaining) : chunk;
      remaining -= part.length;
      settled = extractor.push(part);
      if (settled || remaining <= 0) break;
    }
    if (settled && remaining > 0 && stream === body) {
      drainForReuse(body);
      body = stream = undefined;
    }
    return extractor.finish();
  } catch (err) {
    throw toMetadataError(err, controller.signal, opts.timeoutMs);
  } finally {
    clearTimeout(timer);
    // Whatever was not read is dropped with its connection (early stop, cap, error, non-HTML).
    discard(stream);
    discard(body);
  }
}

/** Bytes read and discarded after an early stop so the connection can serve the next request. */
const DRAIN_LIMIT = 1024 * 1024;

/**
 * Reads the rest of an uncompressed body in the background, up to DRAIN_LIMIT (then the connection is
 * dropped instead): reusing a keep-alive connection is cheaper than a new handshake, and the caller
 * already has its answer. undici's body timeout bounds a target that stalls meanwhile.
 */
function drainForReuse(body: ResponseBody): void {
  body.on('error', () => {});
  body.dump({ limit: DRAIN_LIMIT }).catch(() => undefined);
}

/** Destroys a stream whose remaining data is not wanted; the abort error it then emits is expected. */
function discard(stream: Readable | undefined): void {
  if (!stream || stream.destroyed) return;
  stream.on('error', () => {});
  stream.destroy();
}

function toMetadataError(err: unknown, signal: AbortSignal, timeoutMs: number): MetadataError {
  if (err instanceof MetadataError) return err;
  const name = (err as { name?: string; code?: string }).name;
  const code = (err as { code?: string }).code;
  if (signal.aborted || name === 'HeadersTimeoutError' || name === 'BodyTimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new MetadataError(504, `target did not answer within ${timeoutMs} ms`, { cause: err });
  }
  if (err instanceof EgressDenied) return new MetadataError(400, `url not allowed: ${err.message}`, { cause: err });
  if (err instanceof TooManyRedirects) return new MetadataError(502, `target redirected more than ${err.limit} times`, { cause: err });
  if (err instanceof BadRedirect) return new MetadataError(502, `target answered a redirect (HTTP ${err.status}) without a valid Location`, { cause: err });
  return new MetadataError(502, describeTransportError(err), { cause: err });
}
