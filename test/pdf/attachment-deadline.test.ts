/**
 * An attachment that drips a byte a second, or never answers, has its own deadline (a third of the render
 * timeout, at most 10 s): it becomes a `resource_failed` (timeout) warning and the render goes on, with the
 * rest of what the document declared, instead of the whole render ending in 504 at the render timeout.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postRender } from '../helpers/render.js';
import { type DeclarationsApp, startDeclarationsApp } from './declarations-app.js';

/** Small, so the test is quick: attachments then get 3 s. */
const RENDER_TIMEOUT_MS = 9_000;

let ctx: DeclarationsApp;
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/drip.txt') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      const timer = setInterval(() => res.write('x'), 1000);
      res.on('close', () => clearInterval(timer));
    }
    // /hang.txt: never answers.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ctx = await startDeclarationsApp({ allowLoopback: true, env: { RENDER_TIMEOUT_MS: String(RENDER_TIMEOUT_MS) } });
});
afterAll(async () => {
  await ctx?.close();
  server?.closeAllConnections();
  server?.close();
});

describe('an attachment that drips or hangs', () => {
  it('is a resource_failed timeout warning, and the render answers 200 in time with its claim', { timeout: 60_000 }, async () => {
    const html =
      '<!doctype html><html lang="en"><head><meta name="pdf-profile" content="PDF/A-3b"><title>Invoice</title>' +
      `<link rel="attachment" href="${base}/drip.txt" title="drip.txt"><link rel="attachment" href="${base}/hang.txt" title="hang.txt">` +
      '</head><body><h1>Invoice</h1></body></html>';
    const started = Date.now();
    const res = await postRender(ctx.app, ctx.key, { html });
    const took = Date.now() - started;
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(took).toBeLessThan(RENDER_TIMEOUT_MS);
    const record = ctx.recordOf(res.headers['x-render-id']);
    expect(record.warnings.map((w) => (w.kind === 'resource_failed' ? `${w.url} ${w.error}` : w.kind))).toEqual([
      `${base}/drip.txt timeout`,
      `${base}/hang.txt timeout`,
    ]);
    expect(record.claims).toEqual(['PDF/A-3b']);
  });
});
