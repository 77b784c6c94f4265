/**
 * Factur-X through POST /v1/assemble: one invoice per file (a later part's own factur-x.xml is renamed
 * wherever it is named, so `pdfdetach -list` shows exactly one factur-x.xml, the first part's bytes); a
 * Factur-X invoice followed by an existing PDF is warned with what happened and what to do, naming the
 * part that keeps the assembly from PDF/A-3b (and the dashboard's "What to do" says it); the first part
 * is held to what a reader sees as a render is; a file that does not keep the whole invoice (a part's
 * `pages`, a file of a split) is not Factur-X.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adviceFor } from '../../src/dashboard/views/render-advice.js';
import type { ReportEntry } from '../../src/report/report.js';
import { fixture as assembleFixture, postAssemble } from '../assemble/helpers.js';
import { claimsFacturX } from './claims/claims-runner.js';
import { type DeclarationsApp, startDeclarationsApp, startFileServer } from './declarations-app.js';
import { VERAPDF, VERAPDF_SKIPPED, verapdf } from './verapdf.js';

const XML = fs.readFileSync(new URL('../fixtures/factur-x/en16931-invoice.xml', import.meta.url));
/** Another invoice's XML: the one a receiver must never book from this file. */
const OTHER = Buffer.from(XML.toString('utf8').replace('<ram:ID>PW-2026-0142</ram:ID>', '<ram:ID>PW-2026-0999</ram:ID>'));

