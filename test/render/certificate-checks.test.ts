/**
 * POST /v1/certificates refuses, with a 400 naming the reason, what would make a signature readers reject
 * or the service stall: a certificate not yet valid, one whose key usage does not sign, RSA-1024, an EC key
 * on secp256k1, and a PKCS#12 file asking millions of iterations of its MAC's or a bag's key derivation
 * (refused before any is run). A self-signed certificate as `openssl req -x509` makes it stays accepted.
 * The certificates are made with openssl in a temporary directory (node-forge for a start date in the
 * future, which openssl 3.0's req and x509 cannot set).
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';

const PASSWORD = 'correct horse 7';
let core: CoreDeps;
let app: FastifyInstance;
let alice: { accountId: string; key: string };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-cert-checks-'));

beforeAll(async () => {
  core = await createTestCore({ CERTIFICATE_KEY: crypto.randomBytes(32).toString('hex') });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  alice = await createKey(core, 'render');
});
afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  fs.rmSync(dir, { recursive: true, force: true });
});

const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

/** A self-signed certificate as `openssl req -x509` makes it (CA:TRUE), with `newkey` and extra `-addext`s, as PKCS#12. */
function selfSigned(name: string, opts: { newkey?: string; key?: string; addext?: string[] } = {}): Buffer {
  const keyArgs = opts.key ? ['-key', opts.key] : ['-newkey', opts.newkey ?? 'rsa:2048', '-nodes', '-keyout', `${name}.key`];
  const ext = (opts.addext ?? []).flatMap((e) => ['-addext', e]);
  openssl('req', '-x509', ...keyArgs, '-out', `${name}.pem`, '-days', '30', '-subj', `/CN=${name}`, ...ext);
  const key = opts.key ?? `${name}.key`;
  openssl('pkcs12', '-export', '-in', `${name}.pem`, '-inkey', key, '-out', `${name}.p12`, '-passout', `pass:${PASSWORD}`);
  return fs.readFileSync(path.join(dir, `${name}.p12`));
}

async function upload(pkcs12: Buffer): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const started = performance.now();
  const res = await app.inject({
    method: 'POST',
    url: '/v1/certificates',
    headers: { authorization: `Bearer ${alice.key}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ pkcs12: pkcs12.toString('base64'), password: PASSWORD }),
  });
  return { status: res.statusCode, body: res.json(), ms: performance.now() - started };
}

function errorOf(res: { body: Record<string, unknown> }): { code: string; message: string } {
  return res.body.error as { code: string; message: string };
}

describe('certificates that cannot make a signature readers accept', () => {
  it('accepts a self-signed certificate as openssl req -x509 makes it, and key usages that sign', async () => {
    const plain = await upload(selfSigned('Plain Signer'));
    expect(plain.status, JSON.stringify(plain.body)).toBe(201);
    const usage = await upload(selfSigned('Usage Signer', { addext: ['keyUsage=critical,digitalSignature,keyCertSign'] }));
    expect(usage.status, JSON.stringify(usage.body)).toBe(201);
    const nonRepudiation = await upload(selfSigned('Seal Signer', { addext: ['keyUsage=nonRepudiation'] }));
    expect(nonRepudiation.status, JSON.stringify(nonRepudiation.body)).toBe(201);
    const p384 = await upload(selfSigned('P384 Signer', { key: makeEcKey('secp384r1') }));
    expect(p384.status, JSON.stringify(p384.body)).toBe(201);
  }, 60_000);

  it('refuses a key usage that does not sign', async () => {
    const res = await upload(selfSigned('Encipher Only', { addext: ['keyUsage=critical,keyEncipherment'] }));
    expect(res.status).toBe(400);
    expect(errorOf(res)).toEqual({
      code: 'INVALID_REQUEST',
      message: 'pkcs12: the certificate’s key usage does not allow signing (it needs digitalSignature or nonRepudiation)',
    });
  }, 30_000);

  it('refuses RSA-1024', async () => {
    const res = await upload(selfSigned('Weak Signer', { newkey: 'rsa:1024' }));
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toBe('pkcs12: an RSA key of 1024 bits is too weak to sign (2048 or more)');
  }, 30_000);

  it('refuses an EC key on secp256k1', async () => {
    const res = await upload(selfSigned('K1 Signer', { key: makeEcKey('secp256k1') }));
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toBe(
      'pkcs12: an EC key on secp256k1 makes signatures PDF readers do not verify (use P-256, P-384 or P-521)',
    );
  }, 30_000);

  it('refuses a certificate that is not valid yet', async () => {
    const from = new Date(Date.now() + 7 * 86_400_000);
    from.setUTCMilliseconds(0);
    const res = await upload(futurePkcs12(from));
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toBe(`pkcs12: the certificate is not valid before ${from.toISOString()}`);
  }, 30_000);
});

describe('iteration counts a PKCS#12 file asks for', () => {
  for (const count of [16_000_000, 2_147_483_647]) {
    it(`refuses ${count.toLocaleString('en-US')} iterations of the MAC in milliseconds`, async () => {
      const file = withMacIterations(selfSigned(`Mac ${count}`), count);
      expect(file.length).toBeLessThan(4096);
      const res = await upload(file);
      expect(res.status).toBe(400);
      expect(errorOf(res).message).toBe(
        `pkcs12: its MAC asks for ${count.toLocaleString('en-US')} iterations, more than the 100,000 accepted (export it again, for example with \`openssl pkcs12 -export -iter 2048\`)`,
      );
      // 16,000,000 iterations of the MAC's derivation take node-forge minutes; none is run.
      expect(res.ms).toBeLessThan(1_000);
    }, 30_000);
  }

  it('refuses a bag encrypted with 16,000,000 PBKDF2 iterations before decrypting it (its MAC is right)', async () => {
    const file = withBagIterations(selfSigned('Bag Iterations'), 16_000_000);
    const res = await upload(file);
    expect(res.status).toBe(400);
    expect(errorOf(res).message).toMatch(/^pkcs12: its encryption asks for 16,000,000 iterations, more than the 100,000/);
    expect(res.ms).toBeLessThan(2_000);
  }, 30_000);
});

