/**
 * Documents that declare PDF/A-2b, 2u, 3b or PDF/UA-1 (an invoice with a logo, a web font, tables,
 * transparency and links; a letter in Japanese, Chinese and Arabic; a 150-page report with running
 * headers), rendered through POST /v1/render: each PDF claims exactly what it was declared, and veraPDF
 * passes every claim, one JVM per flavour. Without a declaration the PDF claims nothing, and a declared
 * PDF/A page rasterises exactly like the undeclared one.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceDocument, longReportDocument, multilingualDocument } from '../fixtures/pdf/profile-documents.js';
import { postRender } from '../helpers/render.js';
import { type DeclarationsApp, startDeclarationsApp } from './declarations-app.js';
import { VERAPDF, VERAPDF_SKIPPED, verapdf } from './verapdf.js';

let ctx: DeclarationsApp;
beforeAll(async () => {
  ctx = await startDeclarationsApp({ allowLoopback: false });
});
afterAll(() => ctx?.close());

/** The XMP packet of a PDF as text (empty when it has none). */
function xmpOf(pdf: Buffer): string {
  const text = pdf.toString('utf8');
  const start = text.lastIndexOf('<x:xmpmeta');
  return start < 0 ? '' : text.slice(start, text.indexOf('</x:xmpmeta>', start));
}

/** What the XMP claims, in the names a document declares. */
function claimsOf(pdf: Buffer): string[] {
  const xmp = xmpOf(pdf);
  const claims: string[] = [];
  const part = /<pdfaid:part>(\d)<\/pdfaid:part>/.exec(xmp)?.[1];
  const level = /<pdfaid:conformance>([A-Z])<\/pdfaid:conformance>/.exec(xmp)?.[1];
  if (part) claims.push(`PDF/A-${part}${level?.toLowerCase() ?? ''}`);
  if (/<pdfuaid:part>1<\/pdfuaid:part>/.test(xmp)) claims.push('PDF/UA-1');
  return claims;
}

/** Page 1 rasterised at `dpi` as binary PPM bytes. */
function raster(pdf: Buffer, dpi: number): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-raster-'));
  try {
    fs.writeFileSync(path.join(dir, 'doc.pdf'), pdf);
    return execFileSync('pdftoppm', ['-r', String(dpi), '-f', '1', '-l', '1', path.join(dir, 'doc.pdf')], {
      maxBuffer: 64 << 20,
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function render(html: string): Promise<{ pdf: Buffer; warnings: string }> {
  const res = await postRender(ctx.app, ctx.key, { html, options: { format: 'A4', printBackground: true } });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return { pdf: res.rawPayload, warnings: String(res.headers['x-render-warnings']) };
}

/** Every PDF made below, by veraPDF flavour, so each flavour is validated in one JVM. */
const byFlavour: Record<string, Record<string, Buffer>> = { '2b': {}, '2u': {}, '3b': {}, ua1: {} };
const FLAVOUR: Record<string, string> = { 'PDF/A-2b': '2b', 'PDF/A-2u': '2u', 'PDF/A-3b': '3b', 'PDF/UA-1': 'ua1' };

const CASES: Array<{ name: string; html: () => string; claims: string[] }> = [
  { name: 'invoice-2b', html: () => invoiceDocument('PDF/A-2b'), claims: ['PDF/A-2b'] },
  { name: 'invoice-2u', html: () => invoiceDocument('PDF/A-2u'), claims: ['PDF/A-2u'] },
  { name: 'invoice-3b-ua1', html: () => invoiceDocument('PDF/A-3b, PDF/UA-1'), claims: ['PDF/A-3b', 'PDF/UA-1'] },
  { name: 'letter-2u', html: () => multilingualDocument('PDF/A-2u'), claims: ['PDF/A-2u'] },
  { name: 'letter-3b-ua1', html: () => multilingualDocument('PDF/A-3b, PDF/UA-1'), claims: ['PDF/A-3b', 'PDF/UA-1'] },
  { name: 'report-150-2b-ua1', html: () => longReportDocument(150, 'PDF/A-2b, PDF/UA-1'), claims: ['PDF/A-2b', 'PDF/UA-1'] },
  // Generated text (a table of contents' ::before) prints outside the structure, and its "fi" and "ffi"
  // ligatures inside `/Span <</ActualText …>>`: still an artifact, so PDF/UA-1 holds.
  {
    name: 'generated-ligatures-ua1',
    html: () =>
      '<!doctype html><html lang="en"><head><meta name="pdf-profile" content="PDF/UA-1"><title>Contents</title>' +
      '<style>body { font-family: "Noto Sans" } li::before { content: "Refined office: " }</style></head>' +
      '<body><h1>Contents</h1><ul><li>Part one</li><li>Part two</li></ul></body></html>',
    claims: ['PDF/UA-1'],
  },
];

describe('a document that declares profiles it meets', () => {
  for (const c of CASES) {
    it(`${c.name}: claims ${c.claims.join(' and ')} with no warning`, { timeout: 120_000 }, async () => {
      const { pdf, warnings } = await render(c.html());
      expect(warnings).toBe('0');
      expect(claimsOf(pdf)).toEqual(c.claims);
      for (const claim of c.claims) byFlavour[FLAVOUR[claim]][c.name] = pdf;
    });
  }

  it('passes veraPDF for every profile it claims (one JVM per flavour)', { timeout: 300_000 }, () => {
    if (!VERAPDF) {
      console.log(VERAPDF_SKIPPED);
      return;
    }
    for (const [flavour, pdfs] of Object.entries(byFlavour)) {
      const failed = Object.entries(verapdf(pdfs, flavour)).filter(([, rules]) => rules.length > 0);
      expect(failed, `veraPDF ${flavour}`).toEqual([]);
    }
  });
});

describe('a document that declares nothing', () => {
  it('gets a PDF that claims nothing: no XMP, no OutputIntent', async () => {
    const { pdf } = await render(invoiceDocument());
    expect(xmpOf(pdf)).toBe('');
    expect(pdf.includes('/OutputIntents')).toBe(false);
    expect(pdf.includes('/Metadata')).toBe(false);
  });

  it('prints the same pixels as the same document declared PDF/A-2b', async () => {
    const plain = await render(invoiceDocument());
    const archived = await render(invoiceDocument('PDF/A-2b'));
    expect(claimsOf(archived.pdf)).toEqual(['PDF/A-2b']);
    expect(raster(archived.pdf, 60).equals(raster(plain.pdf, 60))).toBe(true);
  });
});
