/**
 * Answers Node's HTTP server writes itself, before Fastify sees a request (not HTTP, a bad
 * Content-Length, Content-Length with Transfer-Encoding, headers too large, headers too slow), carry the
 * service's request id like every other answer: X-Render-ID on the render service, X-Request-ID on the
 * metadata service, each a fresh one. Raw sockets on 127.0.0.1, as a client that sends such bytes.
 */
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';

const HEADERS_TIMEOUT_MS = 1000;

let core: CoreDeps;
const ports: Record<'render' | 'metadata', number> = { render: 0, metadata: 0 };
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  core = await createTestCore({
    RENDER_CONCURRENCY: '1',
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    HTTP_REQUEST_TIMEOUT_MS: '5000',
  });
  const started = {
    render: await buildRenderApp(core, { lookup: noDns, startJobWorker: false }),
    metadata: await buildMetadataApp(core),
  };
  for (const [service, app] of Object.entries(started) as Array<['render' | 'metadata', FastifyInstance]>) {
    apps.push(app);
    await app.listen({ host: '127.0.0.1', port: 0 });
    ports[service] = (app.server.address() as AddressInfo).port;
  }
}, 60_000);

afterAll(async () => {
  for (const app of apps) await app.close();
  if (core) await closeTestCore(core);
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `bytes` and reads what the server answers until it closes the connection. */
function exchange(port: number, bytes: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      if (statusLine === '') reject(new Error('no answer'));
      else resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(bytes);
  });
}

const REFUSALS: Array<[string, string, number, string]> = [
  ['not HTTP', 'GARBAGE\r\n\r\n', 400, 'INVALID_REQUEST'],
  ['a bad Content-Length', 'POST /v1/render HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ten\r\n\r\n', 400, 'INVALID_REQUEST'],
  [
    'Content-Length with Transfer-Encoding',
    'POST /v1/render HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    400,
    'INVALID_REQUEST',
  ],
  [
    'a 20 KB header',
    `GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
    431,
    'HEADERS_TOO_LARGE',
  ],
  // The request line and half a header, then nothing: the server gives up after HTTP_HEADERS_TIMEOUT_MS.
  ['headers not finished in time', 'GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', 408, 'REQUEST_TIMEOUT'],
];

describe('answers of the HTTP layer carry the request id', () => {
  it.each(REFUSALS)('render: %s → X-Render-ID', async (_what, bytes, status, code) => {
    const [a, b] = await Promise.all([exchange(ports.render, bytes), exchange(ports.render, bytes)]);
    for (const answer of [a, b]) {
      expect(answer.status).toBe(status);
      expect(answer.headers['x-render-id']).toMatch(/^rnd_[0-9a-f]{24}$/);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(answer.body).error.code).toBe(code);
    }
    expect(a.headers['x-render-id']).not.toBe(b.headers['x-render-id']);
  });

  it.each(REFUSALS)('metadata: %s → X-Request-ID', async (_what, bytes, status) => {
    const answer = await exchange(ports.metadata, bytes);
    expect(answer.status).toBe(status);
    expect(answer.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    expect(Object.keys(JSON.parse(answer.body))).toEqual(['detail']);
  });
});
