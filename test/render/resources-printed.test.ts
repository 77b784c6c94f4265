/**
 * A document's images and style sheets are waited for as its load event waits for them, however long they
 * take within the render timeout, and not only for RENDER_IDLE_MAX_MS: a logo from a slow server prints,
 * a style sheet that arrives late still styles the page, and nothing is reported missing that printed.
 * What printed as a broken image without any request failing is reported too: an address relative to a
 * document that has none, an image whose bytes are not one; a `<base href>` makes relative addresses work.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { createEgressPolicy } from '../../src/net/policy.js';
import type { RenderRecord } from '../../src/report/report.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { startRenderService } from '../helpers/render-service.js';
import { pdfText, pixel } from './pdf-tools.js';

/** Far longer than the idle wait below, far shorter than the render timeout. */
const LATE_MS = 1200;
const RED_SQUARE =
  '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="#f00"/></svg>';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let server: http.Server;
let base = '';
const records: RenderRecord[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const late = (type: string, body: string) =>
      setTimeout(() => res.writeHead(200, { 'content-type': type }).end(body), LATE_MS);
    if (req.url === '/logo.svg') late('image/svg+xml', RED_SQUARE);
    else if (req.url === '/site.css') late('text/css', '.unstyled { display: none }');
    else if (req.url === '/photo.png') res.writeHead(200, { 'content-type': 'image/png' }).end('not a png at all');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  core = await createTestCore();
  const policy = createEgressPolicy({ allow: ['127.0.0.1/32'], lookup: noDns });
  app = await startRenderService(
    core,
    { policy, concurrency: 1, queueLimit: 4, timeoutMs: 15_000, idleMaxMs: 200 },
    { record: (r) => records.push(r) },
  );
  ({ key } = await createKey(core, 'render'));
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe('a document whose resources arrive late', () => {
  it('prints the late image, styled by the late style sheet, and reports nothing missing', async () => {
    const html =
      `<!doctype html><html><head><link rel="stylesheet" href="${base}/site.css"></head>` +
      `<body style="margin:0"><p class="unstyled">UNSTYLED</p><p>Logo:</p><img src="${base}/logo.svg" style="display:block;width:288px;height:288px"></body></html>`;
    const res = await postRender(app, key, {
      html,
      options: { margin: { top: '0in', right: '0in', bottom: '0in', left: '0in' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-render-warnings']).toBe('0');
    expect(records.find((r) => r.id === res.headers['x-render-id'])?.warnings).toEqual([]);
    const text = pdfText(res.rawPayload);
    expect(text).toContain('Logo:');
    expect(text).not.toContain('UNSTYLED');
    // The square's middle (about 1.5 in down, 1.5 in across; at 20 dpi, pixel 30, 40) is the logo's red.
    expect(pixel(res.rawPayload, 30, 40)).toEqual([255, 0, 0]);
  }, 60_000);
});

describe('a document whose images print broken without a failed request', () => {
  const html = (head: string) =>
    `<!doctype html><html><head>${head}</head><body><p>Invoice</p><img src="logo.svg" alt="logo"><img src="${base}/photo.png" alt="photo"></body></html>`;

  it('names a relative address and an image that is not one; strict handling refuses the PDF', async () => {
    const res = await postRender(app, key, { html: html('') });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-render-warnings']).toBe('2');
    const warnings = records.find((r) => r.id === res.headers['x-render-id'])?.warnings;
    expect(warnings?.map((w) => [w.kind, 'error' in w ? w.error : undefined, 'url' in w ? w.url : undefined])).toEqual([
      ['resource_failed', 'relative', 'logo.svg'],
      ['resource_failed', 'undecodable', `${base}/photo.png`],
    ]);
    const strict = await postRender(app, key, { html: html('') }, { prefer: 'handling=strict' });
    expect(strict.statusCode).toBe(422);
    expect(strict.json().error.code).toBe('RENDER_INCOMPLETE');
  }, 60_000);

  it('with a <base href>, the relative logo loads and only the broken photo is named', async () => {
    const res = await postRender(app, key, { html: html(`<base href="${base}/">`) });
    expect(res.statusCode, res.body).toBe(200);
    const warnings = records.find((r) => r.id === res.headers['x-render-id'])?.warnings;
    expect(warnings?.map((w) => ('url' in w ? w.url : w.kind))).toEqual([`${base}/photo.png`]);
  }, 60_000);
});
