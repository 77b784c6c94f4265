import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A developer's own file server on 127.0.0.1: `/logo.svg` is there, every other path is 404. */
export interface LogoServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  base: string;
  close(): Promise<void>;
}

/** Starts a LogoServer on a free loopback port. */
export async function startLogoServer(): Promise<LogoServer> {
  const server = http.createServer((req, res) => {
    if (req.url === '/logo.svg') {
      res.writeHead(200, { 'content-type': 'image/svg+xml' });
      res.end('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#246"/></svg>');
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
