/**
 * PAdES signatures on rendered documents, checked with the tools a recipient uses: poppler's `pdfsig`
 * (valid, whole document, the certificate's subject), a changed byte (digest mismatch), veraPDF (a signed
 * PDF/A-3b + PDF/UA-1 invoice still passes both), `qpdf` (protected with AES-256, then signed with the
 * user or the owner password; object and cross-reference streams), and B-T with a timestamp authority on
 * 127.0.0.1 reached through the egress policy.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ParsedPkcs12, parsePkcs12 } from '../../src/accounts/pkcs12.js';
import { createPinnedAgent } from '../../src/net/pinned-agent.js';
import { createEgressPolicy } from '../../src/net/policy.js';
import { PdfPasswordError, rfc3161Timestamper, type Signer, signPdf, TimestampError } from '../../src/pdf/index.js';
import { children, readDer } from '../../src/pdf/sign/der.js';
import { invoiceDocument } from '../fixtures/pdf/profile-documents.js';
import { makeTestCertificates } from '../helpers/certificates.js';
import { noDns, postRender } from '../helpers/render.js';
import { startTestTsa, type TestTsa } from '../helpers/tsa-server.js';
import { type DeclarationsApp, startDeclarationsApp } from './declarations-app.js';
import { VERAPDF, VERAPDF_SKIPPED, verapdf } from './verapdf.js';

let ctx: DeclarationsApp;
let tsa: TestTsa;
let invoice: Buffer;
let rsa: ParsedPkcs12;
let ec: ParsedPkcs12;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-sign-'));
const forVerapdf: Record<string, Buffer> = {};

const signerOf = (p: ParsedPkcs12): Signer => ({
  certificateChain: p.chain,
  privateKey: crypto.createPrivateKey({ key: p.privateKeyDer, format: 'der', type: 'pkcs8' }),
});

/** What `pdfsig` prints for the file (its extra arguments first). */
function pdfsig(pdf: Buffer, ...args: string[]): string {
  const file = path.join(dir, `${crypto.randomUUID()}.pdf`);
  fs.writeFileSync(file, pdf);
  return spawnSync('pdfsig', [...args, file], { encoding: 'utf8' }).stdout;
}

/** `qpdf` over a PDF: its output file's bytes. */
function qpdf(pdf: Buffer, ...args: string[]): Buffer {
  const [input, output] = [path.join(dir, `${crypto.randomUUID()}.pdf`), path.join(dir, `${crypto.randomUUID()}.pdf`)];
  fs.writeFileSync(input, pdf);
  execFileSync('qpdf', [...args.map((a) => (a === 'IN' ? input : a === 'OUT' ? output : a))]);
  return fs.readFileSync(output);
}

