/**
 * docs/standards.md's worked PDF/UA-1 example, rendered as the page shows it: it claims PDF/A-3b and
 * PDF/UA-1, has no conformance warning, and veraPDF accepts it for both (so the page stays true).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { postRender } from '../helpers/render.js';
import { type DeclarationsApp, startDeclarationsApp } from './declarations-app.js';
import { VERAPDF, VERAPDF_SKIPPED, verapdf } from './verapdf.js';

const page = fs.readFileSync(new URL('../../docs/standards.md', import.meta.url), 'utf8');
const section = page.slice(page.indexOf('## PDF/UA-1'));
const example = /```html\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

let ctx: DeclarationsApp;
beforeAll(async () => {
  ctx = await startDeclarationsApp({ allowLoopback: false });
});
afterAll(() => ctx?.close());

it('the worked PDF/UA-1 example claims PDF/A-3b and PDF/UA-1 and passes veraPDF for both', async () => {
  expect(example).toContain('<meta name="pdf-profile" content="PDF/A-3b, PDF/UA-1">');
  const res = await postRender(ctx.app, ctx.key, { html: example });
  expect(res.statusCode).toBe(200);
  // Its logo's host does not resolve in tests: a resource warning, no conformance one.
  expect(ctx.recordOf(res.headers['x-render-id']).warnings.filter((w) => w.kind === 'conformance')).toEqual([]);
  const xmp = res.rawPayload.toString('latin1');
  expect(xmp).toMatch(/pdfaid:part(>|=")3/);
  expect(xmp).toMatch(/pdfuaid:part(>|=")1/);
  if (!VERAPDF) {
    console.log(VERAPDF_SKIPPED);
    return;
  }
  expect(verapdf({ example: res.rawPayload }, '3b')).toEqual({ example: [] });
  expect(verapdf({ example: res.rawPayload }, 'ua1')).toEqual({ example: [] });
});
