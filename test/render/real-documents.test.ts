/**
 * Documents real customers send (test/fixtures/render), rendered through the real render app with the
 * default timeout and read back as a person would check them: every string there, no empty-box glyph,
 * the page count, page-number footers, a table header on every page, animations at their end state and
 * content a script draws after load.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { annexLabel, reportDocument, rowLabel, tableDocument } from '../fixtures/render/generated.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { glyphReport } from './pdf-glyphs.js';
import { darkestIn, pdfFonts, pdfInfo, pdfPageTexts, pdfText, wordBoxes } from './pdf-tools.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/render');

let core: CoreDeps;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  // RENDER_TIMEOUT_MS stays at its default (30 s): the big documents must fit in what users get.
  core = await createTestCore({ RENDER_CONCURRENCY: '2' });
  app = await buildRenderApp(core, { lookup: noDns });
  key = (await createKey(core, 'render')).key;
});

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

async function render(html: string): Promise<Buffer> {
  const res = await postRender(app, key, { html });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  expect(res.headers['content-type']).toBe('application/pdf');
  return res.rawPayload;
}

function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), 'utf8');
}

/** pdftotext marks right-to-left runs with bidi controls; a reader sees none of them. */
function visible(text: string): string {
  return text.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
}

/** Every word of every string is in the PDF's text (layout mode may put a cell's words on separate lines). */
function expectWords(pdf: Buffer, strings: string[]): void {
  const text = visible(pdfText(pdf));
  const missing = strings.flatMap((s) => s.split(/\s+/)).filter((word) => word !== '' && !text.includes(word));
  expect(missing).toEqual([]);
}

/** No glyph drawn is a .notdef (empty box), and the check saw at least `atLeast` glyphs. */
function expectNoEmptyBoxes(pdf: Buffer, atLeast: number): ReturnType<typeof glyphReport> {
  const report = glyphReport(pdf);
  expect(report.notdef).toEqual([]);
  expect(report.glyphs).toBeGreaterThanOrEqual(atLeast);
  return report;
}

describe('the empty-box check', () => {
  it('finds .notdef glyphs: unassigned code points in a TrueType font and in a CFF (Type3) CJK font', async () => {
    const pdf = await render(
      '<p style="font:20px sans-serif">Unassigned: \u0378 and \u0379</p>' +
        '<p style="font:20px \'Noto Sans CJK JP\'">山田 \u0378</p>',
    );
    const report = glyphReport(pdf);
    expect(report.notdef).toEqual([
      { page: 1, font: expect.stringMatching(/LiberationSans|DejaVuSans/), count: 2 },
      { page: 1, font: expect.stringMatching(/NotoSansCJKjp/), count: 1 },
    ]);
    // The same document without those characters: nothing found.
    expect(
      glyphReport(
        await render('<p style="font:20px sans-serif">Unassigned: and</p><p style="font:20px \'Noto Sans CJK JP\'">山田</p>'),
      ).notdef,
    ).toEqual([]);
  });
});

describe('every script', () => {
  it('multi-script invoice: all names present, Noto fonts for CJK, Indic, Thai and colour emoji, no empty box', async () => {
    const pdf = await render(fixture('multi-script-invoice.html'));
    expect(pdfInfo(pdf).pages).toBe(1);
    expectWords(pdf, [
      'Émilie Dubois-Łukasiewicz',
      'Αλέξανδρος Παπαδόπουλος',
      'Дмитрий Иванов',
      '山田太郎',
      '東京オフィス 設置作業',
      '王小明 上海办公室 培训课程',
      '陳大文 臺北辦公室 顧問服務',
      '김민준 서울 사무소 유지보수',
      'محمد العلي',
      'דוד כהן',
      'नमस्ते, अनन्या शर्मा',
      'সৌরভ',
      'முருகன்',
      'สวัสดี สมชาย',
      'Invoice 🚀',
      '🚀🎉',
      'Total due 6,875.00',
      'Ευχαριστώ Спасибо ありがとう 谢谢 謝謝 감사합니다 תודה धन्यवाद நன்றி ขอบคุณ 🙏',
    ]);
    // pdffonts: every font embedded (rows: name, type, [type], encoding, emb, sub, uni, id); the TrueType
    // Noto fonts by name (CFF and bitmap fonts are Type 3 there, named only in their descriptors: glyphReport).
    const table = pdfFonts(pdf)
      .split('\n')
      .slice(2)
      .filter((l) => l.trim() !== '');
    expect(table.filter((row) => !/\syes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/.test(row))).toEqual([]);
    for (const name of ['NotoSansDevanagari', 'NotoSansBengali', 'NotoSansTamil', 'NotoSansThai'])
      expect(table.join('\n')).toContain(name);
    const { fonts } = expectNoEmptyBoxes(pdf, 800);
    for (const family of [
      /NotoSansCJK/,
      /NotoColorEmoji/,
      /NotoSansDevanagari/,
      /NotoSansBengali/,
      /NotoSansTamil/,
      /NotoSansThai/,
    ]) {
      expect(
        fonts.some((f) => family.test(f)),
        `${family} in ${fonts.join(', ')}`,
      ).toBe(true);
    }
  });

  it('RTL letter: Arabic and Hebrew present, right-aligned, no empty box', async () => {
    const pdf = await render(fixture('rtl-letter.html'));
    expectWords(pdf, ['السيد محمد العلي المحترم', 'تحية طيبة', 'بتاريخ اليوم', 'לכבוד מר דוד כהן', 'שלום רב', 'בברכה']);
    expectNoEmptyBoxes(pdf, 250);
    const { width } = pdfInfo(pdf);
    const words = wordBoxes(pdf, 1);
    // pdftotext -bbox gives right-to-left words in visual order (characters reversed).
    const arabicName = words.find((w) => [...visible(w.word)].reverse().join('') === 'السيد');
    const date = words.find((w) => w.word.includes('2026-11-24'));
    // dir=rtl: lines start at the right margin; the date is explicitly left-aligned.
    expect(arabicName?.xMax).toBeGreaterThan(width * 0.75);
    expect(date?.xMin).toBeLessThan(width * 0.25);
  });

  it('emoji ticket: colour emoji (ZWJ sequence and flag included) and no empty box', async () => {
    const pdf = await render(fixture('emoji-ticket.html'));
    expect(pdfInfo(pdf).pages).toBe(1);
    expectWords(pdf, ['🚀 Rocket Air', 'Boarding pass', 'LHR ➜ HND', 'Ada Lovelace', 'Seat 14A', '🎫🎉', 'Have a good flight']);
    const { fonts } = expectNoEmptyBoxes(pdf, 120);
    expect(fonts.some((f) => /NotoColorEmoji/.test(f))).toBe(true);
  });
});

