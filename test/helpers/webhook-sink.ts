import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One webhook delivery as the receiver got it. */
export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/** A loopback receiver of webhooks (let through with EGRESS_ALLOW=127.0.0.1/32). */
export interface WebhookSink {
  /** The webhook URL to submit jobs with. */
  url: string;
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port that records every delivery into `into` and answers `status`. */
export async function startWebhookSink(into: Delivery[], opts: { status?: number; path?: string } = {}): Promise<WebhookSink> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      into.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(opts.status ?? 204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${opts.path ?? '/hooks'}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
