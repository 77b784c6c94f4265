/**
 * protectPdf's own AES-256 (R6) encryption checked against qpdf and poppler: qpdf decrypts every object
 * back to what the input held (strings written every way the syntax allows, streams, a signature's clear
 * /Contents), `qpdf --check` is clean, the permission bits read as qpdf's own encryption of the same
 * request reads, pdftotext opens it with either password and not without; a signature made with the
 * file key protect handed back verifies; and the CBC code against OpenSSL's.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parsePkcs12 } from '../../src/accounts/pkcs12.js';
import { PdfPasswordError, type Permission, protectPdf, protectPdfWithKey, signPdf } from '../../src/pdf/index.js';
import { AesCbc } from '../../src/pdf/protect/aes-256.js';
import { pdfOfObjects } from '../assemble/helpers.js';
import { makeTestCertificates } from '../helpers/certificates.js';
import { withObjectStreams } from './assemble-tools.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-protect-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(pdf: Buffer): string {
  const name = path.join(dir, `${crypto.randomUUID()}.pdf`);
  fs.writeFileSync(name, pdf);
  return name;
}

/** Every object (and the trailer) as `qpdf --json` reads it, decrypted with `password` when given. */
function objects(pdf: Buffer, password?: string): Record<string, unknown> {
  const args = ['--json=2', '--json-key=qpdf', '--json-stream-data=inline', '--decode-level=none'];
  if (password !== undefined) args.unshift(`--password=${password}`);
  const json = JSON.parse(execFileSync('qpdf', [...args, file(pdf)], { encoding: 'utf8', maxBuffer: 64 << 20 }));
  return json.qpdf[1];
}

/** A PDF whose strings take every form: escapes, nested parentheses, octal, hex with spaces, a comment, a signature. */
function stringsPdf(): Buffer {
  const content = 'BT /F1 18 Tf 72 720 Td (Balance \\(net\\): 1,024.00 EUR) Tj 0 -30 Td <48656c6c6f> Tj ET';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R /Lang (en-GB) /AcroForm << /Fields [7 0 R] >> >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R /Annots [7 0 R] >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Title (Nested (paren\\)s) and \\\\ and \\101\\102) % a comment with ( in it\n/Subject <41 42 43 4> /Keywords () /Author (line\\\nbreak) /CreationDate (D:20260301120000+00'00') >>",
    '<< /FT /Sig /T (Signature1) /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /P 3 0 R /V 8 0 R >>',
    '<< /Type /Sig /Filter /Adobe.PPKLite /ByteRange [0 10 20 30] /Contents <3082abcdef> /Reason (because) >>',
    '[(an array) <00ff> 12 /Name#20x (endobj) ]',
  ];
  return pdfOfObjects('1.7', objects, '/Root 1 0 R /Info 6 0 R /ID [<0123> <0123>]');
}

