/**
 * Parts with filled form fields, through POST /v1/assemble, as qpdf's form view (`qpdf --json
 * --json-key=acroform`) and poppler show them: every part's fields stay fields of the assembly with their
 * values, on their pages, a name an earlier part took renamed; a page selection or a split keeps only the
 * fields on the pages it keeps, and no other field's value; a form that asks readers to draw its fields
 * (/NeedAppearances) still does; another signer's signature field is not carried; a signed assembly keeps
 * the fields beside its own signature field; a field a reader redraws is drawn in its own part's font, size and
 * colour, checked on poppler's raster.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { zipEntries } from '../../src/client/zip-entries.js';
import { PdfFile } from '../../src/pdf/profiles/pdf-file.js';
import { type PdfRaw, stringText } from '../../src/pdf/profiles/pdf-objects.js';
import { makeTestCertificates } from '../helpers/certificates.js';
import {
  assembleServiceForFile,
  b64,
  formPart,
  pageTexts,
  pdfOfObjects,
  qpdfCheck,
  qpdfJson,
  uploadCertificate,
} from './helpers.js';

interface Field {
  name: string;
  value: string;
  page: number;
}

/** The file's form as qpdf reads it: whether it asks readers to draw fields, and its text fields. */
function formOf(pdf: Buffer): { fields: Field[]; needAppearances: boolean } {
  const form = qpdfJson(pdf, 'acroform') as {
    needappearances: boolean;
    fields: Array<{ fullname: string; value: string; pageposfrom1: number; fieldtype: string }>;
  };
  return {
    fields: form.fields
      .filter((f) => f.fieldtype === '/Tx')
      .map((f) => ({ name: f.fullname, value: f.value.replace(/^u:/, ''), page: f.pageposfrom1 })),
    needAppearances: form.needappearances,
  };
}

/**
 * The widget's area (Rect [72 600 300 630]) of `page` as poppler draws it at 72 dpi, fields and all: with
 * /NeedAppearances, poppler draws a field from its /DA and the form's /DR fonts, as a reader that redraws it.
 */
