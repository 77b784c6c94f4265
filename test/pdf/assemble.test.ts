/**
 * Assembling PDFs with real tools: three parts rendered through POST /v1/render and an existing PDF with
 * object streams become one PDF whose pages, outline and links qpdf and poppler read back; two parts that
 * declare `PDF/A-3b, PDF/UA-1` make an assembly claiming both that veraPDF passes; parts that cannot be
 * assembled are refused, naming the part. And protecting (AES-256, R6) as qpdf and pdftotext see it, on the
 * same renders (one browser for the file).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssembleInputError, assemblePdfs, protectionClaims, protectPdf } from '../../src/pdf/index.js';
import type { Claim } from '../../src/pdf/profiles/types.js';
import { invoiceDocument, longReportDocument, multilingualDocument } from '../fixtures/pdf/profile-documents.js';
import { postRender } from '../helpers/render.js';
import { pdfInfo, pdfOutline, pdfPageTexts, pdfStructure, qpdfCheck } from '../render/pdf-tools.js';
import { internalLinks, pdftotext, showEncryption, withObjectStreams, xmpClaimsOf } from './assemble-tools.js';
import { type DeclarationsApp, startDeclarationsApp } from './declarations-app.js';
import { VERAPDF, VERAPDF_SKIPPED, verapdf } from './verapdf.js';

const UA: Claim[] = ['PDF/A-3b', 'PDF/UA-1'];
let ctx: DeclarationsApp;
const rendered: Record<string, { pdf: Buffer; claims: Claim[] }> = {};

async function render(html: string): Promise<{ pdf: Buffer; claims: Claim[] }> {
  const res = await postRender(ctx.app, ctx.key, { html, options: { format: 'A4', printBackground: true } });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return { pdf: res.rawPayload, claims: ctx.recordOf(res.headers['x-render-id']).claims };
}

beforeAll(async () => {
  ctx = await startDeclarationsApp({ allowLoopback: false });
  rendered.invoice = await render(invoiceDocument('PDF/A-3b, PDF/UA-1'));
  rendered.letter = await render(multilingualDocument('PDF/A-3b, PDF/UA-1'));
  rendered.report = await render(longReportDocument(3));
}, 180_000);
afterAll(() => ctx?.close());

describe('assemblePdfs', () => {
  it('puts three rendered parts and an existing PDF with object streams into one PDF, outline and links kept', async () => {
    const existing = withObjectStreams(rendered.invoice.pdf);
    expect(existing.toString('latin1')).toMatch(/\/Type\s*\/ObjStm/);
    const result = await assemblePdfs([
      { pdf: rendered.invoice.pdf, label: 'parts[0]', claims: rendered.invoice.claims },
      { pdf: rendered.report.pdf, label: 'parts[1]', claims: rendered.report.claims },
      { pdf: rendered.letter.pdf, label: 'parts[2]', claims: rendered.letter.claims, title: 'Partner letter' },
      { pdf: existing, label: 'parts[3]' },
    ]);
    const pdf = Buffer.from(result.pdf);
    expect(qpdfCheck(pdf).status, qpdfCheck(pdf).output).toBe(0);
    const pages = pdfPageTexts(pdf);
    expect(pages).toHaveLength(6);
    expect([result.pages, result.partPages]).toEqual([6, [1, 3, 1, 1]]);
    expect(pages.map((p) => /Invoice 2026-0042|Chapter \d|Letter to our partners/.exec(p)?.[0])).toEqual([
      'Invoice 2026-0042',
      'Chapter 1',
      'Chapter 2',
      'Chapter 3',
      'Letter to our partners',
      'Invoice 2026-0042',
    ]);
    const outline = pdfOutline(pdf);
    expect(outline.map((e) => [e.title, e.page])).toEqual([
      ['Invoice 2026-0042', 1],
      ['Annual report 2026', 2],
      ['Partner letter', 5],
      ['Invoice 2026-0042', 6],
    ]);
    // Each part's own outline sits under its entry, landing on that part's pages.
    expect(outline[0].kids.map((e) => [e.title, e.page])).toEqual([['Invoice 2026-0042', 1]]);
    expect(outline[0].kids[0].kids.map((e) => [e.title, e.page])).toEqual([['Terms', 1]]);
    expect(outline[3].kids[0].kids.map((e) => [e.title, e.page])).toEqual([['Terms', 6]]);
    expect(outline[2].kids[0].kids.map((e) => e.page)).toEqual([5, 5, 5]);
    // The invoice's "#terms" link is in both invoices; each lands on its own invoice's page.
    const links = internalLinks(pdf).filter((l) => l.on === 1 || l.on === 6);
    expect(links).toEqual([
      { on: 1, to: 1 },
      { on: 6, to: 6 },
    ]);
    expect(pdfInfo(pdf).tagged).toBe(true);
    // The report declared nothing and the existing PDF's own claim is not proof: nothing is claimed.
    expect(result.claims).toEqual([]);
    expect(xmpClaimsOf(pdf)).toEqual([]);
    expect(result.issues.map((i) => [i.profile, i.element])).toEqual(
      expect.arrayContaining([
        ['PDF/A-3b', 'parts[3]'],
        ['PDF/UA-1', 'parts[3]'],
        ['PDF/A-3b', 'parts[1]'],
        ['PDF/UA-1', 'parts[1]'],
      ]),
    );
  });

  it('claims PDF/A-3b and PDF/UA-1 when both parts do, and veraPDF passes both', { timeout: 300_000 }, async (t) => {
    const result = await assemblePdfs([
      { pdf: rendered.invoice.pdf, label: 'parts[0]', claims: rendered.invoice.claims },
      { pdf: rendered.letter.pdf, label: 'parts[1]', claims: rendered.letter.claims },
    ]);
    expect(rendered.invoice.claims).toEqual(UA);
    expect(result.claims).toEqual(UA);
    expect(result.issues).toEqual([]);
    const pdf = Buffer.from(result.pdf);
    expect(xmpClaimsOf(pdf)).toEqual(UA);
    // One structure tree holds both parts: the invoice's table and the letter's headings.
    const structure = pdfStructure(pdf);
    expect(structure).toMatch(/Table/);
    expect(structure.match(/\bH1\b/g)).toHaveLength(2);
    if (!VERAPDF) return t.skip(VERAPDF_SKIPPED);
    expect(verapdf({ assembled: pdf }, '3b')).toEqual({ assembled: [] });
    expect(verapdf({ assembled: pdf }, 'ua1')).toEqual({ assembled: [] });
  });

  it('names a part that is not a PDF, an encrypted PDF, or a damaged one', async () => {
    const good = { pdf: rendered.invoice.pdf, label: 'parts[0]' };
    const refused = async (pdf: Buffer): Promise<AssembleInputError> => {
      const error = await assemblePdfs([good, { pdf, label: 'parts[1]' }]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AssembleInputError);
      return error as AssembleInputError;
    };
    const html = await refused(Buffer.from('<!doctype html><p>not a pdf</p>'));
    expect([html.problem, html.message]).toEqual(['not_pdf', 'parts[1]: not a PDF (it does not start with %PDF-)']);

    // An owner password alone that does not allow assembling; a user password.
    const restricted = Buffer.from(await protectPdf(rendered.report.pdf, { ownerPassword: 'owner', allow: ['print'] }));
    const forbidden = await refused(restricted);
    expect(forbidden.problem).toBe('encrypted');
    expect(forbidden.message).toMatch(/^parts\[1\]: the PDF’s permissions, set by its owner, forbid assembling it/);
    const locked = Buffer.from(await protectPdf(rendered.report.pdf, { ownerPassword: 'owner', userPassword: 'user' }));
    const encrypted = await refused(locked);
    expect(encrypted.problem).toBe('encrypted');
    expect(encrypted.message).toMatch(/^parts\[1\]: the PDF needs a password to open/);

    // startxref points nowhere: qpdf would rebuild the table by scanning, a guess Pageworks does not make.
    const text = rendered.report.pdf.toString('latin1');
    const at = text.lastIndexOf('startxref');
    const lost = Buffer.from(`${text.slice(0, at)}startxref\n12\n%%EOF\n`, 'latin1');
    expect((await refused(lost)).message).toMatch(/^parts\[1\]: the PDF is damaged/);
    // The table's entries point a few bytes off their objects.
    const shifted = Buffer.from(
      text.replace(/^(\d{10}) 00000 n/gm, (_, n: string) => `${String(Number(n) + 3).padStart(10, '0')} 00000 n`),
      'latin1',
    );
    expect((await refused(shifted)).problem).toBe('damaged');
    // Cut in half.
    expect((await refused(rendered.report.pdf.subarray(0, rendered.report.pdf.length >> 1))).problem).toBe('damaged');
  });
});

describe('protectPdf', () => {
  it('encrypts with AES-256 R6: no text without the user password, all of it with, permissions as asked', async () => {
    const pdf = Buffer.from(
      await protectPdf(rendered.report.pdf, {
        userPassword: 'sésame 1',
        ownerPassword: 'owner-2',
        allow: ['print', 'fill-forms'],
      }),
    );
    const encryption = showEncryption(pdf, 'sésame 1');
    expect(encryption).toMatch(/^R = 6$/m);
    expect(encryption).toMatch(/^stream encryption method: AESv3$/m);
    expect(encryption).toMatch(/^string encryption method: AESv3$/m);
    const granted = Object.fromEntries(
      [
        ...encryption.matchAll(
          /^(extract for accessibility|extract for any purpose|print high resolution|modify document assembly|modify forms|modify annotations|modify other): (allowed|not allowed)$/gm,
        ),
      ].map((m) => [m[1], m[2]]),
    );
    expect(granted).toEqual({
      'extract for accessibility': 'allowed',
      'extract for any purpose': 'not allowed',
      'print high resolution': 'allowed',
      'modify document assembly': 'not allowed',
      'modify forms': 'allowed',
      'modify annotations': 'not allowed',
      'modify other': 'not allowed',
    });
    const locked = pdftotext(pdf);
    expect(locked.status).not.toBe(0);
    expect(locked.text).toBe('');
    expect(pdftotext(pdf, 'wrong').text).toBe('');
    const plain = pdftotext(rendered.report.pdf).text;
    expect(plain).toContain('Chapter 3: Region 3');
    expect(pdftotext(pdf, 'sésame 1').text).toBe(plain);
    expect(qpdfCheck(pdf).status).toBe(2); // qpdf cannot open it without a password
  });

  it('with only an owner password anyone reads it and the permissions still hold; copy granted', async () => {
    const pdf = Buffer.from(await protectPdf(rendered.report.pdf, { ownerPassword: 'owner', allow: ['copy'] }));
    const encryption = showEncryption(pdf);
    expect(encryption).toMatch(/^R = 6$/m);
    expect(encryption).toMatch(/^extract for any purpose: allowed$/m);
    expect(encryption).toMatch(/^extract for accessibility: allowed$/m);
    expect(encryption).toMatch(/^print high resolution: not allowed$/m);
    expect(pdftotext(pdf).text).toContain('Chapter 3: Region 3');
  });

  it('takes PDF/A out of a protected PDF (PDF/A forbids encryption) and keeps PDF/UA-1', async () => {
    expect(xmpClaimsOf(rendered.invoice.pdf)).toEqual(['PDF/A-3b', 'PDF/UA-1']);
    const pdf = Buffer.from(await protectPdf(rendered.invoice.pdf, { userPassword: 'u', ownerPassword: 'o' }));
    expect(xmpClaimsOf(pdf, 'u')).toEqual(['PDF/UA-1']);
    const kept = protectionClaims(['PDF/A-3b', 'PDF/UA-1']);
    expect(kept.claims).toEqual(['PDF/UA-1']);
    expect(kept.issues.map((i) => [i.profile, i.clause])).toEqual([['PDF/A-3b', '6.1.3']]);
  });
});
