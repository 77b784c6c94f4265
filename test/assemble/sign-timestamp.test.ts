/**
 * POST /v1/assemble with `sign` on an instance whose SIGN_TSA_URL names a timestamp authority on loopback:
 * a granted timestamp signs (PAdES B-T), and an authority that answers an error, answers something else or
 * cannot be reached makes the request 503 SERVICE_UNAVAILABLE with Retry-After and the reason in words,
 * never a 500, and never an address of the operator's network.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { makeTestCertificates } from '../helpers/certificates.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { startTestTsa, type TestTsa } from '../helpers/tsa-server.js';
import { postAssemble, tinyPdf, uploadCertificate } from './helpers.js';

/** What the authority in front of the test TSA does with the next requests. */
let mode: 'grant' | 'error' | 'garbage' | 'drop' = 'grant';
let tsa: TestTsa;
let front: http.Server;
let core: CoreDeps;
let app: FastifyInstance;
let alice: { accountId: string; key: string };
let certificate = '';

beforeAll(async () => {
  tsa = await startTestTsa();
  // One address for the whole file: the authority's behaviour is switched per test behind it.
  front = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (mode === 'drop') return req.socket.destroy();
    if (mode === 'error') {
      res.writeHead(500);
      return res.end('down for maintenance');
    }
    if (mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/timestamp-reply' });
      return res.end(Buffer.from([0x04, 0x02, 0x00, 0x00]));
    }
    const answer = await fetch(tsa.url, {
      method: 'POST',
      body: Buffer.concat(chunks),
      headers: { 'content-type': 'application/timestamp-query' },
    });
    res.writeHead(answer.status, { 'content-type': 'application/timestamp-reply' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const certs = makeTestCertificates();
  core = await createTestCore({
    CERTIFICATE_KEY: crypto.randomBytes(32).toString('hex'),
    SIGN_TSA_URL: `http://127.0.0.1:${(front.address() as AddressInfo).port}/tsa`,
    EGRESS_ALLOW: '127.0.0.1/32',
  });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  alice = await createKey(core, 'render');
  certificate = await uploadCertificate(app, alice.key, certs.rsaChain, certs.password);
}, 180_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  front?.closeAllConnections();
  await new Promise((resolve) => front?.close(resolve));
  await tsa?.close();
});

const signed = () =>
  postAssemble(app, alice.key, { parts: [{ pdf: tinyPdf('Contract 7').toString('base64') }], sign: { certificate } });

describe('sign with SIGN_TSA_URL', () => {
  it('a granted timestamp: 200, and the authority stamped exactly one imprint', async () => {
    mode = 'grant';
    const before = tsa.imprints.length;
    const res = await signed();
    expect(res.statusCode, res.body).toBe(200);
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(tsa.imprints.length - before).toBe(1);
  }, 60_000);

  it.each([
    ['error', 'the authority answered 500'],
    ['garbage', 'the timestamp authority answered something other than a TimeStampResp'],
  ] as const)(
    'an authority that %s: 503 SERVICE_UNAVAILABLE, Retry-After 30, the reason',
    async (how, reason) => {
      mode = how;
      const res = await signed();
      expect(res.statusCode, res.body).toBe(503);
      expect(res.headers['retry-after']).toBe('30');
      expect(res.json().error).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: `the timestamp authority (SIGN_TSA_URL) gave no timestamp: ${reason}`,
      });
    },
    60_000,
  );

  it('an authority that drops the connection: 503 naming the error code, not the address', async () => {
    mode = 'drop';
    const res = await signed();
    expect(res.statusCode, res.body).toBe(503);
    const { message } = res.json().error as { message: string };
    expect(message).toMatch(/^the timestamp authority \(SIGN_TSA_URL\) gave no timestamp: it could not be reached \([A-Z_]+\)$/);
    expect(message).not.toContain('127.0.0.1');
  }, 60_000);
});
