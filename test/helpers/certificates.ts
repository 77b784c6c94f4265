/**
 * Signing certificates made at test time: with `openssl` (a CA-issued RSA chain, an EC key, a file
 * without its key) and, for a certificate that expired already (openssl 3.0's `req` cannot backdate),
 * node-forge. Each comes back as the PKCS#12 bytes a user would upload.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import forge from 'node-forge';

/** The PKCS#12 files of one test run, all with `password`. */
export interface TestCertificates {
  password: string;
  /** An RSA leaf (`CN=Acme Signing Ltd, O=Acme, C=GB`) issued by a CA, chain included. */
  rsaChain: Buffer;
  /** A self-signed EC P-256 certificate (`CN=EC Signer`). */
  ec: Buffer;
  /** The RSA leaf without its private key. */
  noKey: Buffer;
  /** A self-signed RSA certificate that expired on 2021-01-01. */
  expired: Buffer;
  /** The RSA leaf's private key (PKCS#8 PEM), to look for in logs and the store. */
  rsaKeyPem: string;
}

/** Makes the test certificates in a temporary directory (removed before returning). */
export function makeTestCertificates(password = 'correct horse 7'): TestCertificates {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-certs-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const file = (name: string) => fs.readFileSync(path.join(dir, name));
  try {
    run(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '30',
      '-subj',
      '/CN=Test CA/O=Acme',
    );
    run(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'leaf.key',
      '-out',
      'leaf.csr',
      '-subj',
      '/CN=Acme Signing Ltd/O=Acme/C=GB',
    );
    run(
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '30',
      '-out',
      'leaf.pem',
    );
    run(
      'pkcs12',
      '-export',
      '-in',
      'leaf.pem',
      '-inkey',
      'leaf.key',
      '-certfile',
      'ca.pem',
      '-out',
      'chain.p12',
      '-passout',
      `pass:${password}`,
    );
    run('pkcs12', '-export', '-nokeys', '-in', 'leaf.pem', '-out', 'nokey.p12', '-passout', `pass:${password}`);
    run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ec.key');
    run('req', '-x509', '-key', 'ec.key', '-out', 'ec.pem', '-days', '30', '-subj', '/CN=EC Signer');
    run('pkcs12', '-export', '-in', 'ec.pem', '-inkey', 'ec.key', '-out', 'ec.p12', '-passout', `pass:${password}`);
    return {
      password,
      rsaChain: file('chain.p12'),
      ec: file('ec.p12'),
      noKey: file('nokey.p12'),
      expired: expiredPkcs12(password),
      rsaKeyPem: crypto.createPrivateKey(file('leaf.key')).export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function expiredPkcs12(password: string): Buffer {
  const pair = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = forge.pki.privateKeyFromPem(pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(pair.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date('2020-01-01T00:00:00Z');
  cert.validity.notAfter = new Date('2021-01-01T00:00:00Z');
  const name = [{ name: 'commonName', value: 'Expired Signer' }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.sign(key, forge.md.sha256.create());
  const p12 = forge.pkcs12.toPkcs12Asn1(key, [cert], password, { algorithm: '3des' });
  return Buffer.from(forge.asn1.toDer(p12).getBytes(), 'binary');
}
