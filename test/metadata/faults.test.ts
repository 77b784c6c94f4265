import type http from 'node:http';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { type Origin, startOrigin } from './origin.js';

const TIMEOUT_MS = 1500;
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Writes `block` until `total` bytes are out or the client goes away; resolves with the bytes written. */
function stream(res: http.ServerResponse, block: Buffer, total: number, sent: { bytes: number }): void {
  const pump = (): void => {
    while (sent.bytes < total && !res.destroyed) {
      sent.bytes += block.length;
      if (!res.write(block)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  res.on('error', () => {});
  pump();
}

/** Runs `fn` while sampling RSS every 5 ms; returns its result and the peak growth in bytes. */
async function withRss<T>(fn: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const result = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, growth: peak - base };
  } finally {
    clearInterval(timer);
  }
}

/** A head that settles every field, and the body's start: nothing after it can change the result. */
const SETTLED_HEAD =
  '<html><head><title>T</title><meta name="description" content="D"><meta property="og:title" content="OT">' +
  '<meta property="og:description" content="OD"><meta property="og:image" content="/i.png">' +
  '<meta property="og:url" content="/u"><link rel="canonical" href="/c"><link rel="icon" href="/f.ico"></head><body>';

/** What SETTLED_HEAD answers, its addresses resolved against `base`. */
const settledFields = (base: string) => ({
  title: 'T',
  description: 'D',
  og_title: 'OT',
  og_description: 'OD',
  og_image: `${base}/i.png`,
  og_url: `${base}/u`,
  canonical_url: `${base}/c`,
  favicon_url: `${base}/f.ico`,
});

describe('fault suite (loopback targets)', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  let origin: Origin;
  let key: string;
  const sent = { bytes: 0 };
  const trickled = { blocks: 0, closed: false };
  let gzipMember: Buffer;
  let brotliBomb: Buffer;
  let rawBomb: Buffer;

  beforeAll(async () => {
    const block = Buffer.alloc(64 * MiB, '<p>aaaaaaaaaaaa</p>\n');
    gzipMember = zlib.gzipSync(block, { level: 9 });
    brotliBomb = zlib.brotliCompressSync(block, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
    rawBomb = zlib.deflateRawSync(block, { level: 9 });
    core = await createTestCore({
      EGRESS_ALLOW: '127.0.0.1/32',
      METADATA_TIMEOUT_MS: String(TIMEOUT_MS),
      METADATA_CACHE_TTL_S: '0',
    });
    app = await buildMetadataApp(core);
    ({ key } = await createKey(core, 'metadata'));
    origin = await startOrigin((req, res) => {
      const path = req.url ?? '';
      if (path === '/trickle') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html><head><title>');
        const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write('a')), 1000);
        res.on('close', () => clearInterval(t));
        return;
      }
      if (path === '/silent') return; // accepts, never answers
      if (path === '/settled-long') {
        // Every field in the head, then 64 MiB declared and sent slowly: the fetch has no reason to read on.
        const head = Buffer.from(SETTLED_HEAD);
        const block = Buffer.alloc(64 * 1024, '<p>filler</p>\n');
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': head.length + 1024 * block.length });
        res.on('error', () => {});
        res.write(head);
        trickled.blocks = 0;
        trickled.closed = false;
        const t = setInterval(() => {
          if (res.destroyed) return clearInterval(t);
          trickled.blocks++;
          res.write(block);
        }, 20);
        res.on('close', () => {
          clearInterval(t);
          trickled.closed = true;
        });
        return;
      }
      if (path === '/huge') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return stream(res, Buffer.alloc(64 * 1024, '<p>filler text without any metadata</p>\n'), GiB, sent);
      }
      if (path === '/gzip-bomb') {
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
        return stream(res, gzipMember, 256 * gzipMember.length, sent); // 256 members of 64 MiB: 16 GiB inflated
      }
      const deflated = /^\/deflate-(zlib|raw|gzip|raw-bomb)$/.exec(path);
      if (deflated) {
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'deflate' });
        const page = Buffer.from(SETTLED_HEAD);
        if (deflated[1] === 'zlib') return res.end(zlib.deflateSync(page));
        if (deflated[1] === 'raw') return res.end(zlib.deflateRawSync(page));
        if (deflated[1] === 'gzip') return res.end(zlib.gzipSync(page));
        return res.end(rawBomb);
      }
      if (path === '/br-bomb') {
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' });
        return res.end(brotliBomb);
      }
      if (path.startsWith('/loop')) {
        res.writeHead(302, { location: '/loop' });
        return res.end();
      }
      const hop = /^\/hop(\d)$/.exec(path);
      if (hop) {
        const n = Number(hop[1]);
        res.writeHead(n === 0 ? 200 : 307, n === 0 ? { 'content-type': 'text/html' } : { location: `/hop${n - 1}` });
        return res.end(n === 0 ? '<title>Arrived</title>' : '');
      }
      if (path === '/reset') return req.socket.resetAndDestroy();
      if (path === '/reset-mid-body') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html><head><title>Partial');
        setTimeout(() => req.socket.resetAndDestroy(), 50);
        return;
      }
      if (path === '/not-found') {
        res.writeHead(404, { 'content-type': 'text/html' });
        return res.end('<title>Nope</title>');
      }
      if (path === '/image.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        return stream(res, Buffer.alloc(64 * 1024, 0x89), 256 * MiB, sent);
      }
      res.writeHead(500);
      res.end();
    });
  });
  afterAll(async () => {
    await app?.close();
    await origin?.close();
    if (core) await closeTestCore(core);
  });

  const get = (path: string) =>
    app.inject({ url: `/v1/fetch?url=${encodeURIComponent(origin.base + path)}`, headers: { 'x-api-key': key } });

  it('a target that trickles one byte a second is cut off: 504 within the timeout + 1 s', async () => {
    const started = Date.now();
    const res = await get('/trickle');
    const elapsed = Date.now() - started;
    expect(res.statusCode).toBe(504);
    expect(res.json()).toEqual({ detail: `target did not answer within ${TIMEOUT_MS} ms` });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1000);
  });

  it('a target that never answers: 504 within the timeout + 1 s', async () => {
    const started = Date.now();
    const res = await get('/silent');
    expect(res.statusCode).toBe(504);
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1000);
  });

  it('a rest longer than a keep-alive drain is worth is not read: the connection is dropped at once', async () => {
    const res = await get('/settled-long');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(settledFields(origin.base));
    for (let waited = 0; !trickled.closed && waited < 3000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    expect(trickled.closed).toBe(true);
    // Draining the 1 MiB a connection is kept for would take 16 blocks at one per 20 ms.
    expect(trickled.blocks).toBeLessThan(8);
  });

  it('a 1 GiB body is cut at METADATA_MAX_BYTES with flat memory', async () => {
    sent.bytes = 0;
    const { result: res, growth } = await withRss(() => get('/huge'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ title: null, favicon_url: `${origin.base}/favicon.ico` });
    expect(sent.bytes).toBeLessThan(64 * MiB);
    expect(growth).toBeLessThan(100 * MiB);
  });

  it('a gzip bomb (16 GiB inflated) is cut at the cap with flat memory', async () => {
    sent.bytes = 0;
    const { result: res, growth } = await withRss(() => get('/gzip-bomb'));
    expect(res.statusCode).toBe(200);
    expect(res.json().title).toBeNull();
    expect(sent.bytes).toBeLessThan(64 * gzipMember.length);
    expect(growth).toBeLessThan(100 * MiB);
  });

  it('a brotli bomb is cut at the cap with flat memory', async () => {
    const { result: res, growth } = await withRss(() => get('/br-bomb'));
    expect(res.statusCode).toBe(200);
    expect(growth).toBeLessThan(100 * MiB);
  });

  it('deflate is read as browsers read it: zlib-wrapped, raw (as some servers send it) or a gzip member', async () => {
    for (const kind of ['zlib', 'raw', 'gzip']) {
      const res = await get(`/deflate-${kind}`);
      expect(res.statusCode, `${kind}: ${res.body}`).toBe(200);
      expect(res.json(), kind).toEqual(settledFields(origin.base));
    }
    const { result: bomb, growth } = await withRss(() => get('/deflate-raw-bomb'));
    expect(bomb.statusCode).toBe(200);
    expect(bomb.json().title).toBeNull();
    expect(growth).toBeLessThan(100 * MiB);
  });

  it('a redirect loop: 502', async () => {
    const res = await get('/loop');
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ detail: 'target redirected more than 5 times' });
  });

  it('five redirects are followed, a sixth is refused', async () => {
    const five = await get('/hop5');
    expect(five.statusCode).toBe(200);
    expect(five.json().title).toBe('Arrived');
    const six = await get('/hop6');
    expect(six.statusCode).toBe(502);
  });

  it('a connection reset: 502', async () => {
    const res = await get('/reset');
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ detail: 'target closed the connection unexpectedly' });
    const mid = await get('/reset-mid-body');
    expect(mid.statusCode).toBe(502);
    expect(mid.json()).toEqual({ detail: 'target closed the connection unexpectedly' });
  });

  it('a 404 target: 502 with the status in detail', async () => {
    const res = await get('/not-found');
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ detail: 'target answered HTTP 404' });
  });

  it('image/png: 200 with nulls and the default favicon, body not downloaded', async () => {
    sent.bytes = 0;
    const res = await get('/image.png');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      title: null,
      description: null,
      og_title: null,
      og_description: null,
      og_image: null,
      og_url: null,
      canonical_url: null,
      favicon_url: `${origin.base}/favicon.ico`,
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(sent.bytes).toBeLessThan(16 * MiB);
  });
});
