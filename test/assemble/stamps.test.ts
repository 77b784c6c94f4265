/**
 * POST /v1/assemble with `stamps`, read back with real tools: pdftotext finds "Page k of N" on every page
 * of a 3-part assembly and part-local numbers where asked; numbered parts declaring PDF/A-3b and PDF/UA-1
 * still claim both and pass veraPDF; the raster shows the number where the stamp put it and the content
 * untouched under a watermark; bad stamps are 4xx naming them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { parseMetrics, sample } from '../helpers/prometheus.js';
import { noDns } from '../helpers/render.js';
import { VERAPDF, VERAPDF_SKIPPED, verapdf } from '../pdf/verapdf.js';
import { pixel } from '../render/pdf-tools.js';
import { claimsHeader, pdfInfoFields } from './finishing-tools.js';
import { fixture, page, pageCount, pageTexts, pdfOfObjects, postAssemble, qpdfCheck, renderRecord } from './helpers.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
const terms = fixture('terms-objstm.pdf');

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '2' });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  key = (await createKey(core, 'render')).key;
}, 60_000);
afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

const footer = '<div style="position:absolute; bottom:20pt; right:30pt; font: 10pt sans-serif">Page {{page}} of {{pages}}</div>';

function declared(title: string, pages = 1): string {
  const body = Array.from(
    { length: pages },
    (_, i) => `<section><h1>${title} ${i + 1}</h1><p>Text of ${title}</p></section>`,
  ).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><meta name="pdf-profile" content="PDF/A-3b, PDF/UA-1"><style>section { break-after: page; } section:last-child { break-after: auto; }</style></head><body>${body}</body></html>`;
}

/**
 * Page `n` as a reader shows it: its crop box, turned by its /Rotate (pdftoppm -cropbox), at 20 dpi; its size
 * in pixels and the colour at a pixel.
 */
