/**
 * A minimal RFC 3161 timestamp authority on 127.0.0.1 for the tests: it answers a TimeStampReq with a
 * granted TimeStampResp whose token (CMS SignedData over a TSTInfo) is signed by its own certificate
 * (extended key usage timeStamping, made with openssl). Built with node:crypto and the DER helpers the
 * signer itself uses. It counts its requests.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { issuerAndSerial } from '../../src/pdf/sign/cms.js';
import { algorithm, children, der, explicit, int, octets, oid, readDer, seq, setOf } from '../../src/pdf/sign/der.js';

/** A running authority: its URL, its certificate (DER), the imprints it stamped, and close(). */
export interface TestTsa {
  url: string;
  certificate: Buffer;
  imprints: Buffer[];
  close(): Promise<void>;
}

function generalizedTime(date: Date): Buffer {
  return der(0x18, Buffer.from(`${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`));
}

/** Starts the authority. */
export async function startTestTsa(): Promise<TestTsa> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-tsa-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'tsa.key',
      '-out',
      'tsa.pem',
      '-days',
      '30',
      '-subj',
      '/CN=Test TSA',
      '-addext',
      'extendedKeyUsage=critical,timeStamping',
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  const key = crypto.createPrivateKey(fs.readFileSync(path.join(dir, 'tsa.key')));
  const certificate = new crypto.X509Certificate(fs.readFileSync(path.join(dir, 'tsa.pem'))).raw;
  fs.rmSync(dir, { recursive: true, force: true });
  const imprints: Buffer[] = [];
  let serial = 1;

  const token = (request: Buffer): Buffer => {
    const [, imprint, nonce] = children(readDer(request));
    imprints.push(children(imprint)[1].contents);
    const tstInfo = seq(
      int(1),
      oid('1.3.6.1.4.1.99999.1'),
      imprint.bytes,
      int(serial++),
      generalizedTime(new Date()),
      ...(nonce?.tag === 0x02 ? [nonce.bytes] : []),
    );
    const { issuer, serial: certSerial } = issuerAndSerial(certificate);
    const certHash = crypto.createHash('sha256').update(certificate).digest();
    const attrs = setOf(
      seq(oid('1.2.840.113549.1.9.3'), setOf(oid('1.2.840.113549.1.9.16.1.4'))),
      seq(oid('1.2.840.113549.1.9.4'), setOf(octets(crypto.createHash('sha256').update(tstInfo).digest()))),
      seq(oid('1.2.840.113549.1.9.16.2.47'), setOf(seq(seq(seq(octets(certHash)))))),
    );
    const signerInfo = seq(
      int(1),
      seq(issuer, certSerial),
      algorithm('2.16.840.1.101.3.4.2.1'),
      der(0xa0, readDer(attrs).contents),
      algorithm('1.2.840.113549.1.1.11', true),
      octets(crypto.sign('sha256', attrs, key)),
    );
    const signedData = seq(
      int(3),
      setOf(algorithm('2.16.840.1.101.3.4.2.1')),
      seq(oid('1.2.840.113549.1.9.16.1.4'), explicit(0, octets(tstInfo))),
      der(0xa0, certificate),
      setOf(signerInfo),
    );
    return seq(seq(int(0)), seq(oid('1.2.840.113549.1.7.2'), explicit(0, signedData)));
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.headers['content-type'] !== 'application/timestamp-query') {
        res.statusCode = 400;
        res.end();
        return;
      }
      res.setHeader('content-type', 'application/timestamp-reply');
      res.end(token(Buffer.concat(chunks)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa`,
    certificate,
    imprints,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