let ctx: DeclarationsApp;
let files: Awaited<ReturnType<typeof startFileServer>>;
beforeAll(async () => {
  [ctx, files] = await Promise.all([
    startDeclarationsApp({ allowLoopback: true }),
    startFileServer({
      '/factur-x.xml': { type: 'application/xml', body: XML },
      '/other.xml': { type: 'application/xml', body: OTHER },
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([ctx?.close(), files?.close()]);
});

const INVOICE = (amount = '<p>Amount due: 630.00 EUR</p>') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Invoice PW-2026-0142</title>
<meta name="factur-x" content="EN 16931">
<link rel="attachment" href="${files.base}/factur-x.xml" title="factur-x.xml">
</head><body><h1>Invoice PW-2026-0142</h1><p>Logo design 450.00, business cards 75.00, VAT 105.00</p>${amount}</body></html>`;

/** A PDF/A-3b part that attaches an XML of its own under the invoice's name. */
const ATTACHING = () => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Copy of another invoice</title>
<meta name="pdf-profile" content="PDF/A-3b">
<link rel="attachment" href="${files.base}/other.xml" title="factur-x.xml">
</head><body><h1>Annex</h1><p>A copy of invoice PW-2026-0999.</p></body></html>`;

function withDir<T>(pdf: Buffer, fn: (file: string, dir: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-fx-assemble-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.pdf'), pdf);
    return fn(path.join(dir, 'a.pdf'), dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The embedded files' names as `pdfdetach -list` prints them. */
function listed(pdf: Buffer): string[] {
  const out = withDir(pdf, (file) => execFileSync('pdfdetach', ['-list', file], { encoding: 'utf8' }));
  return out
    .split('\n')
    .slice(1)
    .map((l) => l.replace(/^\s*\d+:\s*/, ''))
    .filter((l) => l !== '');
}

/** The bytes `pdfdetach -savefile` saves for `name`. */
function saved(pdf: Buffer, name: string): Buffer {
  return withDir(pdf, (file, dir) => {
    const out = path.join(dir, 'out.xml');
    execFileSync('pdfdetach', ['-savefile', name, '-o', out, file]);
    return fs.readFileSync(out);
  });
}

async function assemble(parts: unknown[]) {
  const res = await postAssemble(ctx.app, ctx.key, { parts });
  expect(res.statusCode, res.body).toBe(200);
  const record = ctx.recordOf(res.headers['x-render-id']);
  return { pdf: res.rawPayload, warnings: record.warnings as ReportEntry[] };
}

describe('one invoice per file', () => {
  it("a later part's own factur-x.xml is renamed everywhere: pdfdetach lists one factur-x.xml, the first part's", async () => {
    const { pdf, warnings } = await assemble([{ html: INVOICE() }, { html: ATTACHING() }]);
    expect(warnings).toEqual([]);
    expect(claimsFacturX(pdf)).toBe(true);
    const names = listed(pdf);
    expect(names.filter((n) => n === 'factur-x.xml')).toHaveLength(1);
    expect(names.sort()).toEqual(['factur-x-2.xml', 'factur-x.xml']);
    expect(saved(pdf, 'factur-x.xml').equals(XML)).toBe(true);
    expect(saved(pdf, 'factur-x-2.xml').equals(OTHER)).toBe(true);
  }, 120_000);

  it("an existing PDF's factur-x.xml is renamed too", async () => {
    const first = await assemble([{ html: INVOICE() }]);
    expect(claimsFacturX(first.pdf)).toBe(true);
    const { pdf } = await assemble([{ html: ATTACHING() }, { pdf: first.pdf.toString('base64') }]);
    expect(listed(pdf).sort()).toEqual(['factur-x-2.xml', 'factur-x.xml']);
    // The first met keeps the name: here the first part's, which is no Factur-X invoice, so no claim.
    expect(saved(pdf, 'factur-x.xml').equals(OTHER)).toBe(true);
    expect(claimsFacturX(pdf)).toBe(false);
  }, 120_000);
});

describe('a Factur-X invoice followed by an existing PDF', () => {
  it('names the PDF part, says what happened and what to do; the dashboard shows it under What to do', async () => {
    const { pdf, warnings } = await assemble([
      { html: INVOICE() },
      { pdf: assembleFixture('terms-objstm.pdf').toString('base64') },
    ]);
    expect(claimsFacturX(pdf)).toBe(false);
    const facturX = warnings.filter((w) => w.kind === 'conformance' && w.profile === 'Factur-X');
    expect(facturX).toHaveLength(1);
    const [entry] = facturX;
    expect(entry).toMatchObject({ element: 'parts[1]' });
    expect((entry as { message: string }).message).toBe(
      "parts[0] is a Factur-X invoice, but the assembly is not PDF/A-3b, which Factur-X is made on (parts[1] is an existing PDF, whose PDF/A-3b Pageworks cannot verify): the assembly is not Factur-X (the invoice's XML is kept as an attachment). " +
        'To keep it Factur-X, put what parts[1] holds (the terms, say) in an HTML part that declares PDF/A-3b; otherwise accept that the assembly is not Factur-X',
    );
    expect(listed(pdf)).toEqual(['factur-x.xml']);
    const advice = adviceFor(entry);
    expect(advice.title).toBe('The PDF does not claim Factur-X');
    expect(advice.advice).toContain('put what parts[1] holds (the terms, say) in an HTML part that declares PDF/A-3b');
  }, 120_000);
});

describe('the first part of an assembly', () => {
  it('is held to the amount due a reader sees: 630.00 in white beside "Amount due: 9,630.00" claims no Factur-X', async () => {
    const { pdf, warnings } = await assemble([
      { html: INVOICE('<p>Amount due: 9,630.00 EUR</p><p style="color:#fff">630.00</p>') },
      { html: ATTACHING() },
    ]);
    expect(claimsFacturX(pdf)).toBe(false);
    const clauses = warnings.flatMap((w) => (w.kind === 'conformance' && w.profile === 'Factur-X' ? [w.clause] : []));
    expect(clauses).toEqual(['BT-115', 'BT-115']);
  }, 120_000);
});

describe('a cut', () => {
  const TERMS = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Terms</title>
<meta name="pdf-profile" content="PDF/A-3b"></head><body><h1>Terms</h1><p>Payment within 30 days.</p></body></html>`;
  const notWhole = (label: string) => ({
    kind: 'conformance',
    profile: 'Factur-X',
    clause: 'Factur-X 1.0',
    element: label,
    message:
      `${label}: it does not keep every page of the invoice, and a Factur-X file must show the invoice its XML is ` +
      '(its number and amount due were checked on all of those pages together), so it does not claim Factur-X',
  });

  it('split "parts": the invoice’s file is Factur-X, the terms’ file (the XML still attached) is PDF/A-3b only', async () => {
    const res = await postAssemble(ctx.app, ctx.key, { parts: [{ html: INVOICE() }, { html: TERMS }], split: 'parts' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-render-claims']).toBe('PDF/A-3b');
    expect(ctx.recordOf(res.headers['x-render-id']).warnings).toEqual([notWhole('split Terms.pdf')]);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-fx-split-'));
    try {
      fs.writeFileSync(path.join(dir, 'a.zip'), res.rawPayload);
      execFileSync('unzip', ['-q', path.join(dir, 'a.zip'), '-d', dir]);
      const invoice = fs.readFileSync(path.join(dir, 'Invoice PW-2026-0142.pdf'));
      const terms = fs.readFileSync(path.join(dir, 'Terms.pdf'));
      expect(claimsFacturX(invoice)).toBe(true);
      expect(claimsFacturX(terms)).toBe(false);
      expect(listed(terms)).toEqual(['factur-x.xml']);
      // A part kept to the terms' page of a two-page invoice is not Factur-X either.
      const twoPages = INVOICE('<p>Amount due: 630.00 EUR</p><h2 style="break-before: page">Terms</h2><p>Within 30 days.</p>');
      const kept = await postAssemble(ctx.app, ctx.key, { parts: [{ html: twoPages, pages: '2' }] });
      expect(kept.statusCode, kept.body).toBe(200);
      expect(kept.headers['x-render-claims']).toBe('PDF/A-3b');
      expect(ctx.recordOf(kept.headers['x-render-id']).warnings).toEqual([{ ...notWhole('parts[0]'), part: 'parts[0]' }]);
      expect(claimsFacturX(kept.rawPayload)).toBe(false);
      if (!VERAPDF) return console.log(VERAPDF_SKIPPED);
      expect(verapdf({ invoice, terms, kept: kept.rawPayload }, '3b')).toEqual({ invoice: [], terms: [], kept: [] });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('a stamp that paints on the invoice takes Factur-X away, over or under it, named; page numbers and a text watermark keep it', async () => {
    const pageNumbers = {
      html: '<div style="position:absolute; bottom:10pt; right:10pt; font:9pt sans-serif">Page {{page}} of {{pages}}</div>',
    };
    const covered = await postAssemble(ctx.app, ctx.key, {
      parts: [{ html: INVOICE() }, { html: TERMS }],
      stamps: [
        pageNumbers,
        { html: '<div style="position:absolute; inset:0; background:#fff"></div>', pages: '2' },
        { html: '<div style="position:absolute; top:0; left:0; width:200pt; height:200pt; background:#fff"></div>', pages: '1' },
        // Black under the invoice's black text: the page shows black, and no amount.
        { html: '<div style="position:absolute; inset:0; background:#000"></div>', layer: 'under', pages: '1' },
      ],
    });
    expect(covered.statusCode, covered.body).toBe(200);
    expect(covered.headers['x-render-claims']).toBe('PDF/A-3b');
    expect(claimsFacturX(covered.rawPayload)).toBe(false);
    // The box on the terms' page (2) hides nothing of the invoice; those on page 1 may hide its amount.
    const hides = (label: string, where: 'over' | 'under') => ({
      kind: 'conformance',
      profile: 'Factur-X',
      clause: 'Factur-X 1.0',
      element: label,
      part: label,
      message:
        `${label}: it paints a box, a background or an image ${where} the invoice's page 1, which can ` +
        `${where === 'over' ? 'cover' : 'hide by its colour'} the amount due or the invoice number a reader must see, so the ` +
        "assembly does not claim Factur-X: keep what a stamp draws on the invoice's pages to text",
    });
    expect(ctx.recordOf(covered.headers['x-render-id']).warnings).toEqual([
      hides('stamps[2]', 'over'),
      hides('stamps[3]', 'under'),
    ]);
    const kept = await postAssemble(ctx.app, ctx.key, {
      parts: [{ html: INVOICE() }, { html: TERMS }],
      stamps: [
        pageNumbers,
        {
          html: '<p style="position:absolute; top:40%; width:100%; text-align:center; font:60pt serif; color:#ddd">COPY</p>',
          layer: 'under',
        },
        { html: '<div style="position:absolute; inset:0; background:#fff"></div>', pages: '2' },
      ],
    });
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.headers['x-render-claims']).toBe('PDF/A-3b, Factur-X');
    expect(claimsFacturX(kept.rawPayload)).toBe(true);
    // A stamp that both paints over the invoice and draws a character no font has: each reason once.
    const both = await postAssemble(ctx.app, ctx.key, {
      parts: [{ html: INVOICE() }],
      stamps: [{ html: '<div style="position:absolute; top:0; left:0; width:50pt; height:50pt; background:#fff">\ue000</div>' }],
    });
    expect(both.statusCode, both.body).toBe(200);
    expect(both.headers['x-render-claims']).toBeUndefined();
    expect(
      ctx.recordOf(both.headers['x-render-id']).warnings.map((w: ReportEntry) => [w.kind === 'conformance' && w.profile, w.part]),
    ).toEqual([
      ['PDF/A-3b', 'stamps[0]'],
      ['Factur-X', 'stamps[0]'],
    ]);
    if (!VERAPDF) return console.log(VERAPDF_SKIPPED);
    expect(verapdf({ covered: covered.rawPayload, kept: kept.rawPayload }, '3b')).toEqual({ covered: [], kept: [] });
  }, 120_000);
});
