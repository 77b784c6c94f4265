/**
 * POST /v1/assemble through the real render app (real Chromium, real SQLite, a loopback server let
 * through with EGRESS_ALLOW for URL parts): the assembled PDF as qpdf, pdfinfo and pdftotext read it,
 * the render record with its parts, and every bad input answered with a 4xx naming the part.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { fixture, outline, page, pageCount, pageTexts, postAssemble, qpdfCheck, renderRecord } from './helpers.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let origin: http.Server;
let base: string;

const terms = fixture('terms-objstm.pdf');
/** 80 MiB of one byte, gzipped to about 80 KiB: past a URL part's 64 MiB once decompressed. */
const gzipBomb = zlib.gzipSync(Buffer.alloc(80 * 1024 * 1024, 0x20), { level: 9 });

beforeAll(async () => {
  core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32', RENDER_CONCURRENCY: '2', ASSEMBLE_MAX_PARTS: '6' });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  key = (await createKey(core, 'render')).key;
  origin = http.createServer((req, res) => {
    const at = new URL(req.url ?? '/', 'http://x').pathname;
    if (at === '/terms.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(terms);
    else if (at === '/page.html') res.writeHead(200, { 'content-type': 'text/html' }).end('<p>not a pdf</p>');
    else if (at === '/moved.pdf') res.writeHead(302, { location: 'http://10.0.0.1/terms.pdf?token=s3cr3t' }).end();
    // The Location's bytes are UTF-8, written as they are (a header string is sent one byte a character).
    else if (at === '/moved-utf8.pdf')
      res.writeHead(302, { location: Buffer.from('/conditions-générales.pdf', 'utf8').toString('latin1') }).end();
    else if (at === '/conditions-g%C3%A9n%C3%A9rales.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(terms);
    // Sent compressed whatever was asked, as S3 sends an object stored with Content-Encoding: gzip.
    else if (at === '/stored-gzip.pdf')
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-encoding': 'gzip' }).end(zlib.gzipSync(terms));
    else if (at === '/zstd.pdf') res.writeHead(200, { 'content-type': 'application/pdf', 'content-encoding': 'zstd' }).end(terms);
    else if (at === '/bomb.pdf')
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-encoding': 'gzip' }).end(gzipBomb);
    else res.writeHead(404).end('no');
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  origin?.close();
});

/** The render record of an answer, once the render log has it. */
const recordOf = (id: string) => renderRecord(app, key, id);

describe('POST /v1/assemble', () => {
  it('assembles 3 HTML parts and an existing PDF with object streams into one PDF, pages in order, an outline entry per part', async () => {
    const res = await postAssemble(app, key, {
      parts: [
        { html: page('Invoice 2026-001', 'Amount due: 120.00 EUR') },
        { html: page('Delivery note', 'Three boxes'), options: { format: 'A5' } },
        { pdf: terms.toString('base64') },
        { html: page('Receipt', 'Thank you') },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['x-render-id']).toMatch(/^rnd_/);
    expect(res.headers['x-render-warnings']).toBe('0');
    const pdf = res.rawPayload;
    expect(qpdfCheck(pdf).status).toBe(0);
    expect(pageCount(pdf)).toBe(5);
    const texts = pageTexts(pdf);
    expect(texts[0]).toContain('Amount due: 120.00 EUR');
    expect(texts[1]).toContain('Three boxes');
    expect(texts[2]).toContain('Payment is due within 30 days');
    expect(texts[3]).toContain('Governing law');
    expect(texts[4]).toContain('Thank you');
    const entries = outline(pdf);
    expect(entries.map((e) => [e.title, e.page])).toEqual([
      ['Invoice 2026-001', 1],
      ['Delivery note', 2],
      ['Terms and conditions', 3],
      ['Receipt', 5],
    ]);
    // The existing PDF's own outline sits under its entry, landing on its own pages.
    expect(JSON.stringify(entries[2].kids)).toContain('Governing law');

    const record = await recordOf(String(res.headers['x-render-id']));
    expect(record.status).toBe('succeeded');
    expect(record.pages).toBe(5);
    expect(record.part_count).toBe(4);
    expect(record.parts).toEqual([
      { label: 'parts[0]', kind: 'html', pages: 1, warnings: 0 },
      { label: 'parts[1]', kind: 'html', pages: 1, warnings: 0 },
      { label: 'parts[2]', kind: 'pdf', pages: 2, warnings: 0 },
      { label: 'parts[3]', kind: 'html', pages: 1, warnings: 0 },
    ]);
  }, 60_000);

  it('fetches a URL part through the egress policy', async () => {
    const res = await postAssemble(app, key, { parts: [{ html: page('Cover') }, { url: `${base}/terms.pdf?token=s3cret` }] });
    expect(res.statusCode, res.body).toBe(200);
    expect(pageCount(res.rawPayload)).toBe(3);
    const record = await recordOf(String(res.headers['x-render-id']));
    expect((record.parts as Array<Record<string, unknown>>)[1]).toEqual({
      label: 'parts[1]',
      kind: 'url',
      pages: 2,
      warnings: 0,
      url: `${base}/terms.pdf?token=…`,
    });
  }, 30_000);

  it('labels each warning with its part, and strict handling turns one into 422', async () => {
    const failing =
      '<!doctype html><html lang="en"><title>Broken</title><p>x</p><script>throw new Error("no total")</script></html>';
    const body = { parts: [{ html: page('Fine') }, { html: failing }] };
    const lenient = await postAssemble(app, key, body);
    expect(lenient.statusCode, lenient.body).toBe(200);
    expect(lenient.headers['x-render-warnings']).toBe('1');
    const record = await recordOf(String(lenient.headers['x-render-id']));
    const warnings = record.warnings as Array<Record<string, unknown>>;
    expect(warnings).toHaveLength(1);
    expect(warnings[0].part).toBe('parts[1]');
    expect(String(warnings[0].message)).toMatch(/^parts\[1\]: /);
    expect((record.parts as Array<Record<string, unknown>>)[1].warnings).toBe(1);

    const strict = await postAssemble(app, key, body, { prefer: 'handling=strict' });
    expect(strict.statusCode).toBe(422);
    expect(strict.headers['preference-applied']).toBe('handling=strict');
    expect(strict.json().error.code).toBe('RENDER_INCOMPLETE');
    expect(strict.json().error.message).toContain('parts[1]: ');
  }, 30_000);
});

describe('POST /v1/assemble refuses bad input with a 4xx naming the part', () => {
  const cases: Array<[string, unknown, number, string, RegExp]> = [
    ['no parts', { parts: [] }, 400, 'INVALID_REQUEST', /^parts: must not be empty/],
    ['no parts field', {}, 400, 'INVALID_REQUEST', /^parts: required/],
    [
      'more parts than ASSEMBLE_MAX_PARTS',
      { parts: Array.from({ length: 7 }, () => ({ html: '<p>x</p>' })) },
      400,
      'INVALID_REQUEST',
      /^parts: 7 parts is more than the limit of 6 \(ASSEMBLE_MAX_PARTS\)$/,
    ],
    [
      'an unknown top-level field',
      { parts: [{ html: '<p>x</p>' }], html: '<p>x</p>' },
      400,
      'INVALID_REQUEST',
      /^html: unknown field$/,
    ],
    [
      'an unknown part field',
      { parts: [{ html: '<p>x</p>', subtitle: 'x' }] },
      400,
      'INVALID_REQUEST',
      /^parts\[0\]\.subtitle: unknown field$/,
    ],
    [
      'two kinds in a part',
      { parts: [{ html: '<p>x</p>', pdf: 'JVBERi0=' }] },
      400,
      'INVALID_REQUEST',
      /^parts\[0\]: give one of html, pdf, url or file, not html and pdf$/,
    ],
    [
      'a bad option',
      { parts: [{ html: '<p>x</p>' }, { html: '<p>y</p>', options: { format: 'B9' } }] },
      400,
      'INVALID_REQUEST',
      /^parts\[1\]\.options\.format: /,
    ],
    [
      'a non-PDF',
      { parts: [{ html: '<p>x</p>' }, { pdf: Buffer.from('GIF89a hello').toString('base64') }] },
      400,
      'INVALID_REQUEST',
      /^parts\[1\]: not a PDF/,
    ],
    ['data that is not base64', { parts: [{ pdf: 'not base64!' }] }, 400, 'INVALID_REQUEST', /^parts\[0\]\.pdf: not base64/],
    [
      'a URL part that is not http(s)',
      { parts: [{ url: 'file:///etc/passwd' }] },
      400,
      'INVALID_REQUEST',
      /^parts\[0\]\.url: must be http/,
    ],
    [
      'an unknown permission',
      { parts: [{ html: '<p>x</p>' }], protect: { owner_password: 'o', allow: ['everything'] } },
      400,
      'INVALID_REQUEST',
      /^protect\.allow\[0\]: /,
    ],
    [
      'protect without an owner password',
      { parts: [{ html: '<p>x</p>' }], protect: { user_password: 'u' } },
      400,
      'INVALID_REQUEST',
      /^protect\.owner_password: required$/,
    ],
  ];
  for (const [what, body, status, code, message] of cases) {
    it(what, async () => {
      const res = await postAssemble(app, key, body);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json().error.code).toBe(code);
      expect(res.json().error.message).toMatch(message);
      expect(res.headers['x-render-id']).toMatch(/^rnd_/);
    });
  }

  it('an encrypted PDF part', async () => {
    const res = await postAssemble(app, key, {
      parts: [{ html: page('Cover') }, { pdf: fixture('terms-encrypted.pdf').toString('base64') }],
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().error.code).toBe('PART_FAILED');
    expect(res.json().error.message).toMatch(/^parts\[1\]: /);
  }, 30_000);

  it('a PDF part with a broken cross-reference table', async () => {
    const res = await postAssemble(app, key, { parts: [{ pdf: fixture('terms-broken-xref.pdf').toString('base64') }] });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().error.code).toBe('PART_FAILED');
    expect(res.json().error.message).toMatch(/^parts\[0\]: /);
  });

  it('follows a redirect whose Location is raw UTF-8 to the address a browser would ask for', async () => {
    const res = await postAssemble(app, key, { parts: [{ url: `${base}/moved-utf8.pdf` }] });
    expect(res.statusCode, res.body).toBe(200);
    expect(pageTexts(res.rawPayload)[0]).toContain('Payment is due within 30 days');
  });

  it('reads a URL part sent compressed (gzip whatever was asked); a bomb stops at the cap, an unknown coding is named', async () => {
    const res = await postAssemble(app, key, { parts: [{ url: `${base}/stored-gzip.pdf` }] });
    expect(res.statusCode, res.body).toBe(200);
    expect(pageTexts(res.rawPayload)[0]).toContain('Payment is due within 30 days');
    const bomb = await postAssemble(app, key, { parts: [{ url: `${base}/bomb.pdf` }] });
    expect(bomb.statusCode, bomb.body).toBe(422);
    expect(bomb.json().error).toEqual({
      code: 'PART_FAILED',
      message: 'parts[0]: the PDF at its address is larger than 67108864 bytes once decompressed',
    });
    const zstd = await postAssemble(app, key, { parts: [{ url: `${base}/zstd.pdf` }] });
    expect(zstd.statusCode, zstd.body).toBe(422);
    expect(zstd.json().error).toEqual({
      code: 'PART_FAILED',
      message: `parts[0]: ${base}/zstd.pdf answered in the content coding "zstd", which is not read (gzip, br and deflate are)`,
    });
  }, 30_000);

  it('a URL part that answers 404, or is not a PDF, or the egress policy refuses', async () => {
    const missing = await postAssemble(app, key, { parts: [{ html: page('Cover') }, { url: `${base}/gone.pdf` }] });
    expect(missing.statusCode, missing.body).toBe(422);
    expect(missing.json().error).toEqual({ code: 'PART_FAILED', message: `parts[1]: ${base}/gone.pdf answered HTTP 404` });
    const html = await postAssemble(app, key, { parts: [{ url: `${base}/page.html` }] });
    expect(html.statusCode).toBe(422);
    expect(html.json().error.message).toMatch(/^parts\[0\]: what .* answered is not a PDF$/);
    const refused = await postAssemble(app, key, { parts: [{ url: 'http://10.0.0.1/terms.pdf' }] });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toMatch(/^parts\[0\]\.url: not allowed: .*EGRESS_ALLOW/);
    const redirected = await postAssemble(app, key, { parts: [{ url: `${base}/moved.pdf` }] });
    expect(redirected.statusCode).toBe(400);
    expect(redirected.json().error).toEqual({
      code: 'INVALID_REQUEST',
      message:
        'parts[0].url: not allowed: it redirects to http://10.0.0.1/terms.pdf?token=…: address 10.0.0.1 is private (EGRESS_ALLOW lets an operator allow it)',
    });
  }, 30_000);

  it('counts each part against the rate limit', async () => {
    const limited = await createKey(core, 'render');
    await core.accounts.setLimit(limited.accountId, 'render', 4);
    const three = await postAssemble(app, limited.key, {
      parts: [{ pdf: terms.toString('base64') }, { pdf: terms.toString('base64') }, { pdf: terms.toString('base64') }],
    });
    expect(three.statusCode, three.body).toBe(200);
    expect(three.headers.ratelimit).toMatch(/r=1;/);
    const two = await postAssemble(app, limited.key, {
      parts: [{ pdf: terms.toString('base64') }, { pdf: terms.toString('base64') }],
    });
    expect(two.statusCode).toBe(429);
    expect(two.json().error.code).toBe('RATE_LIMITED');
    expect(two.headers['retry-after']).toBeDefined();
  }, 30_000);

  it('leaves POST /v1/render as it was: parts is an unknown field there', async () => {
    const res = await postRender(app, key, { html: '<p>x</p>', parts: [] });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('parts: unknown field');
  });
});
