/**
 * Keeping some of a PDF's pages (a part's `pages` and `rotate`, a split's files) on a real render: a
 * three-chapter document with a contents page linking to each chapter, tagged and declaring PDF/A-3b and
 * PDF/UA-1. What is taken out takes its outline entries, links and named destinations with it, as qpdf
 * and poppler read the file; what is left still passes veraPDF.
 */

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepPages } from '../../src/pdf/assemble/keep-pages.js';
import { PageSelectionError, pageIndexes } from '../../src/pdf/assemble/page-ranges.js';
import { postRender } from '../helpers/render.js';
import { pdfOutline, pdfPageTexts, pdfStructure, qpdfCheck } from '../render/pdf-tools.js';
import { internalLinks, xmpClaimsOf } from './assemble-tools.js';
import { type DeclarationsApp, startDeclarationsApp } from './declarations-app.js';
import { VERAPDF, VERAPDF_SKIPPED, verapdf } from './verapdf.js';

/** Contents on page 1 linking to chapters on pages 2–4. */
function chaptersDocument(profiles = 'PDF/A-3b, PDF/UA-1'): string {
  const chapters = [1, 2, 3]
    .map((n) => `<section id="ch${n}"><h2>Chapter ${n}</h2><p>The text of chapter ${n}.</p></section>`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Chapters</title>
<meta name="pdf-profile" content="${profiles}">
<style>section, nav { break-after: page; } section:last-child { break-after: auto; } body { font: 12pt serif; }</style></head>
<body><nav><h1>Chapters</h1><ul>${[1, 2, 3].map((n) => `<li><a href="#ch${n}">Go to chapter ${n}</a></li>`).join('')}</ul></nav>
${chapters}</body></html>`;
}

let ctx: DeclarationsApp;
let doc: Buffer;

beforeAll(async () => {
  ctx = await startDeclarationsApp({ allowLoopback: false });
  const res = await postRender(ctx.app, ctx.key, { html: chaptersDocument() });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  doc = res.rawPayload;
}, 120_000);
afterAll(() => ctx?.close());

function rotations(pdf: Buffer): number[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-rot-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.pdf'), pdf);
    const json = JSON.parse(execFileSync('qpdf', ['--json', '--json-key=pages', path.join(dir, 'a.pdf')], { encoding: 'utf8' }));
    const objects = JSON.parse(
      execFileSync('qpdf', ['--json=2', '--json-key=qpdf', path.join(dir, 'a.pdf')], { encoding: 'utf8' }),
    ).qpdf[1];
    return json.pages.map((p: { object: string }) => Number(objects[`obj:${p.object}`].value['/Rotate'] ?? 0));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('page selections', () => {
  it('reads "1-3,5", "2-", "!1", "-1" and refuses what names no page, naming the field', () => {
    expect(pageIndexes('1-3,5', 6, 'f')).toEqual([0, 1, 2, 4]);
    expect(pageIndexes('2-', 4, 'f')).toEqual([1, 2, 3]);
    expect(pageIndexes('!1', 4, 'f')).toEqual([1, 2, 3]);
    expect(pageIndexes('-1', 4, 'f')).toEqual([3]);
    expect(pageIndexes('!1,!-1', 4, 'f')).toEqual([1, 2]);
    expect(() => pageIndexes('1-7', 5, 'parts[2].pages')).toThrow("parts[2].pages: page 7 is past the document's 5 pages");
    expect(() => pageIndexes('x', 5, 'parts[2].pages')).toThrow(PageSelectionError);
    expect(() => pageIndexes('3-1', 5, 'f')).toThrow('runs backwards');
    expect(() => pageIndexes('!1-5', 5, 'f')).toThrow('keeps none of the 5 pages');
  });
});

describe('keepPages', () => {
  it('keeps pages 1, 2 and 4: chapter 2 takes its outline entry, its link and its destination with it', async () => {
    expect(pdfPageTexts(doc)).toHaveLength(4);
    expect(internalLinks(doc)).toEqual([
      { on: 1, to: 2 },
      { on: 1, to: 3 },
      { on: 1, to: 4 },
    ]);
    const kept = await keepPages(doc, { label: 'parts[0]', pages: '!3' });
    const pdf = kept.pdf;
    expect(kept.pages).toBe(3);
    expect(qpdfCheck(pdf).status, qpdfCheck(pdf).output).toBe(0);
    const texts = pdfPageTexts(pdf);
    expect(texts.map((t) => /Chapters|Chapter \d/.exec(t)?.[0])).toEqual(['Chapters', 'Chapter 1', 'Chapter 3']);
    // No link lands on a page that is gone: the one to chapter 2 is removed, the others follow their pages.
    expect(internalLinks(pdf)).toEqual([
      { on: 1, to: 2 },
      { on: 1, to: 3 },
    ]);
    const titles = JSON.stringify(pdfOutline(pdf));
    expect(titles).toContain('Chapter 3');
    expect(titles).not.toContain('Chapter 2');
    expect(
      JSON.stringify(
        pdfOutline(pdf).flatMap(function all(e): unknown[] {
          return [e.page, ...e.kids.flatMap(all)];
        }),
      ),
    ).not.toMatch(/null|-1|0\b/);
    // Chapter 2's structure elements went with its page.
    expect(pdfStructure(doc).match(/\bH2\b/g)).toHaveLength(3);
    expect(pdfStructure(pdf).match(/\bH2\b/g)).toHaveLength(2);
    expect(xmpClaimsOf(pdf)).toEqual(['PDF/A-3b', 'PDF/UA-1']);
    if (!VERAPDF) return console.log(VERAPDF_SKIPPED);
    expect(verapdf({ kept: pdf }, '3b')).toEqual({ kept: [] });
    expect(verapdf({ kept: pdf }, 'ua1')).toEqual({ kept: [] });
  }, 120_000);

  it('turns every kept page by 90, 180 or 270 degrees', async () => {
    const turned = await keepPages(doc, { label: 'parts[0]', pages: '-1', rotate: 270 });
    expect(turned.pages).toBe(1);
    expect(rotations(turned.pdf)).toEqual([270]);
    expect(pdfPageTexts(turned.pdf)[0]).toContain('Chapter 3');
    const again = await keepPages(turned.pdf, { label: 'parts[0]', rotate: 180 });
    expect(rotations(again.pdf)).toEqual([90]);
  }, 60_000);
});