function makeEcKey(curve: string): string {
  openssl('ecparam', '-name', curve, '-genkey', '-noout', '-out', `${curve}.key`);
  return `${curve}.key`;
}

/** A self-signed RSA certificate valid from `from`, as PKCS#12. */
function futurePkcs12(from: Date): Buffer {
  const pair = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = forge.pki.privateKeyFromPem(pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(pair.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '03';
  cert.validity.notBefore = from;
  cert.validity.notAfter = new Date(from.getTime() + 30 * 86_400_000);
  const name = [{ name: 'commonName', value: 'Future Signer' }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.sign(key, forge.md.sha256.create());
  const p12 = forge.pkcs12.toPkcs12Asn1(key, [cert], PASSWORD, { algorithm: '3des' });
  return Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
}

type Node = forge.asn1.Asn1;
const kids = (n: Node): Node[] => n.value as Node[];
const intBytes = (n: number): string => {
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  if (Number.parseInt(hex.slice(0, 2), 16) >= 0x80) hex = `00${hex}`;
  return forge.util.hexToBytes(hex);
};
const parse = (p12: Buffer): Node => forge.asn1.fromDer(forge.util.createBuffer(p12.toString('binary')));
const der = (n: Node): Buffer => Buffer.from(forge.asn1.toDer(n).getBytes(), 'binary');

/** The file with its MAC's iteration count set to `count` (the MAC no longer checks: nothing should get that far). */
function withMacIterations(p12: Buffer, count: number): Buffer {
  const pfx = parse(p12);
  kids(kids(pfx)[2])[2].value = intBytes(count);
  return der(pfx);
}

/**
 * The file with its encrypted bag's PBKDF2 iteration count set to `count` and its MAC computed again over
 * the changed contents (with the MAC's own 2,048 iterations), so only the bag's count is wrong.
 */
function withBagIterations(p12: Buffer, count: number): Buffer {
  const pfx = parse(p12);
  const content = kids(kids(kids(pfx)[1])[1])[0];
  const safe = forge.asn1.fromDer(content.value as string);
  const encrypted = kids(safe).find((ci) => forge.asn1.derToOid(kids(ci)[0].value as string) === forge.pki.oids.encryptedData);
  if (!encrypted) throw new Error('openssl wrote no encrypted bag');
  // EncryptedData { version, EncryptedContentInfo { type, algorithm { PBES2, { kdf { PBKDF2, { salt, count } } } } } }
  const algorithm = kids(kids(kids(kids(encrypted)[1])[0])[1])[1];
  const kdfParams = kids(kids(kids(algorithm)[1])[0])[1];
  kids(kdfParams)[1].value = intBytes(count);
  content.value = forge.asn1.toDer(safe).getBytes();
  const macData = kids(pfx)[2];
  const [digestInfo, salt, iterations] = kids(macData);
  const md = forge.md.sha256.create();
  const iterationCount = Number.parseInt(forge.util.bytesToHex(iterations.value as string), 16);
  const macKey = forge.pkcs12.generateKey(PASSWORD, forge.util.createBuffer(salt.value as string), 3, iterationCount, 32, md);
  const hmac = forge.hmac.create();
  hmac.start(md, macKey);
  hmac.update(content.value as string);
  kids(digestInfo)[1].value = hmac.digest().getBytes();
  return der(pfx);
}
