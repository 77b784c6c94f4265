/**
 * An SSRF-safe undici dispatcher: it only ever connects to IP literals the egress policy allows.
 *
 * Callers never hand it a host name. `pinnedDispatch` sends the request to the address the policy
 * resolved (`http://203.0.113.7:443/…`) and keeps the original `Host` header, from which undici derives
 * the TLS server name (SNI and certificate check). So there is no second DNS lookup between check and
 * connect (no rebinding window), and keep-alive sockets are pooled per checked address.
 */
import net from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import type { IncomingHttpHeaders } from 'undici/types/header.js';
import type { Cancellation } from './cancellation.js';
import { EgressDenied } from './policy.js';

/** Options of the pinned agent. */
export interface PinnedAgentOptions {
  /** TCP + TLS handshake limit. */
  connectTimeoutMs?: number;
  /** How long an idle keep-alive socket is kept. */
  keepAliveTimeoutMs?: number;
  /** Extra trusted CA certificates (PEM), replacing the defaults; for intranets and tests. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Largest response header block read, in bytes (default: Node's, 16 KiB); a larger one fails the request. */
  maxHeaderSize?: number;
}

/** Creates the dispatcher every outbound caller uses; it only connects to pinned IP literals. */
export function createPinnedAgent(opts: PinnedAgentOptions = {}): Agent {
  const connector = buildConnector({ timeout: opts.connectTimeoutMs ?? 10_000, ...(opts.ca ? { ca: opts.ca } : {}) });
  return new Agent({
    keepAliveTimeout: opts.keepAliveTimeoutMs ?? 4_000,
    ...(opts.maxHeaderSize ? { maxHeaderSize: opts.maxHeaderSize } : {}),
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

/** Per-request options of pinnedDispatch. */
export interface PinnedRequestOptions {
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  /** Request body (POST); sent whole, so callers keep it small. */
  body?: string | Buffer;
  cancel?: Cancellation;
  headersTimeoutMs?: number;
  bodyTimeoutMs?: number;
}

/** The URL undici is given for a target: the pinned address, the original path and query. */
function pinnedOrigin(target: PinnedTarget): { origin: string; path: string } {
  const { url } = target;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const host = target.family === 6 ? `[${target.address}]` : target.address;
  return { origin: `${url.protocol}//${host}:${port}`, path: `${url.pathname}${url.search}` };
}

/** A response whose body is pushed to its reader as it arrives: no stream object, no promise per chunk. */
export interface PushedResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: PushBody;
}

/**
 * The body of a PushedResponse. Chunks that arrive before `read` is called are queued with the socket
 * paused. The reader says when it is done with `dump` (the rest is read and dropped so the keep-alive
 * connection can be reused) or `destroy` (the connection is dropped with the rest).
 */
export class PushBody {
  private queue: Buffer[] = [];
  private onChunk: ((chunk: Buffer) => void) | null = null;
  private settle: { resolve: () => void; reject: (err: Error) => void } | null = null;
  private ended = false;
  private error: Error | null = null;
  /** Set once the reader is done; -1 when the rest is dropped with the connection. */
  private dumpLeft: number | null = null;
  /** Called once the body is over for the transport (ended, failed or abandoned). */
  onClose: (() => void) | null = null;

  constructor(private readonly controller: Dispatcher.DispatchController) {}

  /** Feeds every chunk to `onChunk`; resolves at the end or when the reader is done, rejects on a transport error. */
  read(onChunk: (chunk: Buffer) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
      this.onChunk = onChunk;
      const queued = this.queue;
      this.queue = [];
      for (const chunk of queued) this.deliver(onChunk, chunk);
      if (this.dumpLeft !== null) return;
      if (this.error) reject(this.error);
      else if (this.ended) resolve();
      else this.controller.resume();
    });
  }

  /** Stops the socket while the reader cannot keep up. */
  pause(): void {
    this.controller.pause();
  }

  /** Lets the socket deliver again. */
  resume(): void {
    if (this.dumpLeft === null) this.controller.resume();
  }

  /** The reader is done: up to `limit` more bytes are read and dropped, beyond that the connection is dropped. */
  dump(limit: number): void {
    if (this.dumpLeft !== null) return;
    this.dumpLeft = limit;
    this.queue = [];
    this.settle?.resolve();
    if (this.ended || this.error) return;
    this.controller.resume();
  }

  /** The reader is done and the connection is dropped with the rest of the body (no-op once released). */
  destroy(): void {
    if (this.dumpLeft !== null) return;
    this.dumpLeft = -1;
    this.queue = [];
    this.settle?.resolve();
    if (!this.ended && !this.error) this.controller.abort(new Error('response body discarded'));
  }

  /** Transport side: a chunk arrived. */
  push(chunk: Buffer): void {
    if (this.dumpLeft !== null) {
      if (this.dumpLeft < 0) return;
      this.dumpLeft -= chunk.length;
      if (this.dumpLeft < 0) this.controller.abort(new Error('response body too long to drain'));
      return;
    }
    const onChunk = this.onChunk;
    if (onChunk === null) {
      this.queue.push(chunk);
      this.controller.pause();
      return;
    }
    this.deliver(onChunk, chunk);
  }

  /** Transport side: the body ended. */
  end(): void {
    this.ended = true;
    this.onClose?.();
    if (this.dumpLeft === null && this.onChunk !== null) this.settle?.resolve();
  }

  /** Transport side: the body failed. */
  fail(err: Error): void {
    if (this.ended || this.error) return;
    this.error = err;
    this.onClose?.();
    if (this.dumpLeft === null && this.onChunk !== null) this.settle?.reject(err);
  }

  /** Hands `chunk` to the reader's `onChunk` (the one `read` was given), or drains it once the reader is done. */
  private deliver(onChunk: (chunk: Buffer) => void, chunk: Buffer): void {
    if (this.dumpLeft !== null) {
      this.push(chunk);
      return;
    }
    try {
      onChunk(chunk);
    } catch (err) {
      // A reader's exception must not reach undici's parser: it fails this read instead.
      this.settle?.reject(err as Error);
      this.destroy();
    }
  }
}

