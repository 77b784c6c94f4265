/**
 * POST /v1/assemble with `protect` and `sign`, checked with the tools a recipient has: qpdf
 * --show-encryption and pdftotext for the passwords and permissions, pdfsig for the signature made
 * with a certificate the account uploaded (POST /v1/certificates); and the refusals: another account's
 * certificate, one that expired after its upload, a PDF/A claim that encryption would break.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/certificates.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { page, postAssemble, postCertificate, tinyPdf } from './helpers.js';

let core: CoreDeps;
let app: FastifyInstance;
let certs: TestCertificates;
let alice: { accountId: string; key: string };
let bob: { accountId: string; key: string };
let certificate = '';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-assemble-sign-'));

beforeAll(async () => {
  certs = makeTestCertificates();
  core = await createTestCore({ CERTIFICATE_KEY: crypto.randomBytes(32).toString('hex') });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  alice = await createKey(core, 'render');
  bob = await createKey(core, 'render');
  certificate = (await upload(alice.key, certs.rsaChain)).id;
}, 180_000);
afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  fs.rmSync(work, { recursive: true, force: true });
});

async function upload(key: string, pkcs12: Buffer): Promise<{ id: string }> {
  const res = await postCertificate(app, key, pkcs12, certs.password);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** Runs a poppler or qpdf tool on the PDF; its exit status and output. */
function tool(pdf: Buffer, command: string, args: string[]): { status: number; out: string } {
  const file = path.join(work, `${crypto.randomBytes(4).toString('hex')}.pdf`);
  fs.writeFileSync(file, pdf);
  const run = spawnSync(command, [...args.map((a) => (a === 'FILE' ? file : a))], { encoding: 'utf8' });
  return { status: run.status ?? -1, out: `${run.stdout}${run.stderr}` };
}

const statement = {
  parts: [
    { html: page('Statement March 2026', 'Balance: 1,024.00 EUR') },
    { pdf: tinyPdf('Terms of account').toString('base64') },
  ],
};

describe('protect', () => {
  it('is AES-256 R6: nothing readable without the user password, everything with it, permissions as asked', async () => {
    const res = await postAssemble(app, alice.key, {
      ...statement,
      protect: { user_password: 'open sesame', owner_password: 'owner secret', allow: ['print'] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = res.rawPayload;
    const shown = tool(pdf, 'qpdf', ['--show-encryption', '--password=open sesame', 'FILE']).out;
    expect(shown).toMatch(/^R = 6$/m);
    expect(shown).toMatch(/AESv3/);
    expect(shown).toMatch(/^extract for accessibility: allowed$/m);
    expect(shown).toMatch(/^print high resolution: allowed$/m);
    expect(shown).toMatch(/^extract for any purpose: not allowed$/m);
    expect(shown).toMatch(/^modify other: not allowed$/m);
    const locked = tool(pdf, 'pdftotext', ['FILE', '-']);
    expect(locked.status).not.toBe(0);
    expect(locked.out).not.toContain('Balance');
    const opened = tool(pdf, 'pdftotext', ['-upw', 'open sesame', 'FILE', '-']);
    expect(opened.status).toBe(0);
    expect(opened.out).toContain('Balance: 1,024.00 EUR');
    expect(opened.out).toContain('Terms of account');
  }, 60_000);

  it('drops a PDF/A claim with a conformance warning, and strict handling refuses it', async () => {
    const archival = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Archived statement</title><meta name="pdf-profile" content="PDF/A-3b"></head><body><p>Balance</p></body></html>`;
    const body = { parts: [{ html: archival }], protect: { owner_password: 'owner secret' } };
    const res = await postAssemble(app, alice.key, body);
    expect(res.statusCode, res.body).toBe(200);
    expect(Number(res.headers['x-render-warnings'])).toBeGreaterThanOrEqual(1);
    let record: { claims: string[]; warnings: Array<{ kind: string; profile?: string }> } | undefined;
    for (let i = 0; i < 50 && !record; i++) {
      const got = await app.inject({
        method: 'GET',
        url: `/v1/renders/${res.headers['x-render-id']}`,
        headers: { authorization: `Bearer ${alice.key}` },
      });
      if (got.statusCode === 200) record = got.json();
      else await new Promise((r) => setTimeout(r, 100));
    }
    expect(record?.claims).toEqual([]);
    expect(record?.warnings).toContainEqual(expect.objectContaining({ kind: 'conformance', profile: 'PDF/A-3b' }));
    const strict = await postAssemble(app, alice.key, body, { prefer: 'handling=strict' });
    expect(strict.statusCode).toBe(422);
    expect(strict.json().error.code).toBe('RENDER_INCOMPLETE');
  }, 60_000);
});

describe('sign', () => {
  it('makes a signature pdfsig finds valid over the whole document, with the uploaded certificate’s subject', async () => {
    const res = await postAssemble(app, alice.key, {
      ...statement,
      sign: { certificate, reason: 'Statement issued', location: 'Lyon' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const checked = tool(res.rawPayload, 'pdfsig', ['FILE']).out;
    expect(checked).toContain('Signature is Valid');
    expect(checked).toContain('Total document signed');
    expect(checked).toContain('Acme Signing Ltd');
    // One changed byte inside the signed range breaks it.
    const changed = Buffer.from(res.rawPayload);
    const at = changed.indexOf('Balance');
    if (at > 0) changed[at] = 'b'.charCodeAt(0);
    else changed[200] ^= 1;
    expect(tool(changed, 'pdfsig', ['FILE']).out).not.toContain('Signature is Valid');
  }, 60_000);

  it('signs a protected assembly, which verifies with the password', async () => {
    const res = await postAssemble(app, alice.key, {
      ...statement,
      protect: { user_password: 'open sesame', owner_password: 'owner secret' },
      sign: { certificate },
    });
    expect(res.statusCode, res.body).toBe(200);
    const checked = tool(res.rawPayload, 'pdfsig', ['-upw', 'open sesame', 'FILE']).out;
    expect(checked).toContain('Signature is Valid');
    expect(checked).toContain('Total document signed');
  }, 60_000);

  it('refuses another account’s certificate before rendering anything', async () => {
    const res = await postAssemble(app, bob.key, { ...statement, sign: { certificate } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({
      code: 'INVALID_REQUEST',
      message: `sign.certificate: this account has no certificate ${certificate}`,
    });
  });

  it('refuses a certificate that expired after its upload', async () => {
    // Long enough for the key, the certificate and the upload on a busy machine; the wait outlasts it.
    const soon = shortLivedPkcs12(certs.password, 8_000);
    const { id } = await upload(alice.key, soon);
    await new Promise((r) => setTimeout(r, 8_500));
    const res = await postAssemble(app, alice.key, { ...statement, sign: { certificate: id } });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('CERTIFICATE_EXPIRED');
    expect(res.json().error.message).toMatch(/^sign\.certificate: /);
  }, 30_000);
});

/** A self-signed certificate valid for the next `ms` milliseconds, as PKCS#12. */
function shortLivedPkcs12(password: string, ms: number): Buffer {
  const pair = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = forge.pki.privateKeyFromPem(pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(pair.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '02';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + ms);
  const name = [{ name: 'commonName', value: 'Short-lived Signer' }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.sign(key, forge.md.sha256.create());
  const p12 = forge.pkcs12.toPkcs12Asn1(key, [cert], password, { algorithm: '3des' });
  return Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
}
