/** Loopback HTTP origins for metadata tests: a handler per test, request log, clean shutdown. */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

/** A running origin. */
export interface Origin {
  /** `http://<host>:<port>` */
  base: string;
  port: number;
  /** Paths requested so far, in order. */
  requests: string[];
  /** Request headers of the requests so far. */
  headers: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

/** Starts an HTTP server on a loopback address (default 127.0.0.1) with the given handler. */
export async function startOrigin(handler: http.RequestListener, host = '127.0.0.1'): Promise<Origin> {
  const requests: string[] = [];
  const headers: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    headers.push(req.headers);
    handler(req, res);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://${host}:${port}`,
    port,
    requests,
    headers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A handler that answers HTML bytes with the given Content-Type. */
export function html(body: string | Buffer, contentType = 'text/html; charset=utf-8'): http.RequestListener {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    res.end(body);
  };
}

/** A running origin that answers with raw bytes; `targets` are the request targets as sent, byte for byte. */
export interface RawOrigin {
  base: string;
  targets: string[];
  /** Connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

/**
 * Starts a TCP server on 127.0.0.1 that answers each request on a connection with the parts `answer` gives
 * for its target, written one after another with `gapMs` between them (so a test can split an answer where
 * it likes): for what http.ServerResponse will not send (raw header bytes, duplicate headers, an unasked
 * `100 Continue`). Keep-alive: requests on one connection are answered in turn.
 */
export async function startRawOrigin(answer: (target: string) => Array<string | Buffer>, gapMs = 0): Promise<RawOrigin> {
  const targets: string[] = [];
  const sockets = new Set<net.Socket>();
  const origin: RawOrigin = { base: '', targets, connections: 0, close: async () => {} };
  const server = net.createServer((socket) => {
    origin.connections++;
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let pending = Buffer.alloc(0);
    let queue = Promise.resolve();
    socket.on('data', (data) => {
      pending = Buffer.concat([pending, data]);
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const target = pending.subarray(0, pending.indexOf('\r\n')).toString('latin1').split(' ')[1] ?? '';
        pending = pending.subarray(end + 4);
        targets.push(target);
        const parts = answer(target);
        queue = queue.then(async () => {
          for (const [i, part] of parts.entries()) {
            if (i > 0 && gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
            if (!socket.destroyed) socket.write(part);
          }
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  origin.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return origin;
}
