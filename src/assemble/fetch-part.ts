/**
 * A `{"url"}` part: the PDF at an address, fetched through the one egress policy (every hop re-checked,
 * the connection pinned to the checked address), cut off at a size cap and a deadline. Nothing else in
 * the assembly opens a connection.
 */
import type { Dispatcher } from 'undici';
import { invalid, RenderError } from '../errors.js';
import { Cancellation } from '../net/cancellation.js';
import { ACCEPT_ENCODING, contentCodings, readDecoded, UnsupportedCoding } from '../net/content-coding.js';
import { BadRedirect, deniedMessage, egressGet, TooManyRedirects } from '../net/follow.js';
import type { PushBody } from '../net/pinned-agent.js';
import { EgressDenied, type EgressPolicy } from '../net/policy.js';
import { shownUrl } from '../redact-url.js';

/** Most bytes of one fetched PDF part. */
export const MAX_PART_BYTES = 64 * 1024 * 1024;
/** Redirects a part's address may take. */
const MAX_REDIRECTS = 5;

/** How a URL part is fetched. */
export interface PartFetchOptions {
  policy: EgressPolicy;
  agent: Dispatcher;
  /** Wall time of the whole fetch (RENDER_TIMEOUT_MS: a part takes no longer than a render may). */
  timeoutMs: number;
  maxBytes?: number;
  /** Aborting it stops the fetch at once (another part failed, the client went away, the job was canceled). */
  signal?: AbortSignal;
  /** Told of every chunk as it arrives; throwing stops the fetch with that error (the assembly's byte budget). */
  onBytes?: (bytes: number) => void;
}

class FetchTimeout extends Error {}

const failed = (label: string, why: string, cause?: unknown) =>
  new RenderError('PART_FAILED', `${label}: ${why}`, undefined, { cause });

/**
 * The body, decoded from its content codings (a server may send a PDF gzipped whatever was asked, as S3
 * does for an object stored with `Content-Encoding: gzip`), at most `maxBytes` once decoded: a bomb stops
 * at the cap.
 */
async function readCapped(
  body: PushBody,
  codings: string[],
  maxBytes: number,
  label: string,
  onBytes?: (bytes: number) => void,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  const take = (chunk: Buffer): boolean => {
    total += chunk.length;
    if (total > maxBytes)
      throw failed(label, `the PDF at its address is larger than ${maxBytes} bytes${codings.length ? ' once decompressed' : ''}`);
    onBytes?.(chunk.length);
    chunks.push(chunk);
    return false;
  };
  if (codings.length === 0) await body.read(take);
  else await readDecoded(body, codings, take);
  return Buffer.concat(chunks, total);
}

/**
 * The PDF at `url`, or a coded error naming `label`: INVALID_REQUEST when the egress policy refuses the
 * address (as the metadata service's 400), PART_FAILED when it cannot be had (unreachable, not 2xx,
 * too large, too slow).
 */
export async function fetchPdfPart(url: string, label: string, opts: PartFetchOptions): Promise<Buffer> {
  const cancel = new Cancellation();
  const timer = setTimeout(() => cancel.abort(new FetchTimeout()), opts.timeoutMs);
  const onAbort = () => cancel.abort(opts.signal?.reason instanceof Error ? opts.signal.reason : new Error('aborted'));
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let body: PushBody | undefined;
  const shown = shownUrl(url);
  try {
    const res = await egressGet(opts.policy, opts.agent, url, {
      maxRedirects: MAX_REDIRECTS,
      cancel,
      headersTimeoutMs: opts.timeoutMs,
      bodyTimeoutMs: opts.timeoutMs,
      headers: { accept: 'application/pdf, */*;q=0.5', 'accept-encoding': ACCEPT_ENCODING },
    });
    body = res.body;
    if (res.statusCode < 200 || res.statusCode > 299) throw failed(label, `${shown} answered HTTP ${res.statusCode}`);
    const length = Number(res.headers['content-length']);
    const maxBytes = opts.maxBytes ?? MAX_PART_BYTES;
    if (Number.isFinite(length) && length > maxBytes) throw failed(label, `${shown} is ${length} bytes, more than ${maxBytes}`);
    const codings = contentCodings(res.headers['content-encoding']);
    return await readCapped(body, codings, maxBytes, label, opts.onBytes);
  } catch (err) {
    if (err instanceof RenderError) throw err;
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (err instanceof UnsupportedCoding)
      throw failed(
        label,
        `${shown} answered in the content coding "${err.coding}", which is not read (gzip, br and deflate are)`,
        err,
      );
    if (String((err as { code?: string }).code ?? '').startsWith('Z_'))
      throw failed(label, `${shown} sent a body that could not be decompressed (${(err as Error).message})`, err);
    const name = (err as { name?: string }).name;
    const code = (err as { code?: string }).code ?? '';
    if (
      err instanceof FetchTimeout ||
      cancel.reason instanceof FetchTimeout ||
      name === 'HeadersTimeoutError' ||
      name === 'BodyTimeoutError' ||
      code === 'UND_ERR_CONNECT_TIMEOUT'
    )
      throw failed(label, `${shown} did not answer within ${opts.timeoutMs} ms`, err);
    if (err instanceof EgressDenied) throw invalid(`${label}.url: not allowed: ${deniedMessage(err, shownUrl)}`);
    if (err instanceof TooManyRedirects) throw failed(label, `${shown} redirected more than ${err.limit} times`, err);
    if (err instanceof BadRedirect) throw failed(label, `${shown} answered a redirect without a valid Location`, err);
    throw failed(label, `${shown} could not be reached (${code || (err as Error).message})`, err);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
    body?.destroy();
  }
}
