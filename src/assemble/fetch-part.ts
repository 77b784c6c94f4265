/**
 * A `{"url"}` part: the PDF at an address, fetched through the one egress policy (every hop re-checked,
 * the connection pinned to the checked address), cut off at a size cap and a deadline. Nothing else in
 * the assembly opens a connection.
 */
import type { Dispatcher } from 'undici';
import { invalid, RenderError } from '../errors.js';
import { Cancellation } from '../net/cancellation.js';
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

function readCapped(body: PushBody, maxBytes: number, label: string, onBytes?: (bytes: number) => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  return body
    .read((chunk) => {
      total += chunk.length;
      if (total > maxBytes) throw failed(label, `the PDF at its address is larger than ${maxBytes} bytes`);
      onBytes?.(chunk.length);
      chunks.push(chunk);
    })
    .then(() => Buffer.concat(chunks, total));
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
      headers: { accept: 'application/pdf, */*;q=0.5' },
    });
    body = res.body;
    if (res.statusCode < 200 || res.statusCode > 299) throw failed(label, `${shown} answered HTTP ${res.statusCode}`);
    const length = Number(res.headers['content-length']);
    const maxBytes = opts.maxBytes ?? MAX_PART_BYTES;
    if (Number.isFinite(length) && length > maxBytes) throw failed(label, `${shown} is ${length} bytes, more than ${maxBytes}`);
    return await readCapped(body, maxBytes, label, opts.onBytes);
  } catch (err) {
    if (err instanceof RenderError) throw err;
    if (opts.signal?.aborted) throw opts.signal.reason;
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
