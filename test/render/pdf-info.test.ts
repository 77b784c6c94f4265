/**
 * The PDF properties update without a browser: hand-made PDFs in the two shapes a writer may end a file
 * with (a classic cross-reference table, as Chromium does, and a cross-reference stream with object
 * streams), read back with pdfinfo and qpdf.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PdfProperties, pdfTextString, withPdfProperties } from '../../src/pdf/pdf-info.js';
import { pdfInfo, pdfLang, pdfProperties, qpdfCheck } from './pdf-tools.js';

/** A one-page PDF ending in a classic xref table, with Chromium's kind of Info and catalog (and no final newline). */
function chromiumLikePdf(catalogExtra = ' /Lang (en-US)'): Buffer {
  const objects = [
    '<</Title (about:blank)\n/Creator (Mozilla/5.0 \\(X11\\) HeadlessChrome/156.0.0.0)\n/Producer (Skia/PDF m156)>>',
    `<</Type /Catalog\n/Pages 3 0 R\n/ViewerPreferences <</Type /ViewerPreferences\n/DisplayDocTitle true>>${catalogExtra}>>`,
    '<</Type /Pages\n/Kids [4 0 R]\n/Count 1>>',
    '<</Type /Page\n/Parent 3 0 R\n/MediaBox [0 0 200 300]>>',
  ];
  let text = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(text, 'latin1'));
    text += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(text, 'latin1');
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) text += `${String(offset).padStart(10, '0')} 00000 n \n`;
  text += `trailer\n<</Size ${objects.length + 1}\n/Root 2 0 R\n/Info 1 0 R>>\nstartxref\n${xref}\n%%EOF`;
  return Buffer.from(text, 'latin1');
}

