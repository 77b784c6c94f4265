/**
 * A loopback proxy that keeps every request it passes on (method, path, headers, the body's exact bytes)
 * and answers with what the service behind it answered: what a client sent, seen as the service saw it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as it came over the wire. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** The proxy: its address, the requests so far (oldest first), and how to stop it. */
export interface RecordingProxy {
  base: string;
  requests: RecordedRequest[];
  /** How many of the next requests to keep but answer 503 OVERLOADED (Retry-After: 0), as a busy service would. */
  refuseNext: number;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 in front of `target` (`http://127.0.0.1:PORT`). */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    if (proxy.refuseNext > 0) {
      proxy.refuseNext--;
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0', 'x-render-id': 'rnd_refused' });
      res.end(JSON.stringify({ error: { code: 'OVERLOADED', message: 'refused by the test proxy' } }));
      return;
    }
    const headers = { ...req.headers };
    delete headers['transfer-encoding'];
    headers['content-length'] = String(body.length);
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (err) => res.destroy(err));
    upstream.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy: RecordingProxy = {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    refuseNext: 0,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