describe('animations and late content', () => {
  it('animated landing section: the fading, sliding heading, a transition and a WAAPI fade print at their end state', async () => {
    const pdf = await render(fixture('animated-landing.html'));
    expectWords(pdf, [
      'Ship documents faster',
      'Pixel-perfect PDFs',
      'New in 2026',
      'Start free trial',
      'Trusted by 1,200 teams',
    ]);
    const words = wordBoxes(pdf, 1);
    const box = (word: string) => {
      const found = words.find((w) => w.word === word);
      if (!found) throw new Error(`no word "${word}" on page 1`);
      return found;
    };
    // Full opacity: black (heading) and dark blue (button) ink, not a half-faded grey.
    expect(darkestIn(pdf, 1, box('Ship'))).toBeLessThan(60);
    expect(darkestIn(pdf, 1, box('Pixel-perfect'))).toBeLessThan(60);
    expect(darkestIn(pdf, 1, box('Trusted'))).toBeLessThan(60);
    expect(darkestIn(pdf, 1, box('Start'))).toBeLessThan(110);
    // Slid in: the heading starts at the same left edge as the paragraph under it.
    expect(Math.abs(box('Ship').xMin - box('Pixel-perfect').xMin)).toBeLessThan(2);
  });

  it('chart drawn by a script after a timer, awaited through window.pageworksReady (a Promise)', async () => {
    const pdf = await render(fixture('late-chart.html'));
    const text = pdfText(pdf);
    expectWords(pdf, [
      'Revenue by quarter',
      'Q1 2026: 120k',
      'Q2 2026: 180k',
      'Q3 2026: 150k',
      'Q4 2026: 210k',
      'Chart drawn from 4 data points',
    ]);
    expect(text).not.toContain('Loading chart');
  });

  it('table filled after load while window.pageworksReady is false', async () => {
    const pdf = await render(fixture('late-table.html'));
    expectWords(pdf, ['Stock levels', 'Widget A', '42 in stock', 'Widget B', '7 in stock', 'Gadget C', '19 in stock']);
  });
});

describe('long documents', () => {
  it('300-row table: the header row on every page, every row once, no row split across pages', async () => {
    const pdf = await render(tableDocument(300));
    const pages = pdfPageTexts(pdf).map(visible);
    expect(pages.length).toBe(pdfInfo(pdf).pages);
    expect(pages.length).toBeGreaterThanOrEqual(6);
    for (const [i, page] of pages.entries()) expect(page, `page ${i + 1}`).toMatch(/Line\s+Description\s+Qty\s+Amount/);
    const pagesWith = (text: string) => pages.map((p, n) => (p.includes(text) ? n + 1 : 0)).filter((n) => n > 0);
    for (let i = 1; i <= 300; i++) {
      expect(pagesWith(rowLabel(i)), rowLabel(i)).toHaveLength(1);
      // Every seventh row has four lines: its last line is on its first line's page.
      if (i % 7 === 0) expect(pagesWith(annexLabel(i)), annexLabel(i)).toEqual(pagesWith(rowLabel(i)));
    }
  });

  it('100-page report within the default timeout: "Page N of M" and the running header on every page', {
    timeout: 90_000,
  }, async () => {
    const started = Date.now();
    const pdf = await render(reportDocument(100));
    const ms = Date.now() - started;
    expect(ms).toBeLessThan(core.config.renderTimeoutMs);
    const pages = pdfPageTexts(pdf);
    expect(pdfInfo(pdf).pages).toBe(100);
    expect(pages).toHaveLength(100);
    pages.forEach((page, i) => {
      expect(page).toContain(`Page ${i + 1} of 100`);
      expect(page).toContain('Northwind annual report 2026');
      expect(page).toContain(`Chapter ${i + 1}: Regional results`);
    });
    expect(pages[99].trimEnd().split('\n').at(-1)?.trim()).toBe('Page 100 of 100');
    expectNoEmptyBoxes(pdf, 50_000);
  });
});
