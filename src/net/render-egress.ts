/**
 * The forward proxy every render context is pointed at. Chromium never resolves or connects on its own
 * (see render/browser/chromium.ts): each http request and each CONNECT tunnel (https, ws, wss) arrives here, is
 * checked by the one egress policy, resolved once and connected to the pinned address — so DNS rebinding
 * cannot happen between the check and the connection. It also counts what a render fetches and enforces
 * the per-render caps.
 */
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { type EgressRefusal, failureOf, type RefusalReason } from './egress-refusal.js';
import { endToEnd } from './hop-by-hop-headers.js';
import { EgressDenied, type EgressPolicy } from './policy.js';

/** Limits and collaborators of one render's egress. */
export interface RenderEgressOptions {
  policy: EgressPolicy;
  /** Requests (plain http + tunnels) one render may make; later ones are refused. */
  maxRequests: number;
  /** Bytes one render may receive from upstream; the connection that crosses it is cut. */
  maxBytes: number;
  connectTimeoutMs?: number;
  /** A host whose name is not resolved within this is refused like one that does not exist (default 1500). */
  lookupTimeoutMs?: number;
  /** Called for every refused destination (debug logging). */
  onDenied?: (target: string, reason: string) => void;
}

/** One render slot's proxy: its address and what went through it since the last reset. */
export interface RenderEgress {
  /** `http://127.0.0.1:<port>`, for `createBrowserContext({ proxyServer })`. */
  readonly proxyUrl: string;
  /** Requests and tunnels asked for since the last reset, refused ones included. */
  readonly requests: number;
  /** Bytes received from upstream since the last reset. */
  readonly bytes: number;
  /** Plain requests not answered yet plus tunnels not established yet. */
  readonly pending: number;
  /** What was refused or could not be reached since the last reset, in order. */
  readonly refusals: readonly EgressRefusal[];
  /** Starts counting a new render; cuts every connection of the previous one. */
  reset(): void;
  close(): Promise<void>;
}

/** Why a destination is refused: the text for the log, and the report's reason. */
type Refused = [detail: string, reason: RefusalReason];

/** Ports of live render proxies: a tunnel must never lead into one of them (loopback allowed or not). */
const proxyPorts = new Set<number>();