beforeAll(async () => {
  const certs = makeTestCertificates();
  rsa = parsePkcs12(certs.rsaChain, certs.password);
  ec = parsePkcs12(certs.ec, certs.password);
  [ctx, tsa] = await Promise.all([startDeclarationsApp({ allowLoopback: false }), startTestTsa()]);
  const res = await postRender(ctx.app, ctx.key, { html: invoiceDocument('PDF/A-3b, PDF/UA-1'), options: { format: 'A4' } });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  invoice = res.rawPayload;
});
afterAll(async () => {
  await Promise.all([ctx?.close(), tsa?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('signPdf (PAdES B-B)', () => {
  it('makes a signature pdfsig finds valid over the whole document, by the certificate’s subject', async () => {
    const signed = Buffer.from(await signPdf(invoice, { signer: signerOf(rsa), reason: 'Invoice issued', location: 'London' }));
    expect(signed.subarray(0, invoice.length).equals(invoice), 'the original bytes come first, unchanged').toBe(true);
    const report = pdfsig(signed);
    expect(report).toContain('Signer Certificate Common Name: Acme Signing Ltd');
    expect(report).toContain('Signature Type: ETSI.CAdES.detached');
    expect(report).toContain('Signing Hash Algorithm: SHA-256');
    expect(report).toContain('Total document signed');
    expect(report).toContain('Signature Validation: Signature is Valid.');
    forVerapdf['invoice-signed'] = signed;

    // One byte changed inside the signed range: the digest no longer matches.
    const tampered = Buffer.from(signed);
    const at = tampered.indexOf('/Producer');
    tampered[at + 12] ^= 0x01;
    const broken = pdfsig(tampered);
    expect(broken).not.toContain('Signature is Valid');
    expect(broken).toContain('Digest Mismatch');
  });

  it('signs with an EC key, and signs a signed file again (both signatures stay valid)', async () => {
    const once = Buffer.from(await signPdf(invoice, { signer: signerOf(rsa) }));
    const twice = Buffer.from(await signPdf(once, { signer: signerOf(ec) }));
    const report = pdfsig(twice);
    expect(report).toContain('Signature #2');
    expect(report.match(/Signature is Valid\./g)).toHaveLength(2);
    expect(report).toContain('Signer Certificate Common Name: EC Signer');
    expect(report.match(/Total document signed/g)).toHaveLength(1);
  });

  it('signs a file with object and cross-reference streams', async () => {
    const packed = qpdf(invoice, '--object-streams=generate', 'IN', 'OUT');
    expect(packed.includes('/ObjStm')).toBe(true);
    const report = pdfsig(Buffer.from(await signPdf(packed, { signer: signerOf(rsa) })));
    expect(report).toContain('Total document signed');
    expect(report).toContain('Signature is Valid.');
  });
});

describe('signPdf on a protected PDF (AES-256, R6)', () => {
  it.each([
    ['the user password', 'user-pw'],
    ['the owner password', 'owner-pw'],
  ])('signs with %s; pdfsig verifies with either password', async (_what, password) => {
    for (const packing of ['preserve', 'generate']) {
      const protectedPdf = qpdf(
        invoice,
        `--object-streams=${packing}`,
        '--encrypt',
        'user-pw',
        'owner-pw',
        '256',
        '--',
        'IN',
        'OUT',
      );
      const signed = Buffer.from(await signPdf(protectedPdf, { signer: signerOf(rsa), password, reason: 'Statement approved' }));
      for (const flags of [
        ['-upw', 'user-pw'],
        ['-opw', 'owner-pw'],
      ]) {
        const report = pdfsig(signed, ...flags);
        expect(report, `${packing} ${flags[0]}`).toContain('Signature is Valid.');
        expect(report).toContain('Total document signed');
      }
      // The new objects' strings are encrypted with the file key: qpdf decrypts the reason back.
      const clear = qpdf(signed, '--password=user-pw', '--decrypt', '--qdf', '--object-streams=disable', 'IN', 'OUT');
      expect(clear.toString('latin1')).toContain('/Reason (Statement approved)');
      expect(signed.toString('latin1')).not.toContain('Statement approved');
    }
  });

  it('refuses a protected PDF without its password, or with a wrong one', async () => {
    const protectedPdf = qpdf(invoice, '--encrypt', 'user-pw', 'owner-pw', '256', '--', 'IN', 'OUT');
    await expect(signPdf(protectedPdf, { signer: signerOf(rsa) })).rejects.toBeInstanceOf(PdfPasswordError);
    await expect(signPdf(protectedPdf, { signer: signerOf(rsa), password: 'nope' })).rejects.toThrow(
      'the password does not open the PDF',
    );
  });
});

describe('signPdf with a timestamp authority (PAdES B-T)', () => {
  it('carries a timestamp token over the signature value, fetched through the egress policy', async () => {
    const policy = createEgressPolicy({ allow: ['127.0.0.1/32'], lookup: noDns });
    const agent = createPinnedAgent();
    try {
      const signed = Buffer.from(
        await signPdf(invoice, { signer: signerOf(rsa), timestamp: rfc3161Timestamper(tsa.url, policy, agent) }),
      );
      const report = pdfsig(signed);
      expect(report).toContain('Signature is Valid.');
      expect(report).toContain('Total document signed');
      // The token's imprint is SHA-256 of this signature's value; the token is the unsigned attribute.
      const text = signed.toString('latin1');
      const hex = /\/Contents <([0-9a-f]+)>/.exec(text.slice(text.lastIndexOf('/ETSI.CAdES.detached')))![1];
      const signedData = children(children(readDer(Buffer.from(hex, 'hex')))[1])[0];
      const signerInfo = children(children(signedData).at(-1)!)[0];
      const parts = children(signerInfo);
      const signatureValue = parts[5].contents;
      expect(tsa.imprints).toHaveLength(1);
      expect(tsa.imprints[0].equals(crypto.createHash('sha256').update(signatureValue).digest())).toBe(true);
      expect(parts[6].tag).toBe(0xa1);
      expect(parts[6].bytes.includes(tsa.certificate)).toBe(true);
      forVerapdf['invoice-signed-bt'] = signed;
    } finally {
      await agent.close();
    }
  });

  it('fails with the egress policy’s reason when the authority is at a refused address', async () => {
    const policy = createEgressPolicy({ allow: [], lookup: noDns });
    const agent = createPinnedAgent();
    try {
      const signing = signPdf(invoice, { signer: signerOf(rsa), timestamp: rfc3161Timestamper(tsa.url, policy, agent) });
      await expect(signing).rejects.toBeInstanceOf(TimestampError);
      expect(tsa.imprints).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });
});

describe('veraPDF', () => {
  it('a signed PDF/A-3b + PDF/UA-1 invoice still passes both (one JVM per flavour)', { timeout: 300_000 }, () => {
    if (!VERAPDF) {
      console.log(VERAPDF_SKIPPED);
      return;
    }
    expect(Object.keys(forVerapdf)).toEqual(['invoice-signed', 'invoice-signed-bt']);
    expect(verapdf(forVerapdf, '3b')).toEqual({ 'invoice-signed': [], 'invoice-signed-bt': [] });
    expect(verapdf(forVerapdf, 'ua1')).toEqual({ 'invoice-signed': [], 'invoice-signed-bt': [] });
  });
});
