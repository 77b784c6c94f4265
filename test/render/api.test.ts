/**
 * POST /v1/render through the real app (real Chromium, real SQLite keys): page sizes, background,
 * margins, and every 4xx row of the error table with its exact status, code and JSON shape.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { firstWordBox, pdfInfo, pdfStructure, pixel } from './pdf-tools.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let metadataKey: string;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '2' });
  app = await buildRenderApp(core, { lookup: noDns });
  key = (await createKey(core, 'render')).key;
  metadataKey = (await createKey(core, 'metadata')).key;
});

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

function render(body: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return postRender(app, key, body, headers);
}

function expectError(res: LightMyRequestResponse, status: number, code: string, message?: string | RegExp): void {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['x-render-id']).toMatch(/^rnd_[0-9a-f]{24}$/);
  const body = res.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  if (typeof message === 'string') expect(body.error.message).toBe(message);
  else if (message) expect(body.error.message).toMatch(message);
}

const PT = 72;
const MM = 72 / 25.4;
const TEXT = '<html><body style="margin:0"><p style="margin:0;font:20px sans-serif">Hello</p></body></html>';

describe('successful renders', () => {
  it('returns the raw PDF with exact Content-Length and a unique X-Render-ID', async () => {
    const [a, b] = await Promise.all([render({ html: TEXT }), render({ html: TEXT, output: 'pdf' })]);
    for (const res of [a, b]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(Number(res.headers['content-length'])).toBe(res.rawPayload.length);
      expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
      expect(res.headers['x-render-id']).toMatch(/^rnd_[0-9a-f]{24}$/);
    }
    expect(a.headers['x-render-id']).not.toBe(b.headers['x-render-id']);
  });

  it('twelve renders at once are all served, and the service prints no warning', async () => {
    // Each render in flight holds a listener on its pool's drain signal until it ends; past ten, Node's
    // default would print a possible-memory-leak warning on every busy instance's stderr.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const results = await Promise.all(Array.from({ length: 12 }, () => render({ html: TEXT })));
      await new Promise((resolve) => setImmediate(resolve));
      expect(results.map((res) => res.statusCode)).toEqual(Array(12).fill(200));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  const sizes: Array<[string, Record<string, unknown>, number, number]> = [
    ['A3', { format: 'A3' }, 297 * MM, 420 * MM],
    ['A4 (default)', {}, 210 * MM, 297 * MM],
    ['A5', { format: 'a5' }, 148 * MM, 210 * MM],
    ['Letter', { format: 'Letter' }, 8.5 * PT, 11 * PT],
    ['Legal', { format: 'LEGAL' }, 8.5 * PT, 14 * PT],
    ['Tabloid', { format: 'Tabloid' }, 11 * PT, 17 * PT],
  ];
  const cases: Array<[string, Record<string, unknown>, number, number]> = [
    ...sizes,
    ...sizes.map(([name, o, w, h]): [string, Record<string, unknown>, number, number] => [
      `${name} landscape`,
      { ...o, landscape: true },
      h,
      w,
    ]),
    ['width+height (landscape ignored)', { format: 'A3', landscape: true, width: '100mm', height: '5in' }, 100 * MM, 5 * PT],
    ['width only', { format: 'Letter', width: '480px' }, 5 * PT, 11 * PT],
    ['height only (landscape Letter)', { format: 'Letter', landscape: true, height: '10cm' }, 11 * PT, (100 / 25.4) * PT],
  ];

  it('produces the MediaBox of every format, orientation and custom size (±1.5 pt)', async () => {
    const results = await Promise.all(cases.map(([, options]) => render({ html: TEXT, options })));
    results.forEach((res, i) => {
      const [name, , width, height] = cases[i];
      expect(res.statusCode, name).toBe(200);
      const info = pdfInfo(res.rawPayload);
      expect(Math.abs(info.width - width), `${name} width ${info.width} vs ${width}`).toBeLessThanOrEqual(1.5);
      expect(Math.abs(info.height - height), `${name} height ${info.height} vs ${height}`).toBeLessThanOrEqual(1.5);
    });
  });

  it('printBackground paints the body background', async () => {
    const html = '<html><body style="background:rgb(255,0,0);margin:0">x</body></html>';
    const [plain, painted] = await Promise.all([render({ html }), render({ html, options: { printBackground: true } })]);
    expect(pixel(plain.rawPayload, 50, 100)).toEqual([255, 255, 255]);
    const [r, g, b] = pixel(painted.rawPayload, 50, 100);
    expect(r).toBeGreaterThan(240);
    expect(g).toBeLessThan(20);
    expect(b).toBeLessThan(20);
  });

  it('prints a tagged PDF whose structure tree holds the heading and the paragraph', async () => {
    const res = await render({ html: '<h1>Quarterly report</h1><p>Revenue grew.</p>' });
    expect(res.statusCode).toBe(200);
    expect(pdfInfo(res.rawPayload).tagged).toBe(true);
    const structure = pdfStructure(res.rawPayload);
    expect(structure).toMatch(/^\s*H1\b/m);
    expect(structure).toMatch(/^\s*P\b/m);
  });

  it('a 1in margin moves the first text by 1in (±2 pt)', async () => {
    const [plain, margined] = await Promise.all([
      render({ html: TEXT }),
      render({ html: TEXT, options: { margin: { top: '1in', left: '1in', bottom: '0mm', right: '0cm' } } }),
    ]);
    const a = firstWordBox(plain.rawPayload);
    const b = firstWordBox(margined.rawPayload);
    expect(a.word).toBe('Hello');
    expect(b.word).toBe('Hello');
    expect(Math.abs(b.xMin - a.xMin - 72)).toBeLessThanOrEqual(2);
    expect(Math.abs(b.yMin - a.yMin - 72)).toBeLessThanOrEqual(2);
  });
});

describe('400 INVALID_REQUEST names the field', () => {
  it.each([
    ['malformed JSON', '{"html": "x",', /^body: not valid JSON/],
    ['a JSON array', '[]', 'body: must be a JSON object, got an array'],
    ['unknown top-level field', { html: 'x', extra: 1 }, 'extra: unknown field'],
    ['unknown option', { html: 'x', options: { colour: 'red' } }, 'options.colour: unknown field'],
    ['unknown margin member', { html: 'x', options: { margin: { middle: '1mm' } } }, 'options.margin.middle: unknown field'],
    ['missing html', { options: {} }, 'html: required'],
    ['empty html', { html: '' }, 'html: must not be empty'],
    ['html of the wrong type', { html: 42 }, 'html: must be a string, got number 42'],
    ['output other than pdf', { html: 'x', output: 'png' }, 'output: "png" is not supported (only "pdf")'],
    [
      'unknown format',
      { html: 'x', options: { format: 'B5' } },
      'options.format: "B5" is not a supported format (A3, A4, A5, Letter, Legal, Tabloid)',
    ],
    ['scale below 0.1', { html: 'x', options: { scale: 0.05 } }, 'options.scale: 0.05 is out of range (0.1 to 2.0)'],
    ['scale above 2.0', { html: 'x', options: { scale: 2.5 } }, 'options.scale: 2.5 is out of range (0.1 to 2.0)'],
    ['scale as a string', { html: 'x', options: { scale: '1' } }, 'options.scale: must be a number, got string "1"'],
    [
      'landscape as a string',
      { html: 'x', options: { landscape: 'true' } },
      'options.landscape: must be a boolean (true or false), got string "true"',
    ],
    [
      'dimension without a valid unit',
      { html: 'x', options: { margin: { top: '10pt' } } },
      'options.margin.top: "10pt" is not a dimension (mm, cm, in, px)',
    ],
    ['width without unit', { html: 'x', options: { width: '210' } }, 'options.width: "210" is not a dimension (mm, cm, in, px)'],
    [
      'page side over 200in',
      { html: 'x', options: { width: '201in', height: '1in' } },
      'options.width: "201in" is larger than 200in',
    ],
    ['zero page side', { html: 'x', options: { height: '0mm' } }, 'options.height: "0mm" must be greater than 0'],
    [
      'margins that leave no printable area',
      { html: 'x', options: { format: 'A5', margin: { left: '80mm', right: '70mm' } } },
      'options.margin: left "80mm" + right "70mm" leave no printable width on a page 148mm wide',
    ],
    [
      'a page narrower than a pixel, without margins',
      { html: 'x', options: { width: '0.5px' } },
      'options.width: "0.5px" leaves no printable width (a page must be at least 1px wide)',
    ],
    [
      'a page lower than a pixel, without margins',
      { html: 'x', options: { height: '0.9px' } },
      'options.height: "0.9px" leaves no printable height (a page must be at least 1px tall)',
    ],
    [
      'a page of 0.0001mm, without margins',
      { html: 'x', options: { width: '0.0001mm', margin: { top: '1mm' } } },
      'options.width: "0.0001mm" leaves no printable width (a page must be at least 1px wide)',
    ],
    [
      'a margin on a page of 0.0001mm',
      { html: 'x', options: { width: '0.0001mm', margin: { left: '1px' } } },
      'options.margin: left "1px" leaves no printable width on a page 0.0001mm wide',
    ],
  ])('%s', async (_name, body, message) => {
    expectError(await render(body), 400, 'INVALID_REQUEST', message);
  });

  it('an empty body with the JSON content type', async () => {
    expectError(await render(''), 400, 'INVALID_REQUEST', /^body: /);
  });
});

describe('other rows of the error table', () => {
  it('401 UNAUTHORIZED: missing, malformed, unknown key, or a metadata key', async () => {
    const body = JSON.stringify({ html: 'x' });
    const send = (headers: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url: '/v1/render',
        headers: { 'content-type': 'application/json', ...headers },
        payload: body,
      });
    expectError(await send({}), 401, 'UNAUTHORIZED', /missing API key/);
    expectError(await send({ authorization: 'Basic abc' }), 401, 'UNAUTHORIZED', 'malformed API key');
    expectError(await send({ authorization: `Bearer pwr_live_${'0'.repeat(32)}` }), 401, 'UNAUTHORIZED');
    expectError(await send({ authorization: `Bearer ${metadataKey}` }), 401, 'UNAUTHORIZED', /not a render key/);
  });

  it('404 NOT_FOUND and 405 METHOD_NOT_ALLOWED in the same shape', async () => {
    expectError(await app.inject({ method: 'GET', url: '/v1/nothing' }), 404, 'NOT_FOUND');
    const res = await app.inject({ method: 'GET', url: '/v1/render' });
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toBe('POST');
    expectError(await app.inject({ method: 'DELETE', url: '/v1/health' }), 405, 'METHOD_NOT_ALLOWED');
  });

  it('415 UNSUPPORTED_MEDIA_TYPE for a body that is not JSON', async () => {
    expectError(await render('html=x', { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(await render('html=x', { 'content-type': 'application/x-www-form-urlencoded' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('413 PAYLOAD_TOO_LARGE above 10 MiB of UTF-8; exactly 10 MiB of quotes and newlines is accepted', async () => {
    const limit = 10 * 1024 * 1024;
    // JSON-escaped this doubles (\" and \n): the body is ~20 MiB and must still be read. The quotes sit
    // in a comment so Chromium does not spend seconds laying out five million lines.
    const atLimit = `<p>ok</p><!--${'"\n'.repeat((limit - 16) / 2)}-->`;
    expect(Buffer.byteLength(atLimit)).toBe(limit);
    const ok = await render({ html: atLimit });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toBe('application/pdf');
    expectError(await render({ html: `${atLimit}y` }), 413, 'PAYLOAD_TOO_LARGE', /^html: 10485761 bytes/);
    // Multi-byte characters count as their UTF-8 bytes: 3,495,254 × "€" is 10,485,762 bytes.
    expectError(await render({ html: '€'.repeat(3_495_254) }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('413 PAYLOAD_TOO_LARGE for a body too large to hold any valid request', async () => {
    const res = await render(`{"html":"${'\\u0041'.repeat(11 * 1024 * 1024)}"}`);
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('422 RENDER_FAILED when the document crashes its renderer (JS heap cap), and the next render succeeds', async () => {
    const res = await render({ html: '<script>const a = []; for (;;) a.push(new Array(1e6).fill(1.5));</script>' });
    expectError(res, 422, 'RENDER_FAILED', /crashed the renderer/);
    expect((await render({ html: TEXT })).statusCode).toBe(200);
  });

  it('429 RATE_LIMITED with Retry-After once the account is over its limit', async () => {
    const other = await createKey(core, 'render');
    await core.accounts.setLimit(other.accountId, 'render', 1);
    const send = () => render({ html: 'x', options: { format: 'nope' } }, { authorization: `Bearer ${other.key}` });
    expect((await send()).statusCode).toBe(400);
    const res = await send();
    expectError(res, 429, 'RATE_LIMITED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('OpenAPI', () => {
  it('serves /openapi.json generated from the schema, and the docs page', async () => {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    const op = doc.paths['/v1/render'].post;
    const schema = op.requestBody.content['application/json'].schema;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['html']);
    expect(schema.properties.options.properties.margin.properties.top.pattern).toBe('^\\d+(\\.\\d+)?(mm|cm|in|px)$');
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '413', '415', '429', '503', '504']));
    expect(doc.paths['/v1/health'].get.responses['200']).toBeDefined();
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const docs = await app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('swagger-ui');
  });
});
