/**
 * GET with manual redirects: every hop goes through the egress policy again (scheme, host, address)
 * before a single packet is sent to it.
 */
import { isUtf8 } from 'node:buffer';
import type { Dispatcher } from 'undici';
import { abortable } from './cancellation.js';
import { type PinnedRequestOptions, type PushedResponse, pinnedDispatch } from './pinned-agent.js';
import { EgressDenied, type EgressPolicy } from './policy.js';

/** More redirects than the caller allows. */
export class TooManyRedirects extends Error {
  constructor(readonly limit: number) {
    super(`too many redirects (more than ${limit})`);
    this.name = 'TooManyRedirects';
  }
}

/** A redirect answer without a usable Location header. */
export class BadRedirect extends Error {
  constructor(readonly status: number) {
    super(`redirect (${status}) without a valid Location`);
    this.name = 'BadRedirect';
  }
}

/**
 * A redirect to a destination the policy refuses. The caller asked for another address, so the answer
 * names where the target sent it: "address 10.0.0.5 is private" alone reads as if the caller had typed it.
 */
export class RedirectDenied extends EgressDenied {
  constructor(
    readonly location: string,
    denied: EgressDenied,
  ) {
    super(denied.message, denied.reason);
    this.name = 'RedirectDenied';
  }
}

/** The refusal as a client reads it: when a redirect led there, it says where (`show` writes the address). */
export function deniedMessage(err: EgressDenied, show: (address: string) => string): string {
  return err instanceof RedirectDenied ? `it redirects to ${show(err.location)}: ${err.message}` : err.message;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The final response after redirects, with the URL that produced it. */
export interface FollowedResponse extends PushedResponse {
  url: URL;
  redirects: number;
}

/** Options of egressGet. */
export interface FollowOptions extends Omit<PinnedRequestOptions, 'method'> {
  maxRedirects: number;
}

/**
 * A header value's bytes (latin1, as undici gives them) read as UTF-8 when they are valid UTF-8, as browsers
 * read a `Location` written in raw UTF-8 (else `/café` would be asked for as `/caf%C3%83%C2%A9`).
 */
function asUtf8(value: string): string {
  // An ASCII value (nearly every one) reads the same either way.
  if (!/[\x80-\xff]/.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : value;
}

/**
 * Fetches `url` (GET), following at most `maxRedirects` redirects, each re-checked by the policy.
 * Throws EgressDenied (the first address), RedirectDenied (a later hop), TooManyRedirects, BadRedirect or
 * the transport error.
 */
export async function egressGet(
  policy: EgressPolicy,
  agent: Dispatcher,
  url: string | URL,
  opts: FollowOptions,
): Promise<FollowedResponse> {
  let current: string | URL = url;
  for (let redirects = 0; ; redirects++) {
    const target = await abortable(policy.checkUrl(current), opts.cancel).catch((err: unknown) => {
      throw redirects > 0 && err instanceof EgressDenied ? new RedirectDenied(String(current), err) : err;
    });
    const res = await pinnedDispatch(agent, target, { ...opts, method: 'GET' });
    if (!REDIRECTS.has(res.statusCode)) return { ...res, url: target.url, redirects };
    // A small redirect body is read so the socket can be reused; a large one is dropped with the socket.
    res.body.dump(16_384);
    const location = res.headers.location;
    const first = Array.isArray(location) ? location[0] : location;
    if (!first) throw new BadRedirect(res.statusCode);
    const value = asUtf8(first);
    if (redirects >= opts.maxRedirects) throw new TooManyRedirects(opts.maxRedirects);
    try {
      current = new URL(value, target.url);
    } catch {
      throw new BadRedirect(res.statusCode);
    }
  }
}
