/**
 * One link around a whole book, declared PDF/UA-1: Chromium writes an annotation per line, and each once got
 * the whole link's words as /Contents (189 KB of HTML became a 357 MB PDF, past the render timeout). Each
 * annotation now gets a bounded text: the declared PDF is at most 3× the undeclared one, and it comes in time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postRender } from '../helpers/render.js';
import { type DeclarationsApp, startDeclarationsApp } from './declarations-app.js';

/** The render timeout the app runs with (config.ts's default, RENDER_TIMEOUT_MS). */
const RENDER_TIMEOUT_MS = 30_000;

let ctx: DeclarationsApp;
beforeAll(async () => {
  ctx = await startDeclarationsApp({ allowLoopback: false });
});
afterAll(() => ctx?.close());

/** 20,000 words (about 189 KB) inside one link, with or without a declaration. */
function amplificationDocument(profile?: string): string {
  const words = Array.from({ length: 20_000 }, (_, i) => `word${i % 997}`).join(' ');
  const meta = profile ? `<meta name="pdf-profile" content="${profile}">` : '';
  return (
    `<!doctype html><html lang="en"><head>${meta}<title>Book</title></head>` +
    `<body><h1>Book</h1><p><a href="https://example.com/book">${words}</a></p></body></html>`
  );
}

describe('a link around 20,000 words, declared PDF/UA-1', () => {
  it('answers within the render timeout, at most 3× the size of the same document undeclared', { timeout: 120_000 }, async () => {
    const plain = await postRender(ctx.app, ctx.key, { html: amplificationDocument() });
    expect(plain.statusCode).toBe(200);
    const started = Date.now();
    const declared = await postRender(ctx.app, ctx.key, { html: amplificationDocument('PDF/UA-1') });
    const took = Date.now() - started;
    expect(declared.statusCode, declared.body.slice(0, 200)).toBe(200);
    expect(took).toBeLessThan(RENDER_TIMEOUT_MS);
    const ratio = declared.rawPayload.length / plain.rawPayload.length;
    console.log(
      `undeclared ${plain.rawPayload.length} B, PDF/UA-1 ${declared.rawPayload.length} B (${ratio.toFixed(2)}×) in ${took} ms`,
    );
    expect(ratio).toBeLessThanOrEqual(3);
    // Every annotation still has its alternate text, bounded.
    const contents = [...declared.rawPayload.toString('latin1').matchAll(/\/Contents (\([^)]*\)|<[0-9A-F]*>)/g)].map((m) => m[1]);
    expect(contents.length).toBeGreaterThan(100);
    expect(Math.max(...contents.map((c) => c.length))).toBeLessThanOrEqual(4 * 200 + 8);
  });

  it('with PDF/A-2b too, keeps every /Contents within PDF/A string limits and claims both', { timeout: 120_000 }, async () => {
    const res = await postRender(ctx.app, ctx.key, { html: amplificationDocument('PDF/A-2b, PDF/UA-1') });
    expect(res.statusCode).toBe(200);
    const record = ctx.recordOf(res.headers['x-render-id']);
    expect(record.claims).toEqual(['PDF/A-2b', 'PDF/UA-1']);
  });
});
