/**
 * The render corpus renders through the API with each document's expected page count, sheet size and text:
 * the documents written here always, and the pages saved from real sites when PAGEWORKS_CORPUS_DIR names
 * them (counts determined once by inspecting the PDFs: A4, default options; remote images are refused by
 * the egress policy and the document still renders).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { type CorpusDocument, corpusDocuments } from '../fixtures/corpus/documents.js';
import { EXTRA_CORPUS_SKIPPED, extraCorpusDir } from '../fixtures/corpus/index.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { pdfInfo, pdfText } from './pdf-tools.js';

/** The saved real documents and what each prints. */
const EXTRA: Record<string, Omit<CorpusDocument, 'name' | 'html'>> = {
  'invoice-40-rows.html': { pages: 2, text: 'Invoice #2026-0042' },
  'invoice-400-rows.html': { pages: 10, text: 'Invoice #2026-0042' },
  'invoice-fonts.html': { pages: 1, text: 'Invoice number: 12345' },
  'invoice-simple.html': { pages: 1, text: 'Invoice #: 123' },
  'letter.html': { pages: 1, text: 'Cher Aurélien Leno' },
  'report.html': { pages: 6, text: 'Report example' },
  // The document's own `@page { size: landscape }` turns the A4 sheet: the request sets no size.
  'ticket.html': { pages: 1, text: 'THÉODORE MARCELIN', landscape: true },
};
const EXTRA_DIR = extraCorpusDir('render');
if (!EXTRA_DIR) console.warn(`\n*** ${EXTRA_CORPUS_SKIPPED} ***\n`);

let core: CoreDeps;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '2' });
  app = await buildRenderApp(core, { lookup: noDns });
  key = (await createKey(core, 'render')).key;
});

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

/** Renders every document (two at a time, the render slots) and checks each PDF as a reader would. */
async function expectRendered(documents: CorpusDocument[]): Promise<void> {
  const results = await Promise.all(documents.map((d) => postRender(app, key, { html: d.html })));
  results.forEach((res, i) => {
    const doc = documents[i]!;
    expect(res.statusCode, doc.name).toBe(200);
    const info = pdfInfo(res.rawPayload);
    expect(info.pages, doc.name).toBe(doc.pages);
    const [short, long] = [210 * (72 / 25.4), 297 * (72 / 25.4)];
    const [w, h] = doc.landscape ? [long, short] : [short, long];
    expect(Math.abs(info.width - w), doc.name).toBeLessThanOrEqual(1.5);
    expect(Math.abs(info.height - h), doc.name).toBeLessThanOrEqual(1.5);
    expect(pdfText(res.rawPayload), doc.name).toContain(doc.text);
  });
}

it('every document of the corpus written here renders with its page count, sheet and text', async () => {
  await expectRendered(corpusDocuments());
});

describe.skipIf(!EXTRA_DIR)('pages saved from real sites (PAGEWORKS_CORPUS_DIR)', () => {
  const dir = EXTRA_DIR ?? '';

  it('the saved corpus is the one the expectations were made for', () => {
    const names = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.html'))
      .sort();
    expect(names).toEqual(Object.keys(EXTRA).sort());
  });

  it('every saved document renders with its page count, sheet and text', async () => {
    await expectRendered(
      Object.entries(EXTRA).map(([name, e]) => ({ name, html: fs.readFileSync(path.join(dir, name), 'utf8'), ...e })),
    );
  });
});
