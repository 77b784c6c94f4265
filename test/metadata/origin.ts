/** Loopback HTTP origins for metadata tests: a handler per test, request log, clean shutdown. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
