/**
 * An SSRF-safe undici dispatcher: it only ever connects to IP literals the egress policy allows.
 *
 * Callers never hand it a host name. `pinnedRequest` sends the request to the address the policy
 * resolved (`http://203.0.113.7:443/…`) and keeps the original `Host` header, from which undici derives
 * the TLS server name (SNI and certificate check). So there is no second DNS lookup between check and
 * connect (no rebinding window), and keep-alive sockets are pooled per checked address.
 */
import net from 'node:net';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import { EgressDenied } from './policy.js';

/** Options of the pinned agent. */
export interface PinnedAgentOptions {
  /** TCP + TLS handshake limit. */
  connectTimeoutMs?: number;
  /** How long an idle keep-alive socket is kept. */
  keepAliveTimeoutMs?: number;
  /** Extra trusted CA certificates (PEM), replacing the defaults; for intranets and tests. */
  ca?: string | Buffer | Array<string | Buffer>;
}

/** Creates the dispatcher every outbound caller uses; it only connects to pinned IP literals. */
export function createPinnedAgent(opts: PinnedAgentOptions = {}): Agent {
  const connector = buildConnector({ timeout: opts.connectTimeoutMs ?? 10_000, ...(opts.ca ? { ca: opts.ca } : {}) });
  return new Agent({
    keepAliveTimeout: opts.keepAliveTimeoutMs ?? 4_000,
    connect(options, callback) {
      // Defence in depth: a name would mean a second DNS lookup at connect time (a rebinding window), so
      // only pinned IP literals pass. Addresses of hosts allowed by name are not re-judged here: the
      // policy already decided for that host in checkUrl.
      const ip = options.hostname;
      if (net.isIP(ip) === 0) {
        callback(new EgressDenied(`refusing to connect to unpinned host ${ip}`), null);
        return;
      }
      connector(options, callback);
    },
  });
}

/** A URL checked by the policy together with the address its connection is pinned to. */
export interface PinnedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/** Per-request options of pinnedRequest. */
export interface PinnedRequestOptions {
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  signal?: AbortSignal;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
}

/** Sends one request (no redirect following) to a checked target over the pinned agent. */
export function pinnedRequest(
  agent: Dispatcher,
  target: PinnedTarget,
  opts: PinnedRequestOptions = {},
): Promise<Dispatcher.ResponseData> {
  const { url } = target;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const host = target.family === 6 ? `[${target.address}]` : target.address;
  // Credentials in the URL are never forwarded; the fragment never leaves the client.
  return request(`${url.protocol}//${host}:${port}${url.pathname}${url.search}`, {
    dispatcher: agent,
    method: opts.method ?? 'GET',
    headers: { ...opts.headers, host: url.host },
    signal: opts.signal,
    headersTimeout: opts.headersTimeoutMs,
    bodyTimeout: opts.bodyTimeoutMs,
  });
}