function fieldRaster(pdf: Buffer, page = 1): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-form-'));
  try {
    fs.writeFileSync(path.join(dir, 'doc.pdf'), pdf);
    const args = ['-r', '72', '-f', String(page), '-l', String(page), '-x', '72', '-y', '162', '-W', '228', '-H', '30'];
    return execFileSync('pdftoppm', [...args, path.join(dir, 'doc.pdf')], { maxBuffer: 16 << 20 });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const certs = makeTestCertificates();
const service = assembleServiceForFile({ CERTIFICATE_KEY: crypto.randomBytes(32).toString('hex') });

describe('POST /v1/assemble with filled forms', () => {
  const ada = formPart([{ name: 'name', value: 'Ada' }]);
  const grace = formPart([{ name: 'name', value: 'Grace' }]);

  it('keeps every part’s fields with their values on their pages, a taken name renamed', async () => {
    expect(formOf(ada).fields).toEqual([{ name: 'name', value: 'Ada', page: 1 }]);
    const res = await service.assemble({ parts: [{ pdf: b64(ada) }, { pdf: b64(grace) }] });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(qpdfCheck(res.rawPayload).status, qpdfCheck(res.rawPayload).output).toBe(0);
    expect(formOf(res.rawPayload)).toEqual({
      fields: [
        { name: 'name', value: 'Ada', page: 1 },
        { name: 'name-2', value: 'Grace', page: 2 },
      ],
      needAppearances: false,
    });
    expect(pageTexts(res.rawPayload).map((text) => text.replace(/\s+/g, ' ').trim())).toEqual(['Page 1 Ada', 'Page 1 Grace']);
  });

  it('a split keeps in each file only the fields on its pages, and no other field’s value', async () => {
    const res = await service.assemble({ parts: [{ pdf: b64(ada) }, { pdf: b64(grace) }], split: 'parts' });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const [first, second] = zipEntries(res.rawPayload).map(({ pdf }) => pdf);
    expect(formOf(first).fields).toEqual([{ name: 'name', value: 'Ada', page: 1 }]);
    expect(formOf(second).fields).toEqual([{ name: 'name-2', value: 'Grace', page: 1 }]);
    expect(first.includes('Grace')).toBe(false);
    expect(second.includes('Ada')).toBe(false);
  });

  it('a protected assembly keeps the fields, as qpdf opens it with the empty user password', async () => {
    const res = await service.assemble({
      parts: [{ pdf: b64(ada) }, { pdf: b64(grace) }],
      protect: { owner_password: 'owner' },
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(qpdfCheck(res.rawPayload).status, qpdfCheck(res.rawPayload).output).toBe(0);
    expect(formOf(res.rawPayload).fields).toEqual([
      { name: 'name', value: 'Ada', page: 1 },
      { name: 'name-2', value: 'Grace', page: 2 },
    ]);
  });

  it('a page selection keeps the fields on the pages it keeps', async () => {
    const two = formPart([
      { name: 'first', value: 'One' },
      { name: 'second', value: 'Two' },
    ]);
    const res = await service.assemble({ parts: [{ pdf: b64(two), pages: '2' }, { pdf: b64(ada) }] });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(formOf(res.rawPayload).fields).toEqual([
      { name: 'second', value: 'Two', page: 1 },
      { name: 'name', value: 'Ada', page: 2 },
    ]);
    expect(res.rawPayload.includes('One')).toBe(false);
  });

  it('a field with a widget on each of two pages keeps, in a selection of one, only that page’s widget', async () => {
    // Field 5 (`shared`) has two widget kids, 6 on page 3 and 7 on page 4.
    const spread = pdfOfObjects(
      '1.7',
      [
        '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] >> >>',
        '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [6 0 R] >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [7 0 R] >>',
        '<< /FT /Tx /T (shared) /V (Both) /Kids [6 0 R 7 0 R] >>',
        '<< /Type /Annot /Subtype /Widget /Parent 5 0 R /Rect [72 600 300 630] /P 3 0 R /F 4 >>',
        '<< /Type /Annot /Subtype /Widget /Parent 5 0 R /Rect [72 500 300 530] /P 4 0 R /F 4 >>',
      ],
      '/Root 1 0 R',
    );
    expect(formOf(spread).fields).toEqual([
      { name: 'shared', value: 'Both', page: 1 },
      { name: 'shared', value: 'Both', page: 2 },
    ]);
    const res = await service.assemble({ parts: [{ pdf: b64(spread), pages: '2' }] });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(qpdfCheck(res.rawPayload).status, qpdfCheck(res.rawPayload).output).toBe(0);
    expect(formOf(res.rawPayload).fields).toEqual([{ name: 'shared', value: 'Both', page: 1 }]);
  });

  it('a form that asks readers to draw its fields still asks, so its values show', async () => {
    const drawnByReader = formPart([{ name: 'name', value: 'Drawn' }], { needAppearances: true });
    const res = await service.assemble({ parts: [{ pdf: b64(drawnByReader) }] });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(formOf(res.rawPayload)).toEqual({ fields: [{ name: 'name', value: 'Drawn', page: 1 }], needAppearances: true });
  });

  it('a field a reader redraws keeps its own part’s font where two parts give one font name different fonts', async () => {
    const sans = formPart([{ name: 'name', value: 'Ada' }], { needAppearances: true });
    const mono = formPart([{ name: 'name', value: 'Ada' }], { needAppearances: true, font: 'Courier' });
    expect(fieldRaster(mono).equals(fieldRaster(sans))).toBe(false);
    const res = await service.assemble({ parts: [{ pdf: b64(sans) }, { pdf: b64(mono) }, { pdf: b64(sans) }] });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(qpdfCheck(res.rawPayload).status, qpdfCheck(res.rawPayload).output).toBe(0);
    expect(fieldRaster(res.rawPayload, 1).equals(fieldRaster(sans))).toBe(true);
    expect(fieldRaster(res.rawPayload, 2).equals(fieldRaster(mono))).toBe(true);
    // The third part's Helvetica is the first's: one font under one name, not a copy renamed.
    expect(fieldRaster(res.rawPayload, 3).equals(fieldRaster(sans))).toBe(true);
    const file = new PdfFile(res.rawPayload);
    const form = file.dict(file.catalog().value.get('AcroForm'));
    const fieldDas = file
      .array(form?.get('Fields'))
      .map((field) => stringText((file.dict(field)?.get('DA') as PdfRaw | undefined)?.text ?? '()'));
    expect(fieldDas).toEqual(['/Helv 12 Tf 0 g', '/Helv-2 12 Tf 0 g', '/Helv 12 Tf 0 g']);
    expect([...(file.dict(file.dict(form?.get('DR'))?.get('Font'))?.keys() ?? [])]).toEqual(['Helv', 'Helv-2']);
  });

  it('two parts whose font of one name is the same font a reader supplies, encoding and all, share the name', async () => {
    /** The assembly's /DR font names and its fields' /DA, for parts whose /Helv has these encodings. */
    const merged = async (...encodings: string[]) => {
      const parts = encodings.map((encoding) => ({ pdf: b64(formPart([{ name: 'name', value: 'Ada' }], { encoding })) }));
      const res = await service.assemble({ parts });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const file = new PdfFile(res.rawPayload);
      const form = file.dict(file.catalog().value.get('AcroForm'));
      return {
        fonts: [...(file.dict(file.dict(form?.get('DR'))?.get('Font'))?.keys() ?? [])],
        das: file
          .array(form?.get('Fields'))
          .map((field) => stringText((file.dict(field)?.get('DA') as PdfRaw | undefined)?.text ?? '()')),
      };
    };
    const differences = '<< /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [32 /space 39 /quotesingle] >>';
    expect(await merged(differences, differences)).toEqual({ fonts: ['Helv'], das: ['/Helv 12 Tf 0 g', '/Helv 12 Tf 0 g'] });
    expect(await merged(differences, '<< /Differences [32 /bullet] >>')).toEqual({
      fonts: ['Helv', 'Helv-2'],
      das: ['/Helv 12 Tf 0 g', '/Helv-2 12 Tf 0 g'],
    });
  });

  it('a form-wide alignment that is no number is not written into the assembly as it stood', async () => {
    const odd = formPart([{ name: 'name', value: 'Ada' }], { formExtra: '/Q (1 /Injected true)' });
    const centred = formPart([{ name: 'name', value: 'Ada' }], { formExtra: '/Q 1' });
    const res = await service.assemble({ parts: [{ pdf: b64(centred) }, { pdf: b64(odd) }] });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(qpdfCheck(res.rawPayload).status, qpdfCheck(res.rawPayload).output).toBe(0);
    const file = new PdfFile(res.rawPayload);
    const fields = file.array(file.dict(file.catalog().value.get('AcroForm'))?.get('Fields')).map((field) => file.dict(field));
    // The second part's fields read their alignment as 0, the first's being 1: they get 0 of their own.
    expect(fields.map((field) => [(field?.get('Q') as PdfRaw | undefined)?.text, field?.has('Injected')])).toEqual([
      [undefined, false],
      ['0', false],
    ]);
  });

  it('a field that takes its form’s size and colour keeps its own part’s, in the assembly and in a split', async () => {
    const small = formPart([{ name: 'name', value: 'Ada' }], { needAppearances: true, fieldDa: null });
    const large = formPart([{ name: 'name', value: 'Ada' }], {
      needAppearances: true,
      fieldDa: null,
      formDa: '/Helv 22 Tf 1 0 0 rg',
    });
    expect(fieldRaster(large).equals(fieldRaster(small))).toBe(false);
    const res = await service.assemble({ parts: [{ pdf: b64(small) }, { pdf: b64(large) }] });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(fieldRaster(res.rawPayload, 1).equals(fieldRaster(small))).toBe(true);
    expect(fieldRaster(res.rawPayload, 2).equals(fieldRaster(large))).toBe(true);
    const split = await service.assemble({ parts: [{ pdf: b64(small) }, { pdf: b64(large) }], split: 'parts' });
    expect(split.statusCode, split.body.slice(0, 300)).toBe(200);
    const [first, second] = zipEntries(split.rawPayload).map(({ pdf }) => pdf);
    expect(fieldRaster(first).equals(fieldRaster(small))).toBe(true);
    expect(fieldRaster(second).equals(fieldRaster(large))).toBe(true);
  });

  it('another signer’s signature field is not listed, nor its signature carried', async () => {
    // The signature field (5) holds its widget (6) as a kid, beside a text field that is its own widget (7).
    const signed = pdfOfObjects(
      '1.7',
      [
        '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R 7 0 R] /SigFlags 3 >> >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Annots [6 0 R 7 0 R] >>',
        '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /Name (Mallory) /Contents <00> /ByteRange [0 0 0 0] >>',
        '<< /FT /Sig /T (approval) /V 4 0 R /Kids [6 0 R] >>',
        '<< /Type /Annot /Subtype /Widget /Parent 5 0 R /Rect [0 0 0 0] /P 3 0 R /F 132 >>',
        '<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /V (Ada) /Rect [72 600 300 630] /P 3 0 R /F 4 >>',
      ],
      '/Root 1 0 R',
    );
    const res = await service.assemble({ parts: [{ pdf: b64(signed) }] });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(formOf(res.rawPayload).fields).toEqual([{ name: 'name', value: 'Ada', page: 1 }]);
    expect(res.rawPayload.includes('Mallory')).toBe(false);
  });

  it('a signed assembly keeps the parts’ fields beside its signature field', async () => {
    const certificate = await uploadCertificate(service.app, service.key, certs.rsaChain, certs.password);
    const res = await service.assemble({
      parts: [{ pdf: b64(ada) }, { pdf: b64(grace) }],
      sign: { certificate },
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(formOf(res.rawPayload).fields.map((f) => f.name)).toEqual(['name', 'name-2']);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-form-'));
    try {
      fs.writeFileSync(path.join(dir, 'doc.pdf'), res.rawPayload);
      expect(execFileSync('pdfsig', [path.join(dir, 'doc.pdf')], { encoding: 'utf8' })).toContain('Signature is Valid');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