/** Starts a render egress proxy on an ephemeral loopback port. */
export async function startRenderEgress(opts: RenderEgressOptions): Promise<RenderEgress> {
  const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  const lookupTimeoutMs = opts.lookupTimeoutMs ?? 1500;
  let requests = 0;
  let bytes = 0;
  let pending = 0;
  // Renders are counted apart: a late callback of the previous render must not touch this one's counts.
  let generation = 0;
  // Connections of the current render (both sides); reset() and close() cut them.
  let live = new Set<Duplex>();
  let port = 0;

  const track = (s: Duplex): void => {
    const set = live;
    // A keep-alive socket carries many requests: one listener, not one per request.
    if (set.has(s)) return;
    set.add(s);
    s.once('close', () => set.delete(s));
  };

  const countBytes = (chunkLength: number, cut: () => void): void => {
    bytes += chunkLength;
    if (bytes > opts.maxBytes) cut();
  };

  // What the policy said about each host in this render, asked once per host: a page asks for the same
  // host dozens of times, and a lookup per request queued that many resolver calls (each holding one of
  // libuv's four threads, seconds apiece when the resolver drops a burst), where a browser asks once.
  // Reused within the render only, so the address stays the one checked (pinning is unchanged). A
  // resolver that does not answer in lookupTimeoutMs (glibc retries after 5 s, and every waiting lookup
  // holds a thread) counts as one that says the name does not exist: the resource fails, the page prints.
  let verdicts = new Map<string, Promise<{ address: string } | Refused>>();
  let refusals: EgressRefusal[] = [];
  const lookUp = (host: string, label: string): Promise<{ address: string } | Refused> => {
    const known = verdicts.get(host);
    if (known) return known;
    let timer: NodeJS.Timeout | undefined;
    const verdict = Promise.race([
      opts.policy.resolve(host).then(
        ({ address }) => ({ address }),
        (err: unknown): Refused =>
          err instanceof EgressDenied ? [err.message, err.reason] : [`cannot resolve ${label}`, 'unresolvable'],
      ),
      new Promise<Refused>((resolve) => {
        timer = setTimeout(
          () => resolve([`cannot resolve ${label} within ${lookupTimeoutMs} ms`, 'unresolvable']),
          lookupTimeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    verdicts.set(host, verdict);
    return verdict;
  };

  /** Checks a destination; resolves to the pinned address, or to the reason it is refused. */
  const admit = async (host: string, targetPort: number, label: string): Promise<{ address: string } | Refused> => {
    requests += 1;
    if (requests > opts.maxRequests) return [`more than ${opts.maxRequests} requests in one render`, 'too_large'];
    if (bytes > opts.maxBytes) return [`more than ${opts.maxBytes} bytes in one render`, 'too_large'];
    const verdict = await lookUp(host, label);
    if (Array.isArray(verdict)) return verdict;
    if (net.isIP(verdict.address) && isLoopback(verdict.address) && proxyPorts.has(targetPort))
      return ['the render proxy itself', 'private_address'];
    return verdict;
  };

  /** Notes a request that was not carried, for this render's report (a late callback of the previous render is not). */
  const noteRefusal = (mine: number, target: string, reason: RefusalReason): void => {
    if (mine === generation) refusals.push({ target, reason });
  };

  const server = http.createServer((req, res) => {
    track(req.socket);
    pending += 1;
    const mine = generation;
    let done = false;
    const finish = (): void => {
      if (!done) {
        done = true;
        if (mine === generation) pending -= 1;
      }
    };
    res.once('close', finish);
    const refuse = (status: number, reason: string, target: string): void => {
      opts.onDenied?.(target, reason);
      res.writeHead(status, { 'content-type': 'text/plain', 'cache-control': 'no-store', connection: 'close' });
      res.end(`egress refused: ${reason}\n`);
    };
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return refuse(400, 'not a proxy request', String(req.url));
    }
    if (url.protocol !== 'http:') {
      noteRefusal(mine, url.href, 'scheme');
      return refuse(403, `scheme ${url.protocol} is not allowed`, url.href);
    }
    const targetPort = Number(url.port || 80);
    void admit(url.hostname, targetPort, url.host).then((verdict) => {
      if (Array.isArray(verdict)) {
        noteRefusal(mine, url.href, verdict[1]);
        return refuse(403, verdict[0], url.href);
      }
      const upstream = http.request({
        host: verdict.address,
        port: targetPort,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers: { ...endToEnd(req.headers), host: url.host },
        agent: false,
        timeout: connectTimeoutMs,
      });
      upstream.on('socket', track);
      upstream.on('timeout', () => upstream.destroy(new Error('upstream timeout')));
      upstream.on('error', (err) => {
        noteRefusal(mine, url.href, failureOf(err));
        if (!res.headersSent) refuse(502, 'upstream unreachable', url.href);
        else res.destroy();
      });
      upstream.on('response', (up) => {
        res.writeHead(up.statusCode ?? 502, endToEnd(up.headers));
        const cut = (): void => {
          noteRefusal(mine, url.href, 'too_large');
          up.destroy();
          res.destroy();
        };
        up.on('data', (chunk: Buffer) => countBytes(chunk.length, cut));
        // An answer its server cut short (closed before its Content-Length or last chunk) is cut short here
        // too, as a browser fetching it itself would see it; piped alone, the rest was waited for until the
        // render's deadline.
        up.once('close', () => {
          if (up.complete || res.destroyed) return;
          noteRefusal(mine, url.href, 'reset');
          res.destroy();
        });
        up.pipe(res);
      });
      req.pipe(upstream);
    });
  });

  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    pending += 1;
    const mine = generation;
    let settled = false;
    const settle = (): void => {
      if (!settled) {
        settled = true;
        if (mine === generation) pending -= 1;
      }
    };
    client.once('close', settle);
    client.on('error', () => client.destroy());
    const refuse = (reason: string): void => {
      opts.onDenied?.(String(req.url), reason);
      settle();
      client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    };
    let target: URL;
    try {
      target = new URL(`http://${req.url ?? ''}`);
    } catch {
      return refuse('not a host:port');
    }
    const targetPort = Number(target.port);
    if (!targetPort) return refuse('no port');
    const key = `${target.hostname}:${targetPort}`;
    void admit(target.hostname, targetPort, target.host).then((verdict) => {
      if (Array.isArray(verdict)) {
        noteRefusal(mine, key, verdict[1]);
        return refuse(verdict[0]);
      }
      const upstream = net.connect({ host: verdict.address, port: targetPort });
      track(upstream);
      upstream.setTimeout(connectTimeoutMs, () => upstream.destroy(new Error('upstream timeout')));
      upstream.once('connect', () => {
        upstream.setTimeout(0);
        settle();
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
        const cut = (): void => {
          noteRefusal(mine, key, 'too_large');
          upstream.destroy();
          client.destroy();
        };
        upstream.on('data', (chunk: Buffer) => countBytes(chunk.length, cut));
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', (err) => {
        if (!settled) {
          noteRefusal(mine, key, failureOf(err));
          refuse('upstream unreachable');
        }
        client.destroy();
      });
      upstream.once('close', () => client.destroy());
      client.once('close', () => upstream.destroy());
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as net.AddressInfo).port;
  proxyPorts.add(port);

  const cutAll = (): void => {
    const old = live;
    live = new Set();
    for (const s of old) s.destroy();
  };

  return {
    proxyUrl: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    get bytes() {
      return bytes;
    },
    get pending() {
      return pending;
    },
    get refusals() {
      return refusals;
    },
    reset() {
      generation += 1;
      verdicts = new Map();
      refusals = [];
      cutAll();
      requests = 0;
      bytes = 0;
      pending = 0;
    },
    async close() {
      proxyPorts.delete(port);
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1';
}