function viewed(pdf: Buffer, n: number): { width: number; height: number; at(x: number, y: number): number[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-stamp-'));
  try {
    fs.writeFileSync(path.join(dir, 'x.pdf'), pdf);
    const ppm = execFileSync('pdftoppm', ['-cropbox', '-r', '20', '-f', String(n), '-l', String(n), path.join(dir, 'x.pdf')]);
    const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(ppm.subarray(0, 64).toString('latin1'));
    if (!header) throw new Error('pdftoppm did not write a binary PPM');
    const [width, height] = [Number(header[1]), Number(header[2])];
    const at = (x: number, y: number) => {
      const offset = header[0].length + (y * width + x) * 3;
      return [...ppm.subarray(offset, offset + 3)];
    };
    return { width, height, at };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Five Letter pages as scanners and print shops make them: plain; cut to a crop box an inch in; turned 90°
 * by its own /Rotate; turned 270° by the page tree node above it; turned 180° on a media box that does not
 * start at the origin.
 */
function turnedAndCroppedPdf(): Buffer {
  const page = (parent: number, extra: string) => `<< /Type /Page /Parent ${parent} 0 R /Contents 9 0 R ${extra} >>`;
  return pdfOfObjects(
    '1.4',
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R 8 0 R 7 0 R] /Count 5 /MediaBox [0 0 612 792] >>',
      page(2, ''),
      page(2, '/CropBox [72 72 540 720]'),
      page(2, '/Rotate 90'),
      page(8, ''),
      page(2, '/Rotate 180 /MediaBox [100 100 712 892]'),
      '<< /Type /Pages /Parent 2 0 R /Kids [6 0 R] /Count 1 /Rotate 270 >>',
      '<< /Length 0 >>\nstream\n\nendstream',
    ],
    '/Root 1 0 R',
  );
}

describe('stamps', () => {
  it('numbers every page of a 3-part assembly "Page k of N", and part-local numbers where asked', async () => {
    const res = await postAssemble(app, key, {
      parts: [
        { html: page('Statement', 'Balance 10') },
        { pdf: terms.toString('base64'), title: 'Terms' },
        { html: page('Receipt') },
      ],
      stamps: [
        { html: footer },
        {
          html: '<p style="position:absolute; top:10pt; left:30pt; font: 9pt serif">{{part_title}} {{part_page}}/{{part_pages}}</p>',
          pages: '2-3',
        },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = res.rawPayload;
    expect(qpdfCheck(pdf).status, qpdfCheck(pdf).output).toBe(0);
    expect(pageCount(pdf)).toBe(4);
    const texts = pageTexts(pdf);
    for (const [i, text] of texts.entries()) expect(text).toContain(`Page ${i + 1} of 4`);
    expect(texts[1]).toContain('Terms 1/2');
    expect(texts[2]).toContain('Terms 2/2');
    expect(texts[0]).not.toContain('/2');
    expect(texts[1]).toContain('Payment is due within 30 days');
  }, 120_000);

  it('keeps PDF/A-3b and PDF/UA-1 on numbered, watermarked parts (veraPDF 3b and ua1)', async () => {
    const res = await postAssemble(app, key, {
      parts: [{ html: declared('Invoice') }, { html: declared('Report', 2) }],
      stamps: [
        { html: footer },
        {
          html: '<div style="position:absolute; top:300pt; left:150pt; font: bold 90pt sans-serif; color:#f0b0b0">PAID</div>',
          layer: 'under',
          pages: '1',
        },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = res.rawPayload;
    expect(claimsHeader(res)).toEqual(['PDF/A-3b', 'PDF/UA-1']);
    const texts = pageTexts(pdf);
    for (const [i, text] of texts.entries()) expect(text).toContain(`Page ${i + 1} of 3`);
    expect(texts[0]).toContain('PAID');
    if (!VERAPDF) return console.log(VERAPDF_SKIPPED);
    expect(verapdf({ stamped: pdf }, '3b')).toEqual({ stamped: [] });
    expect(verapdf({ stamped: pdf }, 'ua1')).toEqual({ stamped: [] });
  }, 180_000);

  it('draws the number where the stamp put it, and leaves the content whole under a watermark', async () => {
    const res = await postAssemble(app, key, {
      parts: [
        {
          html: '<!doctype html><title>Box</title><div style="position:absolute; left:0; top:0; width:300pt; height:200pt; background:#0000ff"></div>',
          options: { printBackground: true },
        },
      ],
      stamps: [
        {
          html: '<div style="position:absolute; top:0; left:0; width:400pt; height:400pt; background:#ff0000"></div>',
          layer: 'under',
        },
        { html: '<div style="position:absolute; right:0; bottom:0; width:100pt; height:100pt; background:#00ff00"></div>' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = res.rawPayload;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-stamp-'));
    fs.writeFileSync(path.join(dir, 'x.pdf'), pdf);
    execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', path.join(dir, 'x.pdf'), path.join(dir, 'x')]);
    // 72 dpi points → pixels at 20 dpi (pixel() renders at that): the content's blue box stays blue over the red
    // watermark, the red shows beside it, and the green square sits in the bottom-right corner.
    expect(pixel(pdf, 50, 30)).toEqual([0, 0, 255]);
    expect(pixel(pdf, 90, 80)).toEqual([255, 0, 0]);
    const [w, h] = [Math.round((595.28 / 72) * 20), Math.round((841.89 / 72) * 20)];
    expect(pixel(pdf, w - 5, h - 5)).toEqual([0, 255, 0]);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('stands upright in the corner it names as a reader sees the page: cropped, turned by /Rotate or by rotate', async () => {
    const res = await postAssemble(app, key, {
      parts: [{ pdf: turnedAndCroppedPdf().toString('base64') }, { html: page('Turned'), rotate: 90 }],
      stamps: [
        {
          html:
            '<div style="position:absolute; right:0; bottom:0; width:60pt; height:60pt; background:#00ff00"></div>' +
            '<div style="position:absolute; left:0; top:0; width:60pt; height:30pt; background:#0000ff"></div>',
        },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = res.rawPayload;
    expect(qpdfCheck(pdf).status, qpdfCheck(pdf).output).toBe(0);
    // Letter at 20 dpi is 170 × 220 pixels, A4 166 × 234; the crop box is 130 × 180; a quarter turn swaps them.
    const sizes = [
      [170, 220],
      [130, 180],
      [220, 170],
      [220, 170],
      [170, 220],
      [234, 166],
    ];
    for (const [k, [width, height]] of sizes.entries()) {
      const shown = viewed(pdf, k + 1);
      expect([shown.width, shown.height], `page ${k + 1}`).toEqual([width, height]);
      // Green in the lower right corner, blue in the upper left, white in the other two: upright, whole.
      expect(shown.at(width - 4, height - 4), `page ${k + 1} lower right`).toEqual([0, 255, 0]);
      expect(shown.at(4, 4), `page ${k + 1} upper left`).toEqual([0, 0, 255]);
      expect(shown.at(width - 4, 4), `page ${k + 1} upper right`).toEqual([255, 255, 255]);
      expect(shown.at(4, height - 4), `page ${k + 1} lower left`).toEqual([255, 255, 255]);
      // The blue band is twice as wide as it is high as the reader sees it: the stamp is not turned.
      expect(shown.at(14, 4), `page ${k + 1}`).toEqual([0, 0, 255]);
      expect(shown.at(4, 14), `page ${k + 1}`).toEqual([255, 255, 255]);
    }
  }, 120_000);

  it('renders each stamp once, whatever sizes its pages have: each page of its document takes its own', async () => {
    const renders = async () =>
      parseMetrics((await app.inject({ url: '/metrics' })).body).get(
        sample('pageworks_renders_total', { service: 'render', outcome: 'ok' }),
      ) ?? 0;
    const before = await renders();
    // Five pages in three sizes as a reader sees them (Letter, its crop box, Letter turned a quarter); no part renders.
    const res = await postAssemble(app, key, {
      parts: [{ pdf: turnedAndCroppedPdf().toString('base64') }],
      stamps: [{ html: footer }, { html: '<p style="position:absolute; top:0; left:0; margin:0">{{page}}</p>', pages: '2-4' }],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await renders()).toBe(before + 2);
    const texts = pageTexts(res.rawPayload);
    for (const [i, text] of texts.entries()) expect(text).toContain(`Page ${i + 1} of 5`);
    expect(viewed(res.rawPayload, 3)).toMatchObject({ width: 220, height: 170 });
  }, 120_000);

  it('a stamp drawing a character no font has takes the claims it breaks away, named; a title of control characters breaks none', async () => {
    const declared = (title: string) =>
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><meta name="pdf-profile" content="PDF/A-2b, PDF/UA-1"></head><body><h1>${title}</h1><p>Text</p></body></html>`;
    // U+E000 is private use: no font on the server draws it, so Chromium shows the .notdef glyph.
    const boxed = await postAssemble(app, key, {
      parts: [{ html: declared('Invoice') }],
      stamps: [{ html: '<p style="position:absolute; bottom:0">\ue000 Page {{page}}</p>' }],
    });
    expect(boxed.statusCode, boxed.body).toBe(200);
    expect(boxed.headers['x-render-claims']).toBeUndefined();
    expect(boxed.headers['x-render-warnings']).toBe('2');
    const warnings = (await renderRecord(app, key, String(boxed.headers['x-render-id']))).warnings as Array<
      Record<string, string>
    >;
    expect(warnings.map((w) => [w.kind, w.profile, w.clause, w.part])).toEqual([
      ['conformance', 'PDF/A-2b', '6.2.11.8-1', 'stamps[0]'],
      ['conformance', 'PDF/UA-1', '7.21.8-1', 'stamps[0]'],
    ]);
    expect(warnings[0].message).toMatch(
      /^stamps\[0\]: The font \S+ on page 1 shows its \.notdef glyph \(an empty box\) for a character /,
    );
    expect(warnings[0].message).toMatch(/; the stamp is drawn on the page, so the assembly does not claim PDF\/A-2b$/);
    // The XMP a reader reads (the last revision's) no longer says so either.
    expect(pdfInfoFields(boxed.rawPayload).xmp).not.toMatch(/pdfaid:part|pdfuaid:part>/);
    // A part title with control characters and noncharacters, filled into a stamp: drawn as the outline shows it.
    const titled = await postAssemble(app, key, {
      parts: [{ html: declared('Statement'), title: 'Statement \u0007\u001b 7 \ufffe' }],
      stamps: [{ html: '<p style="position:absolute; bottom:0">{{part_title}} · {{page}}</p>' }],
    });
    expect(titled.statusCode, titled.body).toBe(200);
    expect(claimsHeader(titled)).toEqual(['PDF/A-2b', 'PDF/UA-1']);
    expect(pageTexts(titled.rawPayload)[0]).toMatch(/Statement +7 +· 1/);
    if (!VERAPDF) return console.log(VERAPDF_SKIPPED);
    expect(verapdf({ titled: titled.rawPayload }, '2b')).toEqual({ titled: [] });
    expect(verapdf({ titled: titled.rawPayload }, 'ua1')).toEqual({ titled: [] });
  }, 120_000);

  it('refuses an 11th stamp, a bad layer and a page past the end, naming them', async () => {
    const eleven = await postAssemble(app, key, {
      parts: [{ html: page('x') }],
      stamps: Array.from({ length: 11 }, () => ({ html: footer })),
    });
    expect(eleven.statusCode).toBe(400);
    expect(eleven.json().error.message).toBe('stamps: 11 stamps is more than the limit of 10');
    const layer = await postAssemble(app, key, { parts: [{ html: page('x') }], stamps: [{ html: footer, layer: 'middle' }] });
    expect(layer.statusCode).toBe(400);
    expect(layer.json().error.message).toMatch(/^stamps\[0\]\.layer: /);
    const past = await postAssemble(app, key, {
      parts: [{ html: page('x') }],
      stamps: [{ html: footer }, { html: footer, pages: '3' }],
    });
    expect(past.statusCode).toBe(400);
    expect(past.json().error.message).toBe("stamps[1].pages: page 3 is past the document's 1 page");
  }, 60_000);
});