/** The same document rewritten by qpdf with a cross-reference stream and object streams. */
function withObjectStreams(pdf: Buffer): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-objstm-'));
  try {
    fs.writeFileSync(path.join(dir, 'in.pdf'), pdf);
    execFileSync('qpdf', ['--object-streams=generate', path.join(dir, 'in.pdf'), path.join(dir, 'out.pdf')]);
    return fs.readFileSync(path.join(dir, 'out.pdf'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const FULL: PdfProperties = {
  title: 'Rapport (annuel) \\ 2026 — Zoë',
  author: 'Zoë Ångström',
  subject: 'Quarterly figures (draft) \\ final',
  keywords: '日本語, invoices, 😀',
  lang: 'ja',
  creator: 'Pageworks 9.8.7',
  producer: 'Pageworks 9.8.7',
  date: new Date('2026-11-25T14:35:14Z'),
};

describe('withPdfProperties', () => {
  it('sets every property, Unicode and ( ) \\ intact, and the catalog language, as an update after the original bytes', () => {
    const original = chromiumLikePdf();
    const pdf = withPdfProperties(original, FULL);
    // Every original byte keeps its offset; only the old Info dictionary's entries are now spaces.
    const [from, to] = [original.indexOf('<</Title') + 2, original.indexOf('>>\nendobj')];
    expect(pdf.subarray(0, from).equals(original.subarray(0, from))).toBe(true);
    expect(pdf.toString('latin1', from, to)).toBe(' '.repeat(to - from));
    expect(pdf.subarray(to, original.length).equals(original.subarray(to))).toBe(true);
    const props = pdfProperties(pdf);
    expect(props.Title).toBe(FULL.title);
    expect(props.Author).toBe('Zoë Ångström');
    expect(props.Subject).toBe(FULL.subject);
    expect(props.Keywords).toBe('日本語, invoices, 😀');
    expect(props.Creator).toBe('Pageworks 9.8.7');
    expect(props.Producer).toBe('Pageworks 9.8.7');
    expect(props.CreationDate).toMatch(/Wed Nov 25 14:35:14 2026/);
    expect(pdfLang(pdf)).toBe('ja');
    expect(pdfInfo(pdf)).toMatchObject({ pages: 1, width: 200, height: 300 });
    expect(qpdfCheck(pdf)).toMatchObject({ status: 0 });
  });

  it('leaves out what the document does not say: no Title, no Author, and no /Lang guessed from the browser', () => {
    const pdf = withPdfProperties(chromiumLikePdf(), {
      creator: 'Pageworks 1.0.0',
      producer: 'Pageworks 1.0.0',
      date: new Date(),
    });
    const props = pdfProperties(pdf);
    expect(props.Title).toBeUndefined();
    expect(props.Author).toBeUndefined();
    expect(props.Subject).toBeUndefined();
    expect(props.Keywords).toBeUndefined();
    expect(props.Creator).toBe('Pageworks 1.0.0');
    expect(pdfLang(pdf)).toBeUndefined();
    expect(qpdfCheck(pdf)).toMatchObject({ status: 0 });
  });

  it('keeps the catalog as it is when its language is already the document’s, and adds one where there was none', () => {
    const same = withPdfProperties(chromiumLikePdf(' /Lang (fr)'), { ...FULL, lang: 'fr' });
    expect(pdfLang(same)).toBe('fr');
    expect(same.toString('latin1').split('/Type /Catalog')).toHaveLength(2);
    const added = withPdfProperties(chromiumLikePdf(''), { ...FULL, lang: 'de-CH' });
    expect(pdfLang(added)).toBe('de-CH');
    expect(qpdfCheck(added)).toMatchObject({ status: 0 });
  });

  it('leaves no byte naming the browser or about:blank, and qpdf finds the file sound', () => {
    const pdf = withPdfProperties(chromiumLikePdf(), { ...FULL, title: undefined });
    expect(pdf.includes('HeadlessChrome')).toBe(false);
    expect(pdf.includes('about:blank')).toBe(false);
    expect(pdf.includes('Skia/PDF')).toBe(false);
    expect(pdfProperties(pdf).Title).toBeUndefined();
    expect(qpdfCheck(pdf)).toMatchObject({ status: 0 });
  });

  it('updates a file that ends in a cross-reference stream with its objects in object streams', () => {
    const original = withObjectStreams(chromiumLikePdf());
    expect(original.toString('latin1')).toMatch(/\/Type\s*\/XRef/);
    const pdf = withPdfProperties(original, FULL);
    const props = pdfProperties(pdf);
    expect(props.Title).toBe(FULL.title);
    expect(props.Keywords).toBe(FULL.keywords);
    expect(props.Producer).toBe('Pageworks 9.8.7');
    expect(pdfInfo(pdf).pages).toBe(1);
    expect(qpdfCheck(pdf)).toMatchObject({ status: 0 });
  });

  it('applies on top of its own update (the chain of /Prev is followed by readers)', () => {
    const once = withPdfProperties(chromiumLikePdf(), FULL);
    const twice = withPdfProperties(once, { ...FULL, title: 'Second', lang: undefined });
    expect(pdfProperties(twice).Title).toBe('Second');
    expect(pdfLang(twice)).toBeUndefined();
    expect(qpdfCheck(twice)).toMatchObject({ status: 0 });
  });

  it('returns bytes it cannot read as a PDF unchanged', () => {
    const junk = Buffer.from('%PDF-1.4\nnot really a pdf\n%%EOF');
    expect(withPdfProperties(junk, FULL)).toBe(junk);
  });
});

describe('pdfTextString', () => {
  it('escapes ( ) \\ in ASCII and writes anything else as UTF-16BE with a byte order mark', () => {
    expect(pdfTextString('a (b) \\ c')).toBe('(a \\(b\\) \\\\ c)');
    expect(pdfTextString('é')).toBe('<FEFF00E9>');
    expect(pdfTextString('line\nbreak')).toBe('<FEFF006C0069006E0065000A0062007200650061006B>');
  });
});
