/**
 * Every document of the shared render corpus renders through the API with its expected page count
 * (counts determined once by inspecting the PDFs: A4, default options; the external logo of
 * invoice-simple is refused by the egress policy and the document still renders).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { postRender } from '../helpers/render.js';
import { pdfInfo, pdfText } from './pdf-tools.js';

const CORPUS = path.resolve(import.meta.dirname, '../../../shared/corpus/render');
const EXPECTED: Record<string, { pages: number; text: string; landscape?: boolean }> = {
  'invoice-40-rows.html': { pages: 2, text: 'Invoice #2026-0042' },
  'invoice-400-rows.html': { pages: 10, text: 'Invoice #2026-0042' },
  'invoice-fonts.html': { pages: 1, text: 'Invoice number: 12345' },
  'invoice-simple.html': { pages: 1, text: 'Invoice #: 123' },
  'letter.html': { pages: 1, text: 'Cher Aurélien Leno' },
  'report.html': { pages: 6, text: 'Report example' },
  // The document's own `@page { size: landscape }` turns the A4 sheet: the request sets no size.
  'ticket.html': { pages: 1, text: 'THÉODORE MARCELIN', landscape: true },
};

let core: CoreDeps;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '2' });
  app = await buildRenderApp(core, {
    lookup: async (host) => {
      throw Object.assign(new Error(`no DNS in tests (${host})`), { code: 'ENOTFOUND' });
    },
  });
  key = (await createKey(core, 'render')).key;
});

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

it('the corpus is the one the expectations were made for', () => {
  expect(
    fs
      .readdirSync(CORPUS)
      .filter((f) => f.endsWith('.html'))
      .sort(),
  ).toEqual(Object.keys(EXPECTED).sort());
});

it('every corpus document renders with its page count', async () => {
  const names = Object.keys(EXPECTED);
  const results = await Promise.all(
    names.map((name) => postRender(app, key, { html: fs.readFileSync(path.join(CORPUS, name), 'utf8') })),
  );
  results.forEach((res, i) => {
    const name = names[i];
    const expected = EXPECTED[name];
    expect(res.statusCode, name).toBe(200);
    const info = pdfInfo(res.rawPayload);
    expect(info.pages, name).toBe(expected.pages);
    const [short, long] = [210 * (72 / 25.4), 297 * (72 / 25.4)];
    const [w, h] = expected.landscape ? [long, short] : [short, long];
    expect(Math.abs(info.width - w), name).toBeLessThanOrEqual(1.5);
    expect(Math.abs(info.height - h), name).toBeLessThanOrEqual(1.5);
    expect(pdfText(res.rawPayload), name).toContain(expected.text);
  });
});