describe('protectPdf', () => {
  it('encrypts every string and stream so that qpdf decrypts each object back to what it was', async () => {
    const input = stringsPdf();
    const pdf = Buffer.from(await protectPdf(input, { userPassword: 'user pw', ownerPassword: 'owner pw' }));
    const check = spawnSync('qpdf', ['--check', '--password=user pw', file(pdf)], { encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toContain('No syntax or stream encoding errors');
    // Nothing readable is left in the bytes: not the text, not the title, not the array's string.
    for (const clear of ['Balance', 'Nested', 'an array', 'because', 'Signature1']) expect(pdf.includes(clear)).toBe(false);
    // The signature's /Contents is the one string left clear (ISO 32000-2 7.6.2).
    expect(pdf.includes('<3082abcdef>')).toBe(true);

    const before = objects(input);
    for (const password of ['user pw', 'owner pw']) {
      const after = objects(pdf, password);
      const changed = Object.keys(after).filter((key) => JSON.stringify(after[key]) !== JSON.stringify(before[key]));
      // Only the catalog (AES-256's extension level declared), the trailer and the new /Encrypt differ.
      expect(changed.sort()).toEqual(['obj:1 0 R', 'obj:10 0 R', 'trailer']);
      const catalog = (after['obj:1 0 R'] as { value: Record<string, unknown> }).value;
      expect(catalog['/Extensions']).toEqual({ '/ADBE': { '/BaseVersion': '/1.7', '/ExtensionLevel': 8 } });
      expect(catalog['/Lang']).toBe('u:en-GB');
    }
    const text = spawnSync('pdftotext', ['-upw', 'user pw', file(pdf), '-'], { encoding: 'utf8' });
    expect(text.stdout).toContain('Balance (net): 1,024.00 EUR');
    expect(spawnSync('pdfinfo', ['-upw', 'user pw', file(pdf)], { encoding: 'utf8' }).stdout).toMatch(
      /^Title: +Nested \(paren\)s\) and \\ and AB$/m,
    );
    const locked = spawnSync('pdftotext', [file(pdf), '-'], { encoding: 'utf8' });
    expect(locked.status).not.toBe(0);
    expect(locked.stdout).not.toContain('Balance');
  });

  it('grants the permissions qpdf grants for the same request, accessibility always', async () => {
    const qpdfArgs: Record<Permission, string> = {
      print: '--print=full',
      copy: '--extract=y',
      modify: '--modify-other=y',
      annotate: '--annotate=y',
      'fill-forms': '--form=y',
      assemble: '--assemble=y',
    };
    const denied = ['--print=none', '--extract=n', '--modify-other=n', '--annotate=n', '--form=n', '--assemble=n'];
    const input = stringsPdf();
    const requests: Permission[][] = [
      [],
      ['print'],
      ['copy'],
      ['modify', 'annotate'],
      ['fill-forms', 'assemble'],
      Object.keys(qpdfArgs) as Permission[],
    ];
    for (const allow of requests) {
      const ours = Buffer.from(await protectPdf(input, { ownerPassword: 'o', allow }));
      const theirs = path.join(dir, `${crypto.randomUUID()}.pdf`);
      const granted = allow.map((p) => qpdfArgs[p]);
      const args = denied.filter((d) => !granted.some((g) => g.split('=')[0] === d.split('=')[0]));
      execFileSync('qpdf', ['--encrypt', '', 'o', '256', ...args, ...granted, '--accessibility=y', '--', file(input), theirs]);
      const show = (f: string) =>
        execFileSync('qpdf', ['--show-encryption', f], { encoding: 'utf8' }).replace(/^User password = .*\n/m, '');
      expect(show(file(ours)), allow.join(',')).toBe(show(theirs));
    }
  });

  it('protects a PDF with object streams (read through qpdf first), every page readable with the password', async () => {
    const input = withObjectStreams(stringsPdf());
    const pdf = Buffer.from(await protectPdf(input, { userPassword: 'u', ownerPassword: 'o' }));
    expect(spawnSync('qpdf', ['--check', '--password=u', file(pdf)]).status).toBe(0);
    expect(execFileSync('qpdf', ['--show-encryption', '--password=u', file(pdf)], { encoding: 'utf8' })).toMatch(/^R = 6$/m);
    expect(spawnSync('pdftotext', ['-upw', 'u', file(pdf), '-'], { encoding: 'utf8' }).stdout).toContain('Balance (net)');
  });
});

describe('signing with the file key protectPdfWithKey hands back', () => {
  it('needs no password, falls back to the password for a wrong key, and refuses when neither opens the file', async () => {
    const certs = makeTestCertificates();
    const parsed = parsePkcs12(certs.rsaChain, certs.password);
    const signer = {
      certificateChain: parsed.chain,
      privateKey: crypto.createPrivateKey({ key: parsed.privateKeyDer, format: 'der', type: 'pkcs8' }),
    };
    const { pdf, fileKey } = await protectPdfWithKey(stringsPdf(), { userPassword: 'u', ownerPassword: 'o' });
    const signedWithKey = Buffer.from(await signPdf(pdf, { signer, fileKey, password: 'not the password' }));
    const signedWithPassword = Buffer.from(await signPdf(pdf, { signer, fileKey: crypto.randomBytes(32), password: 'u' }));
    for (const signed of [signedWithKey, signedWithPassword]) {
      const checked = spawnSync('pdfsig', ['-upw', 'u', file(signed)], { encoding: 'utf8' }).stdout;
      expect(checked).toContain('Signature is Valid');
      expect(checked).toContain('Total document signed');
      expect(spawnSync('qpdf', ['--check', '--password=u', file(signed)]).status).toBe(0);
    }
    await expect(signPdf(pdf, { signer, fileKey: crypto.randomBytes(32), password: 'wrong' })).rejects.toBeInstanceOf(
      PdfPasswordError,
    );
  });
});

describe('AesCbc', () => {
  it('writes what OpenSSL decrypts back, for short strings and long streams', () => {
    const key = crypto.randomBytes(32);
    const aes = new AesCbc(key);
    for (const length of [0, 1, 15, 16, 17, 31, 32, 33, 100, 511, 512, 513, 5000]) {
      const data = crypto.randomBytes(length);
      const sealed = aes.encrypt(data);
      expect(sealed.length).toBe(16 + (Math.floor(length / 16) + 1) * 16);
      const decipher = crypto.createDecipheriv('aes-256-cbc', key, sealed.subarray(0, 16));
      expect(Buffer.concat([decipher.update(sealed.subarray(16)), decipher.final()]).equals(data), String(length)).toBe(true);
    }
    // Every string gets its own IV.
    expect(aes.encrypt(Buffer.from('x')).equals(aes.encrypt(Buffer.from('x')))).toBe(false);
  });
});
