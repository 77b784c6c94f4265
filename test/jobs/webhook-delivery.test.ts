import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { deliverWebhook } from '../../src/jobs/webhook-delivery.js';
import { newWebhookSecret, webhookHeaders } from '../../src/jobs/webhook-signing.js';
import { createPinnedAgent } from '../../src/net/pinned-agent.js';
import { createEgressPolicy, type LookupFn } from '../../src/net/policy.js';
import { noDns } from '../helpers/render.js';

const agent = createPinnedAgent();
const loopback = createEgressPolicy({ allow: ['127.0.0.1/32'], lookup: noDns });
const servers: http.Server[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});
afterAll(() => agent.close());

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver; `answer` decides what it does with each request once its body is read. */
async function receiver(answer: (res: http.ServerResponse, got: Received) => void): Promise<{ url: string; got: Received[] }> {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      const r = { headers: req.headers, body };
      got.push(r);
      answer(res, r);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got };
}

function signed(secret: string, body: string) {
  return webhookHeaders(secret, 'msg_job_test', Math.floor(Date.now() / 1000), body);
}

describe('one webhook delivery', () => {
  it('posts the signed event; the standardwebhooks package verifies what the receiver got', async () => {
    const { url, got } = await receiver((res) => res.writeHead(204).end());
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'job.succeeded', timestamp: new Date().toISOString(), data: { id: 'job_test' } });
    const result = await deliverWebhook({ policy: loopback, agent, url, headers: signed(secret, body), body });
    expect(result).toMatchObject({ delivered: true, statusCode: 204, error: null });
    expect(got).toHaveLength(1);
    const [first] = got;
    expect(first?.headers['content-type']).toBe('application/json');
    const verified = new Webhook(secret).verify(first?.body ?? '', first?.headers as Record<string, string>);
    expect(verified).toEqual(JSON.parse(body));
  });

  it('a redirect is a failed attempt and is not followed', async () => {
    const target = await receiver((res) => res.writeHead(200).end());
    const { url, got } = await receiver((res) => res.writeHead(302, { location: target.url }).end());
    const result = await deliverWebhook({ policy: loopback, agent, url, headers: signed(newWebhookSecret(), '{}'), body: '{}' });
    expect(result).toMatchObject({ delivered: false, statusCode: 302, error: 'redirect (302) not followed' });
    expect(got).toHaveLength(1);
    expect(target.got).toHaveLength(0);
  });

  it('a 500 is a failed attempt with its status', async () => {
    const { url } = await receiver((res) => res.writeHead(500).end('boom'));
    const result = await deliverWebhook({ policy: loopback, agent, url, headers: signed(newWebhookSecret(), '{}'), body: '{}' });
    expect(result).toMatchObject({ delivered: false, statusCode: 500, error: 'receiver answered 500' });
  });

  it('a receiver that never answers is given up at the deadline', async () => {
    const { url, got } = await receiver(() => {});
    const started = Date.now();
    const result = await deliverWebhook({
      policy: loopback,
      agent,
      url,
      headers: signed(newWebhookSecret(), '{}'),
      body: '{}',
      timeoutMs: 1500,
    });
    expect(got).toHaveLength(1);
    expect(result).toMatchObject({ delivered: false, statusCode: null, error: 'no answer within 1.5 s' });
    // Wide margin for a loaded machine: the point is that it ends near the deadline, not after minutes.
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it('a receiver answering 5 GB is cut after a few KiB', async () => {
    let written = 0;
    let closed: () => void = () => {};
    const socketClosed = new Promise<void>((r) => {
      closed = r;
    });
    const { url } = await receiver((res) => {
      res.writeHead(200, { 'content-length': String(5 * 1024 ** 3) });
      const chunk = Buffer.alloc(64 * 1024, 120);
      const pump = (): void => {
        while (!res.destroyed && written < 5 * 1024 ** 3) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.socket?.once('close', closed);
      pump();
    });
    const result = await deliverWebhook({ policy: loopback, agent, url, headers: signed(newWebhookSecret(), '{}'), body: '{}' });
    expect(result).toMatchObject({ delivered: true, statusCode: 200 });
    await socketClosed;
    // The kernel buffers some megabytes on loopback; a read of the whole answer would be 5 GB.
    expect(written).toBeLessThan(64 * 1024 ** 2);
    console.log(`5 GB receiver: ${(written / 1024 ** 2).toFixed(1)} MiB written before the connection was dropped`);
  });

  it('a host that resolves to a private address at delivery time is refused before any connection', async () => {
    let resolved = 0;
    // At submit this name pointed at a public address; by delivery time it re-resolves to a private one.
    const rebinding: LookupFn = async () =>
      resolved++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '10.0.0.7', family: 4 }];
    const policy = createEgressPolicy({ allow: [], lookup: rebinding });
    await policy.checkUrl('https://hooks.example.com/in');
    const result = await deliverWebhook({ policy, agent, url: 'https://hooks.example.com/in', headers: {}, body: '{}' });
    expect(result).toMatchObject({ delivered: false, statusCode: null });
    expect(result.error).toBe(
      'refused by the egress policy: host hooks.example.com resolves to a private address (EGRESS_ALLOW lets an operator allow it)',
    );
  });

  it('connects to the address the policy checked, sending the original Host', async () => {
    const { url, got } = await receiver((res) => res.writeHead(200).end());
    const port = new URL(url).port;
    const policy = createEgressPolicy({ allow: ['127.0.0.1/32'], lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    const result = await deliverWebhook({
      policy,
      agent,
      url: `http://hooks.example.com:${port}/hooks`,
      headers: {},
      body: '{}',
    });
    expect(result.delivered).toBe(true);
    expect(got[0]?.headers.host).toBe(`hooks.example.com:${port}`);
  });
});
