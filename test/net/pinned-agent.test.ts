import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { egressGet } from '../../src/net/follow.js';
import { createPinnedAgent, type PushBody, pinnedDispatch } from '../../src/net/pinned-agent.js';
import { createEgressPolicy, EgressDenied } from '../../src/net/policy.js';

/** The whole body as text. */
async function text(body: PushBody): Promise<string> {
  const chunks: Buffer[] = [];
  await body.read((chunk) => chunks.push(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

const here = path.dirname(fileURLToPath(import.meta.url));
const cert = fs.readFileSync(path.join(here, 'fixtures/secure-example.crt'));
const key = fs.readFileSync(path.join(here, 'fixtures/secure-example.key'));

describe('pinned agent', () => {
  let tlsServer: https.Server;
  let plain: http.Server;
  const seen: Array<{ sni: string | undefined; host: string | undefined }> = [];
  // secure.example is allowed by name and "resolves" to loopback through the stub; no real DNS.
  const policy = createEgressPolicy({
    allow: ['secure.example', 'plain.example'],
    lookup: async () => [{ address: '127.0.0.1', family: 4 }],
  });

  beforeAll(async () => {
    tlsServer = https.createServer({ cert, key }, (req, res) => {
      seen.push({ sni: (req.socket as unknown as { servername?: string }).servername, host: req.headers.host });
      res.end('secure');
    });
    plain = http.createServer((req, res) => res.end(`plain ${req.headers.host}`));
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    tlsServer?.close();
    plain?.close();
  });

  it('connects to the pinned address and keeps SNI and Host of the original name', async () => {
    const agent = createPinnedAgent({ ca: cert });
    const port = (tlsServer.address() as AddressInfo).port;
    const res = await egressGet(policy, agent, `https://secure.example:${port}/x`, { maxRedirects: 0 });
    expect(res.statusCode).toBe(200);
    expect(await text(res.body)).toBe('secure');
    expect(seen.at(-1)).toEqual({ sni: 'secure.example', host: `secure.example:${port}` });
    await agent.close();
  });

  it('verifies the certificate against the original name', async () => {
    const agent = createPinnedAgent({ ca: cert });
    const port = (tlsServer.address() as AddressInfo).port;
    const other = createEgressPolicy({ allow: ['other.example'], lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    await expect(egressGet(other, agent, `https://other.example:${port}/`, { maxRedirects: 0 })).rejects.toThrow(
      /altnames|certificate|Hostname/i,
    );
    await agent.close();
  });

  it('refuses to connect to a host name (no second DNS lookup at connect time)', async () => {
    const agent = createPinnedAgent();
    const port = (plain.address() as AddressInfo).port;
    const target = { url: new URL(`http://plain.example:${port}/`), address: 'plain.example', family: 4 as const };
    await expect(pinnedDispatch(agent, target)).rejects.toBeInstanceOf(EgressDenied);
    await agent.close();
  });
});
