/**
 * Finishing an assembly through POST /v1/assemble (real Chromium, real SQLite): a part's title, pages and
 * rotation, the assembly's metadata, and what is refused — each bad value a 4xx naming its field.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { internalLinks } from '../pdf/assemble-tools.js';
import { VERAPDF, VERAPDF_SKIPPED, verapdf } from '../pdf/verapdf.js';
import { catalogEntries, claimsHeader, pageRotations, pdfInfoFields } from './finishing-tools.js';
import { fixture, outline, page, pageCount, pageTexts, postAssemble, qpdfCheck } from './helpers.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let accountId: string;

const terms = fixture('terms-objstm.pdf');

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '2', ASSEMBLE_MAX_PARTS: '6' });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  ({ key, accountId } = await createKey(core, 'render'));
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

/** Three pages linking to each other: a contents page and two chapters. */
function chapters(title: string): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title><style>section { break-after: page; } section:last-child { break-after: auto; }</style></head>
<body><section><h1>${title}</h1><a href="#c1">Chapter one</a> <a href="#c2">Chapter two</a></section>
<section id="c1"><h2>One</h2><p>First chapter</p></section><section id="c2"><h2>Two</h2><p>Second chapter</p></section></body></html>`;
}

describe('part title, pages and rotate', () => {
  it('names each part’s outline entry by its title, an existing PDF’s too', async () => {
    const res = await postAssemble(app, key, {
      parts: [
        { html: page('Invoice'), title: 'Invoice 7' },
        { pdf: terms.toString('base64'), title: 'Our terms' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(outline(res.rawPayload).map((e) => [e.title, e.page])).toEqual([
      ['Invoice 7', 1],
      ['Our terms', 2],
    ]);
  }, 60_000);

  it('keeps the pages asked for, in order; what is taken out takes its outline entries and links with it', async () => {
    const res = await postAssemble(app, key, {
      parts: [
        { html: chapters('Guide'), pages: '!2' },
        { pdf: terms.toString('base64'), pages: '-1', title: 'Terms, last page' },
        { html: page('Receipt', 'Thank you'), rotate: 90 },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = res.rawPayload;
    expect(qpdfCheck(pdf).status, qpdfCheck(pdf).output).toBe(0);
    expect(pageCount(pdf)).toBe(4);
    const texts = pageTexts(pdf);
    expect(texts[0]).toContain('Chapter one');
    expect(texts[1]).toContain('Second chapter');
    expect(texts[2]).toContain('Governing law');
    expect(texts[3]).toContain('Thank you');
    expect(pageRotations(pdf)).toEqual([0, 0, 0, 90]);
    // The link to chapter one (page 2, taken out) is gone; the one to chapter two lands on its new page.
    expect(internalLinks(pdf)).toEqual([{ on: 1, to: 2 }]);
    const entries = outline(pdf);
    const all = (items: typeof entries): Array<[string, number]> => items.flatMap((e) => [[e.title, e.page], ...all(e.kids)]);
    expect(entries.map((e) => [e.title, e.page])).toEqual([
      ['Guide', 1],
      ['Terms, last page', 3],
      ['Receipt', 4],
    ]);
    expect(all(entries).map(([t]) => t)).not.toContain('One');
    for (const [, target] of all(entries)) expect(target).toBeGreaterThan(0);
    // The terms' own outline keeps only the entry of its last page.
    expect(all(entries[1].kids).map(([t, p]) => [t, p])).toEqual([['Governing law', 3]]);
  }, 60_000);

  const refused: Array<[string, Record<string, unknown>, number, string]> = [
    [
      'a page past the part’s pages',
      { pdf: terms.toString('base64'), pages: '1-7' },
      400,
      "parts[0].pages: page 7 is past the document's 2 pages",
    ],
    ['a selection that is not one', { html: page('x'), pages: 'first' }, 400, 'parts[0].pages: "first" is not a page selection'],
    ['a rotation of 45', { html: page('x'), rotate: 45 }, 400, 'parts[0].rotate: number 45 is not a rotation'],
    ['a title that is not a string', { html: page('x'), title: 7 }, 400, 'parts[0].title: must be a string'],
  ];
  for (const [what, part, status, message] of refused)
    it(`refuses ${what}, naming the field`, async () => {
      const res = await postAssemble(app, key, { parts: [part] });
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json().error.message).toContain(message);
    }, 30_000);
});

describe('metadata', () => {
  it('gives the assembly its own title, author, subject, keywords and language in the Info and the XMP, the title as the window title', async () => {
    const declared = (title: string) =>
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><meta name="pdf-profile" content="PDF/A-3b, PDF/UA-1"></head><body><h1>${title}</h1><p>Text of ${title}</p></body></html>`;
    const res = await postAssemble(app, key, {
      parts: [{ html: declared('First part') }, { html: declared('Second part') }],
      metadata: {
        title: 'Statement März 2026',
        author: 'Northwind Ltd',
        subject: 'Monthly statement',
        keywords: 'statement, 2026',
        lang: 'de-CH',
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = res.rawPayload;
    expect(qpdfCheck(pdf).status, qpdfCheck(pdf).output).toBe(0);
    const info = pdfInfoFields(pdf);
    expect([info.Title, info.Author, info.Subject, info.Keywords]).toEqual([
      'Statement März 2026',
      'Northwind Ltd',
      'Monthly statement',
      'statement, 2026',
    ]);
    expect(info.xmp).toContain('Statement März 2026');
    expect(info.xmp).toContain('<pdfuaid:part>1</pdfuaid:part>');
    expect(catalogEntries(pdf)).toMatchObject({ '/Lang': 'u:de-CH', '/ViewerPreferences': { '/DisplayDocTitle': true } });
    expect(claimsHeader(res)).toEqual(['PDF/A-3b', 'PDF/UA-1']);
    if (!VERAPDF) return console.log(VERAPDF_SKIPPED);
    expect(verapdf({ meta: pdf }, '3b')).toEqual({ meta: [] });
    expect(verapdf({ meta: pdf }, 'ua1')).toEqual({ meta: [] });
  }, 120_000);

  it("leaves nothing of the first part's replaced title anywhere in the file, not even in an earlier revision", async () => {
    const draft = 'Internal draft for Jane';
    const first = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${draft}</title><meta name="pdf-profile" content="PDF/A-3b"></head><body><h1>Statement</h1><p>Balance 12.00</p></body></html>`;
    // The part's own title would be its outline entry, which a reader sees; the caller names that entry too.
    const res = await postAssemble(app, key, {
      parts: [{ html: first, title: 'Statement' }],
      metadata: { title: 'Statement 42' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = res.rawPayload;
    expect(pdfInfoFields(pdf).Title).toBe('Statement 42');
    // Every stream inflated, every object written out, whether a trailer still points at it or not.
    const file = path.join(os.tmpdir(), `pw-titled-${process.pid}.pdf`);
    fs.writeFileSync(file, pdf);
    const qdf = spawnSync('qpdf', ['--qdf', '--object-streams=disable', '--preserve-unreferenced', file, '-'], {
      maxBuffer: 64 * 1024 * 1024,
    });
    fs.rmSync(file);
    const expanded = qdf.stdout.toString('latin1');
    const utf16 = Buffer.from(`\ufeff${draft}`, 'utf16le').swap16().toString('hex');
    expect(expanded).toContain('Statement 42');
    expect(expanded).not.toContain(draft);
    expect(expanded.toLowerCase()).not.toContain(utf16);
    expect(pdf.toString('latin1')).not.toContain(draft);
    expect(claimsHeader(res)).toEqual(['PDF/A-3b']);
    if (!VERAPDF) return console.log(VERAPDF_SKIPPED);
    expect(verapdf({ titled: pdf }, '3b')).toEqual({ titled: [] });
  }, 120_000);

  it("keeps the first part's title and PDF/UA-1 where metadata gives a blank title, as a blank part title does", async () => {
    const declared = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Statement 7</title><meta name="pdf-profile" content="PDF/UA-1"></head><body><h1>Statement 7</h1><p>Balance 7.00</p></body></html>`;
    const pdfs: Record<string, Buffer> = {};
    for (const [name, title] of [
      ['empty', ''],
      ['spaces', '   '],
    ]) {
      const res = await postAssemble(app, key, { parts: [{ html: declared, title }], metadata: { title, author: '' } });
      expect(res.statusCode, res.body).toBe(200);
      pdfs[name] = res.rawPayload;
      expect(pdfInfoFields(pdfs[name]).Title, name).toBe('Statement 7');
      // The render's record (the dashboard's "What it printed") names the title the PDF shows.
      expect((await app.renderLog.find(String(res.headers['x-render-id']), accountId))?.title, name).toBe('Statement 7');
      expect(outline(pdfs[name]).map((e) => e.title)).toEqual(['Statement 7']);
      expect(claimsHeader(res)).toEqual(['PDF/UA-1']);
    }
    if (!VERAPDF) return console.log(VERAPDF_SKIPPED);
    expect(verapdf(pdfs, 'ua1')).toEqual({ empty: [], spaces: [] });
  }, 120_000);

  it('refuses a language that is not a language tag, and an unknown field, naming them', async () => {
    const bad = await postAssemble(app, key, { parts: [{ html: page('x') }], metadata: { lang: 'not a tag' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/^metadata\.lang: "not a tag" is not a BCP 47 language tag/);
    const unknown = await postAssemble(app, key, { parts: [{ html: page('x') }], metadata: { creator: 'me' } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.message).toBe('metadata.creator: unknown field');
  });
});
