/**
 * A signature in a PDF/A-3b assembly stays within PDF/A's 32,767-byte string limit: signed with a 30 KB
 * certificate (padded with a large extension by an openssl config), /Contents is sized to the CMS and the
 * file still claims PDF/A-3b and passes veraPDF; with a 40 KB certificate the signature cannot fit, so the
 * signed file no longer claims PDF/A (its XMP says so in the signature's update) and a conformance warning
 * names the certificate's size. pdfsig finds both signatures valid.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { xmpClaimsOf } from '../pdf/assemble-tools.js';
import { VERAPDF, VERAPDF_SKIPPED, verapdf } from '../pdf/verapdf.js';
import { postAssemble, postCertificate } from './helpers.js';

const PASSWORD = 'padded 7';
let core: CoreDeps;
let app: FastifyInstance;
let alice: { accountId: string; key: string };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-sign-pdfa-'));

beforeAll(async () => {
  core = await createTestCore({ CERTIFICATE_KEY: crypto.randomBytes(32).toString('hex') });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  alice = await createKey(core, 'render');
}, 60_000);
afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A self-signed RSA-2048 certificate padded to about `kib` KiB with a private extension, uploaded; its id and DER size. */
async function paddedCertificate(name: string, kib: number): Promise<{ id: string; bytes: number }> {
  const config = [
    '[req]',
    'distinguished_name = dn',
    'x509_extensions = ext',
    'prompt = no',
    '[dn]',
    `CN = ${name}`,
    '[ext]',
    'basicConstraints = CA:TRUE',
    'keyUsage = digitalSignature, nonRepudiation, keyCertSign',
    `1.3.6.1.4.1.55555.1 = ASN1:UTF8String:${'x'.repeat(kib * 1024)}`,
  ].join('\n');
  fs.writeFileSync(path.join(dir, `${name}.cnf`), config);
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  run(
    'req',
    '-x509',
    '-config',
    `${name}.cnf`,
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.pem`,
    '-days',
    '30',
  );
  run('pkcs12', '-export', '-in', `${name}.pem`, '-inkey', `${name}.key`, '-out', `${name}.p12`, '-passout', `pass:${PASSWORD}`);
  const der = new crypto.X509Certificate(fs.readFileSync(path.join(dir, `${name}.pem`))).raw;
  const res = await postCertificate(app, alice.key, fs.readFileSync(path.join(dir, `${name}.p12`)), PASSWORD);
  expect(res.statusCode, res.body).toBe(201);
  return { id: res.json().id, bytes: der.length };
}

const archival =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Archived statement</title>' +
  '<meta name="pdf-profile" content="PDF/A-3b"></head><body><p>Balance: 1,024.00 EUR</p></body></html>';

/** The bytes the signature's /Contents string holds, from its /ByteRange (the gap less the angle brackets, in hex digits). */
function contentsBytes(pdf: Buffer): number {
  const text = pdf.toString('latin1');
  const range = /\/ByteRange\s*\[\s*0\s+(\d+)\s+(\d+)\s+\d+\s*\]/.exec(text.slice(text.lastIndexOf('/ByteRange')));
  if (!range) throw new Error('no /ByteRange');
  return (Number(range[2]) - Number(range[1]) - 2) / 2;
}

function pdfsig(pdf: Buffer): string {
  const file = path.join(dir, `${crypto.randomBytes(4).toString('hex')}.pdf`);
  fs.writeFileSync(file, pdf);
  return spawnSync('pdfsig', [file], { encoding: 'utf8' }).stdout;
}

async function recordOf(id: string): Promise<{ claims: string[]; warnings: Array<Record<string, unknown>> }> {
  for (let i = 0; i < 50; i++) {
    const got = await app.inject({ method: 'GET', url: `/v1/renders/${id}`, headers: { authorization: `Bearer ${alice.key}` } });
    if (got.statusCode === 200) return got.json();
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no record for ${id}`);
}

describe('a signed PDF/A-3b assembly', () => {
  it('signed with a 30 KB certificate keeps /Contents within 32,767 bytes and its PDF/A-3b claim', async () => {
    const cert = await paddedCertificate('Thirty KB Signer', 30);
    expect(cert.bytes).toBeGreaterThan(30_000);
    const res = await postAssemble(app, alice.key, { parts: [{ html: archival }], sign: { certificate: cert.id } });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = res.rawPayload;
    expect(contentsBytes(pdf)).toBeLessThanOrEqual(32_767);
    expect(contentsBytes(pdf)).toBeGreaterThan(cert.bytes);
    expect(pdfsig(pdf)).toContain('Signature is Valid');
    expect(xmpClaimsOf(pdf)).toEqual(['PDF/A-3b']);
    expect((await recordOf(String(res.headers['x-render-id']))).claims).toEqual(['PDF/A-3b']);
    expect(res.headers['x-render-warnings']).toBe('0');
    if (!VERAPDF) console.log(VERAPDF_SKIPPED);
    else expect(verapdf({ signed: pdf }, '3b')).toEqual({ signed: [] });
  }, 120_000);

  it('signed with a 40 KB certificate no longer claims PDF/A, and a warning names the certificate’s size', async () => {
    const cert = await paddedCertificate('Forty KB Signer', 40);
    const res = await postAssemble(app, alice.key, { parts: [{ html: archival }], sign: { certificate: cert.id } });
    expect(res.statusCode, res.body).toBe(200);
    const pdf = res.rawPayload;
    expect(contentsBytes(pdf)).toBeGreaterThan(32_767);
    expect(pdfsig(pdf)).toContain('Signature is Valid');
    expect(pdfsig(pdf)).toContain('Total document signed');
    expect(xmpClaimsOf(pdf)).toEqual([]);
    const record = await recordOf(String(res.headers['x-render-id']));
    expect(record.claims).toEqual([]);
    const warning = record.warnings.find((w) => w.kind === 'conformance');
    expect(warning).toMatchObject({ profile: 'PDF/A-3b', clause: '6.1.13', element: 'sign' });
    expect(String(warning?.message)).toContain(`the signing certificate (${cert.bytes.toLocaleString('en-US')} bytes)`);
    expect(String(warning?.message)).toContain('over the 32,767 bytes PDF/A allows a string');
    // Strict handling refuses what it cannot claim.
    const strict = await postAssemble(
      app,
      alice.key,
      { parts: [{ html: archival }], sign: { certificate: cert.id } },
      {
        prefer: 'handling=strict',
      },
    );
    expect(strict.statusCode).toBe(422);
  }, 120_000);
});