/**
 * Sends one request (no redirect following) to a checked target over the pinned agent and resolves at
 * the response headers with a pushed body. `cancel` aborts the request and its body.
 */
export function pinnedDispatch(
  agent: Dispatcher,
  target: PinnedTarget,
  opts: PinnedRequestOptions = {},
): Promise<PushedResponse> {
  const { origin, path } = pinnedOrigin(target);
  const { cancel } = opts;
  return new Promise<PushedResponse>((resolve, reject) => {
    let controller: Dispatcher.DispatchController | null = null;
    let body: PushBody | null = null;
    const onAbort = (reason: Error): void => {
      if (controller) controller.abort(reason);
      else reject(reason);
    };
    const done = (): void => cancel?.offAbort(onAbort);
    if (cancel?.aborted) return reject(cancel.reason);
    cancel?.onAbort(onAbort);
    agent.dispatch(
      {
        origin,
        path,
        method: opts.method ?? 'GET',
        // Credentials in the URL are never forwarded; the fragment never leaves the client.
        headers: { ...opts.headers, host: target.url.host },
        ...(opts.body === undefined ? {} : { body: opts.body }),
        headersTimeout: opts.headersTimeoutMs,
        bodyTimeout: opts.bodyTimeoutMs,
      },
      {
        onRequestStart(c) {
          controller = c;
          // Cancellation.abort() sets `reason` together with `aborted`.
          if (cancel?.aborted) c.abort(cancel.reason ?? new Error('request cancelled without a reason'));
        },
        onResponseStart(c, statusCode, headers) {
          if (statusCode < 200) return; // 1xx: the real answer follows
          body = new PushBody(c);
          body.onClose = done;
          resolve({ statusCode, headers, body });
        },
        onResponseData(_c, chunk) {
          body?.push(chunk);
        },
        onResponseEnd() {
          if (body) body.end();
          else done();
        },
        onResponseError(_c, err) {
          if (body) body.fail(err);
          else {
            done();
            reject(err);
          }
        },
      },
    );
  });
}
