/**
 * Factur-X is claimed only for the invoice a reader sees, through POST /v1/render: the amount due
 * (BT-115) and the invoice number (BT-1) must be printed visibly. An amount hidden off the page, in a
 * clipped box, in white, in 0.5 px text or under an opaque box does not count; an amount printed beside
 * a label of the amount due that is not the XML's withholds the claim; an element marked `data-bt` is
 * compared exactly.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportEntry } from '../../src/report/report.js';
import { postRender } from '../helpers/render.js';
import { type DeclarationsApp, startDeclarationsApp, startFileServer } from './declarations-app.js';

const XML = fs.readFileSync(new URL('../fixtures/factur-x/en16931-invoice.xml', import.meta.url));

let ctx: DeclarationsApp;
let files: Awaited<ReturnType<typeof startFileServer>>;
beforeAll(async () => {
  [ctx, files] = await Promise.all([
    startDeclarationsApp({ allowLoopback: true }),
    startFileServer({ '/factur-x.xml': { type: 'application/xml', body: XML } }),
  ]);
});
afterAll(async () => {
  await Promise.all([ctx?.close(), files?.close()]);
});

/** An English invoice PW-2026-0142 (its XML's amount due is 630.00) whose body ends with `body`. */
const invoice = (body: string, options: { number?: string } = {}) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Invoice PW-2026-0142</title>
<meta name="factur-x" content="EN 16931">
<link rel="attachment" href="${files.base}/factur-x.xml" title="factur-x.xml">
<style>body { font-family: sans-serif; font-size: 12pt } td { padding: 4px 12px }</style>
</head><body>
<h1>Invoice ${options.number ?? 'PW-2026-0142'}</h1>
<p>Atelier Lumière, 12 rue des Arts, 75003 Paris</p>
<table><tr><td>Logo design</td><td>450.00</td></tr><tr><td>Business cards, box of 250</td><td>75.00</td></tr>
<tr><td>VAT 20 %</td><td>105.00</td></tr></table>
${body}
</body></html>`;

/** What a render claims in its XMP, and its conformance warnings as [clause, message]. */
async function render(html: string) {
  const res = await postRender(ctx.app, ctx.key, { html });
  expect(res.statusCode).toBe(200);
  const warnings = ctx.recordOf(res.headers['x-render-id']).warnings as ReportEntry[];
  const text = res.rawPayload.toString('latin1');
  return {
    claimsFacturX: text.includes('urn:factur-x:pdfa:CrossIndustryDocument'),
    warnings: warnings.flatMap((w) => (w.kind === 'conformance' ? [[w.clause, w.message]] : [[w.kind, '']])),
    header: res.headers['x-render-warnings'],
  };
}

/** The page shows 9,630.00 as the amount due; the XML's 630.00 is somewhere a reader does not see it. */
const HIDING: Record<string, string> = {
  'positioned off the page': '<div style="position:absolute; left:-10000px; top:40px">630.00</div>',
  'in a zero-height overflow:hidden box': '<div style="height:0; overflow:hidden">630.00</div>',
  'in white text': '<p style="color:#fff">630.00</p>',
  'in near-white text (#e5e5e5 on white, 1.26:1)': '<p style="color:#e5e5e5">630.00</p>',
  'in 0.5 px text': '<p style="font-size:0.5px">630.00</p>',
  'under an opaque box':
    '<div style="position:relative"><p>630.00</p><div style="position:absolute; inset:0; background:#fff; print-color-adjust:exact; pointer-events:none"></div></div>',
  'under an opaque box made click-through by a stylesheet':
    '<style>.veil { pointer-events: none !important }</style><div style="position:relative"><p>630.00</p><div class="veil" style="position:absolute; inset:0; background:#fff; print-color-adjust:exact"></div></div>',
  'printed for something else': '<p>Previous payment received: 630.00</p>',
};

describe('the slot after a Factur-X render', () => {
  it('lays the next document out as before: the same window, screen media', async () => {
    // The XML as a data: URL: a render that fetched nothing leaves its slot to the next render.
    const data = `data:application/xml;base64,${XML.toString('base64')}`;
    const html = invoice('<p>Amount due: 630.00 EUR</p>').replace(`${files.base}/factur-x.xml`, data);
    expect((await render(html)).claimsFacturX).toBe(true);
    const res = await postRender(ctx.app, ctx.key, {
      html: "<p id=o></p><script>document.getElementById('o').textContent = 'window ' + innerWidth + 'x' + innerHeight + ' print ' + matchMedia('print').matches</script>",
    });
    const text = execFileSync('pdftotext', ['-', '-'], { input: res.rawPayload }).toString();
    expect(text).toContain('window 800x600 print false');
  });
});

describe('the amount due a reader sees', () => {
  it('a visible amount due equal to the XML: Factur-X, no warning', async () => {
    const shown = await render(invoice('<p>Amount due: 630.00 EUR</p>'));
    expect(shown).toEqual({ claimsFacturX: true, warnings: [], header: '0' });
  });

  it('the same marked with data-bt (and in a table row, right-aligned): Factur-X, no warning', async () => {
    const shown = await render(
      invoice(
        '<p>Invoice <span data-bt="BT-1">PW-2026-0142</span></p><table style="width:100%"><tr><td>Balance due</td>' +
          '<td style="text-align:right" data-bt="BT-115">630.00 €</td></tr></table>',
      ),
    );
    expect(shown).toEqual({ claimsFacturX: true, warnings: [], header: '0' });
  });

  it('an amount due in a pale colour a reader still reads (#1ee494 on #f6f6f6, 1.55:1, as WeasyPrint prints its total): Factur-X', async () => {
    const shown = await render(
      invoice(
        '<table style="background:#f6f6f6; print-color-adjust:exact; font-size:20pt"><tr><th>Total due</th>' +
          '<td style="color:#1ee494; font-weight:bold">€630.00</td></tr></table>',
      ),
    );
    expect(shown).toEqual({ claimsFacturX: true, warnings: [], header: '0' });
  });

  it('an amount due printed far down a long document (page 200 and more) still counts', async () => {
    const filler = Array.from({ length: 220 }, (_, i) => `<p style="break-after:page">Terms, page ${i + 2}</p>`).join('');
    const shown = await render(invoice(`${filler}<p>Amount due: 630.00 EUR</p>`));
    expect(shown).toEqual({ claimsFacturX: true, warnings: [], header: '0' });
    // The same in a document that scrolls smoothly, the amount marked: the check still reaches it at once.
    const smooth = await render(
      invoice(`<style>html { scroll-behavior: smooth }</style>${filler}<p>Amount due: <b data-bt="BT-115">630.00</b></p>`),
    );
    expect(smooth).toEqual({ claimsFacturX: true, warnings: [], header: '0' });
    // And hidden under an opaque box that far down, it is not shown.
    const covered = await render(invoice(`${filler}<p>Total: 9,630.00 EUR</p>${HIDING['under an opaque box']}`));
    expect(covered.claimsFacturX).toBe(false);
    expect(covered.warnings.map((w) => w[0])).toEqual(['BT-115']);
  }, 120_000);

  for (const [how, hidden] of Object.entries(HIDING)) {
    it(`"Amount due: 9,630.00 EUR" with 630.00 ${how}: no Factur-X, the warning names both amounts`, async () => {
      const shown = await render(invoice(`<p>Amount due: 9,630.00 EUR</p>${hidden}`));
      expect(shown.claimsFacturX).toBe(false);
      expect(shown.warnings).toContainEqual([
        'BT-115',
        'factur-x.xml is not the invoice this PDF shows, so the PDF does not claim Factur-X: the PDF prints 9,630.00 as its amount due ("Amount due"), while factur-x.xml\'s amount due (BT-115) is 630.00: a reader would pay another amount than the XML says',
      ]);
      if (how !== 'printed for something else') {
        // Hidden, the XML's amount is not shown at all.
        expect(shown.warnings.map((w) => w[0])).toEqual(['BT-115', 'BT-115']);
        expect(shown.warnings[0][1]).toContain('does not show its amount due (BT-115) 630.00 where a reader sees it');
      }
    });
  }

  for (const [how, hidden] of Object.entries(HIDING).filter(([how]) => how !== 'printed for something else')) {
    it(`with no other amount due, the XML's 630.00 ${how} alone: no Factur-X`, async () => {
      const shown = await render(invoice(`<p>Total: 9,630.00 EUR</p>${hidden}`));
      expect(shown.claimsFacturX).toBe(false);
      expect(shown.warnings.map((w) => w[0])).toEqual(['BT-115']);
    });
  }

  it('a hidden invoice number (white) does not count either', async () => {
    const shown = await render(
      invoice('<p>Amount due: 630.00 EUR</p><p style="color:white">PW-2026-0142</p>', { number: 'PW-2026-0999' }),
    );
    expect(shown.claimsFacturX).toBe(false);
    expect(shown.warnings.map((w) => w[0])).toEqual(['BT-1']);
  });

  it('an element marked data-bt="BT-115" showing another amount: no Factur-X, the warning names both', async () => {
    const shown = await render(invoice('<p>Total 630.00</p><p>To pay: <b data-bt="BT-115">9,630.00 EUR</b></p>'));
    expect(shown.claimsFacturX).toBe(false);
    expect(shown.warnings).toEqual([
      [
        'BT-115',
        'factur-x.xml is not the invoice this PDF shows, so the PDF does not claim Factur-X: the element marked data-bt="BT-115" prints "9,630.00 EUR", while factur-x.xml\'s BT-115 is 630.00',
      ],
    ]);
  });

  it('the French and German labels of the amount due are read too', async () => {
    const fr = await render(
      invoice('<p>Net à payer : 9 630,00 €</p><p>Acompte versé : 630,00 €</p>').replace('lang="en"', 'lang="fr"'),
    );
    expect(fr.claimsFacturX).toBe(false);
    expect(fr.warnings[0][1]).toContain('the PDF prints 9 630,00 as its amount due ("Net à payer")');
    const de = await render(
      invoice('<p>Zu zahlender Betrag: 9.630,00 €</p><p>Anzahlung: 630,00 €</p>').replace('lang="en"', 'lang="de"'),
    );
    expect(de.claimsFacturX).toBe(false);
    expect(de.warnings[0][1]).toContain('the PDF prints 9.630,00 as its amount due ("Zu zahlender Betrag")');
  });
});
