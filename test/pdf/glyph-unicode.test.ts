/**
 * PDF/A-2u asks every glyph a page shows to map to Unicode. Chromium maps the glyphs of characters, not
 * every variant a font substitutes: in Noto Sans Thai (fonts-noto-core) the tone mark of หนี้, stacked over
 * a vowel, is one, and its ToUnicode value is U+0000. Such a document gets a `conformance` warning naming
 * the font and the page and no `u` claim, where the same text declared PDF/A-2b is claimed; veraPDF, asked
 * for 2u, fails that PDF on the same rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postRender } from '../helpers/render.js';
import { type DeclarationsApp, startDeclarationsApp } from './declarations-app.js';
import { VERAPDF, VERAPDF_SKIPPED, verapdf } from './verapdf.js';

let ctx: DeclarationsApp;
beforeAll(async () => {
  ctx = await startDeclarationsApp({ allowLoopback: false });
});
afterAll(() => ctx?.close());

const thai = (profile: string, word: string) =>
  `<!doctype html><html lang="th"><head><meta name="pdf-profile" content="${profile}"><title>ใบแจ้งหนี้</title>` +
  `<style>body { font-family: 'Noto Sans Thai' }</style></head><body><p>${word}</p></body></html>`;

/** What the PDF's XMP claims of PDF/A: part and conformance, e.g. `2U`; empty when nothing. */
function pdfaClaim(pdf: Buffer): string {
  const text = pdf.toString('latin1');
  const part = /<pdfaid:part>(\d)<\/pdfaid:part>/.exec(text)?.[1] ?? '';
  const level = /<pdfaid:conformance>([A-Z])<\/pdfaid:conformance>/.exec(text)?.[1] ?? '';
  return part + level;
}

async function render(html: string): Promise<{ pdf: Buffer; warnings: string; id: unknown }> {
  const res = await postRender(ctx.app, ctx.key, { html });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return { pdf: res.rawPayload, warnings: String(res.headers['x-render-warnings']), id: res.headers['x-render-id'] };
}

const made: Record<string, Buffer> = {};

describe('a glyph without a Unicode value', () => {
  it('keeps PDF/A-2u from being claimed, with a warning naming the font and the page', async () => {
    const { pdf, warnings, id } = await render(thai('PDF/A-2u', 'หนี้'));
    expect(warnings).toBe('1');
    expect(ctx.recordOf(id).warnings).toEqual([
      {
        kind: 'conformance',
        profile: 'PDF/A-2u',
        clause: '6.2.11.7.2-2',
        element: 'font NotoSansThai-Regular (page 1)',
        message:
          'The font NotoSansThai-Regular on page 1 has a glyph without a Unicode value, so that text cannot be searched, ' +
          'copied or read aloud. Chromium maps the glyphs of characters, not every variant a font substitutes (for example a ' +
          'Thai tone mark stacked over a vowel, as in หนี้, in Noto Sans Thai): set that text in another font',
      },
    ]);
    expect(pdfaClaim(pdf)).toBe('');
  });

  it('says it once for a font Chromium wrote as two objects (a heading and the text)', async () => {
    // Without a font-family the heading falls back to Noto Sans Thai Regular made bold, which Chromium writes as
    // a Type 3 font beside the Type 0 one of the paragraph.
    const html = thai('PDF/UA-1', 'หนี้')
      .replace(/<style>.*<\/style>/, '')
      .replace('<p>', '<h1>หนี้</h1><p>');
    const { warnings, id } = await render(html);
    expect(warnings).toBe('1');
    const [entry] = ctx.recordOf(id).warnings;
    expect(entry).toMatchObject({ profile: 'PDF/UA-1', clause: '7.21.7-2', element: 'font NotoSansThai-Regular (page 1)' });
    expect(entry?.message).toMatch(/^The font NotoSansThai-Regular on page 1 has 2 glyphs without a Unicode value/);
  });

  it('leaves PDF/A-2b, which asks for no Unicode, claimed', async () => {
    const { pdf, warnings } = await render(thai('PDF/A-2b', 'หนี้'));
    expect(warnings).toBe('0');
    expect(pdfaClaim(pdf)).toBe('2B');
    made.stacked = pdf;
  });

  it('is not found in Thai without such a variant: PDF/A-2u claimed', async () => {
    const { pdf, warnings } = await render(thai('PDF/A-2u', 'สวัสดี'));
    expect(warnings).toBe('0');
    expect(pdfaClaim(pdf)).toBe('2U');
    made.plain = pdf;
  });

  it('veraPDF agrees: the plain word passes 2u, the stacked fails it on 6.2.11.7.2-2, passes 2b', { timeout: 120_000 }, () => {
    if (!VERAPDF) {
      console.log(VERAPDF_SKIPPED);
      return;
    }
    const as2u = verapdf({ plain: made.plain as Buffer, stacked: made.stacked as Buffer }, '2u');
    expect(as2u.plain).toEqual([]);
    expect(as2u.stacked).toContain('6.2.11.7.2-2');
    expect(verapdf({ stacked: made.stacked as Buffer }, '2b').stacked).toEqual([]);
  });
});
