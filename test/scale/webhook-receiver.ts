import http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { freePort } from './backends.js';

/** One delivery as the receiver saw it. */
export interface Delivery {
  /** Date.now() when it arrived. */
  at: number;
  /** The account label from the URL path (`/hook/<label>`). */
  label: string;
  webhookId: string;
  /** The status the receiver answered. */
  status: number;
  /** The verified body (null when the signature did not verify with the label's secret). */
  event: { type: string; timestamp: string; data: { id: string; status: string } } | null;
}

/**
 * A webhook endpoint on 127.0.0.1 that can be down (port closed: connection refused) or up,
 * answering 500 to every `failEvery`-th delivery and 204 to the others. Each delivery is verified
 * on arrival with `standardwebhooks` against the secret of the account its path names (on arrival,
 * because the package refuses timestamps older than 5 minutes).
 */
export class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  private server: http.Server | undefined;
  private counter = 0;
  private failEvery = 0;
  private readonly verifiers = new Map<string, Webhook>();

  private constructor(readonly port: number) {}

  /** A receiver on a free port, down until `up()`. */
  static async create(): Promise<WebhookReceiver> {
    return new WebhookReceiver(await freePort());
  }

  /** The webhook URL for the account called `label`. */
  url(label: string): string {
    return `http://127.0.0.1:${this.port}/hook/${label}`;
  }

  /** Registers the signing secret (`whsec_…`) of the account called `label`. */
  trust(label: string, secret: string): void {
    this.verifiers.set(label, new Webhook(secret));
  }

  /** Starts answering; every `failEvery`-th delivery (0: none) gets a 500. */
  async up(failEvery = 0): Promise<void> {
    this.failEvery = failEvery;
    if (this.server) return;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const label = /^\/hook\/([\w-]+)$/.exec(req.url ?? '')?.[1] ?? '';
        const status = this.failEvery > 0 && ++this.counter % this.failEvery === 0 ? 500 : 204;
        this.deliveries.push({
          at: Date.now(),
          label,
          webhookId: String(req.headers['webhook-id'] ?? ''),
          status,
          event: this.verify(label, Buffer.concat(chunks).toString('utf8'), req.headers),
        });
        res.writeHead(status).end();
      });
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
  }

  /** Stops answering: the port is closed, connections are refused. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  private verify(label: string, body: string, headers: http.IncomingHttpHeaders): Delivery['event'] {
    const verifier = this.verifiers.get(label);
    if (!verifier) return null;
    try {
      return verifier.verify(body, {
        'webhook-id': String(headers['webhook-id']),
        'webhook-timestamp': String(headers['webhook-timestamp']),
        'webhook-signature': String(headers['webhook-signature']),
      }) as Delivery['event'];
    } catch {
      return null;
    }
  }
}
