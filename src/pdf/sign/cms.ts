/**
 * The CAdES detached signature a PAdES baseline signature carries (ETSI EN 319 122-1, RFC 5652): SHA-256,
 * signed attributes content-type, message-digest and signing-certificate-v2 (no signing-time: PAdES puts
 * the claimed time in the signature dictionary's /M), and, for B-T, an RFC 3161 timestamp token over the
 * signature value as an unsigned attribute.
 */
import crypto, { type KeyObject } from 'node:crypto';
import { algorithm, children, der, explicit, int, octets, oid, readDer, seq, setOf, TAG } from './der.js';

/** Who signs: the certificate chain (DER, the signer's own certificate first) and its private key. */
export interface Signer {
  certificateChain: Buffer[];
  privateKey: KeyObject;
}

/** Gets an RFC 3161 TimeStampToken (DER ContentInfo) whose imprint is SHA-256 of `signature`. */
export type Timestamper = (signature: Buffer) => Promise<Buffer>;

const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  timeStampToken: '1.2.840.113549.1.9.16.2.14',
} as const;

/** The issuer Name and serial number INTEGER of a certificate, as encoded in it. */
export function issuerAndSerial(certificate: Buffer): { issuer: Buffer; serial: Buffer } {
  const tbs = children(readDer(certificate))[0];
  const fields = children(tbs);
  const at = fields[0].tag === 0xa0 ? 1 : 0;
  return { serial: fields[at].bytes, issuer: fields[at + 2].bytes };
}

function attribute(type: string, value: Buffer): Buffer {
  return seq(oid(type), setOf(value));
}

function signatureAlgorithm(key: KeyObject): Buffer {
  if (key.asymmetricKeyType === 'rsa') return algorithm(OID.sha256WithRsa, true);
  if (key.asymmetricKeyType === 'ec') return algorithm(OID.ecdsaWithSha256);
  throw new Error(`cannot sign with a ${key.asymmetricKeyType} key (RSA or EC)`);
}

/** The signed attributes' SET (tag 0x31; the SignerInfo carries it as [0] IMPLICIT). */
function signedAttributes(digest: Buffer, certificate: Buffer): Buffer {
  const { issuer, serial } = issuerAndSerial(certificate);
  const certHash = crypto.createHash('sha256').update(certificate).digest();
  // ESSCertIDv2 with the default hash algorithm (SHA-256, omitted) and issuerSerial (GeneralNames: directoryName [4]).
  const essCertId = seq(octets(certHash), seq(seq(der(0xa4, issuer)), serial));
  return setOf(
    attribute(OID.contentType, oid(OID.data)),
    attribute(OID.messageDigest, octets(digest)),
    attribute(OID.signingCertificateV2, seq(seq(essCertId))),
  );
}

/** The SignerInfo's fields up to the signature value, and the signature value itself. */
function signerInfo(digest: Buffer, signer: Signer, sizeOnly = false): { parts: Buffer[]; signature: Buffer } {
  const certificate = signer.certificateChain[0];
  if (!certificate) throw new Error('the signer has no certificate');
  const attrs = signedAttributes(digest, certificate);
  const signature = sizeOnly
    ? Buffer.alloc(longestSignature(signer.privateKey))
    : crypto.sign('sha256', attrs, signer.privateKey);
  const { issuer, serial } = issuerAndSerial(certificate);
  const parts = [
    int(1),
    seq(issuer, serial),
    algorithm(OID.sha256),
    der(0xa0, readDer(attrs).contents),
    signatureAlgorithm(signer.privateKey),
    octets(signature),
  ];
  return { parts, signature };
}

/** The ContentInfo around one SignerInfo, with the signer's certificates. */
function signedData(signer: Signer, parts: Buffer[]): Buffer {
  const body = seq(
    int(1),
    setOf(algorithm(OID.sha256)),
    seq(oid(OID.data)),
    der(0xa0, ...signer.certificateChain),
    setOf(seq(...parts)),
  );
  return seq(oid(OID.signedData), explicit(0, body));
}

/**
 * A DER CMS SignedData (in its ContentInfo) over content whose SHA-256 is `digest`, without the content
 * (detached), signed by `signer`, with a timestamp token when `timestamp` is given.
 */
export async function cadesDetached(digest: Buffer, signer: Signer, timestamp?: Timestamper): Promise<Buffer> {
  const { parts, signature } = signerInfo(digest, signer);
  if (timestamp) {
    const token = await timestamp(signature);
    parts.push(der(0xa1, attribute(OID.timeStampToken, token)));
  }
  return signedData(signer, parts);
}

/** The longest signature value the key makes: an RSA modulus, or an ECDSA (r, s) pair with both at full length. */
function longestSignature(key: KeyObject): number {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa') return Math.ceil((details.modulusLength ?? 4096) / 8);
  const order = { prime256v1: 32, secp384r1: 48, secp521r1: 66 }[details.namedCurve ?? ''] ?? 66;
  // SEQUENCE { INTEGER r, INTEGER s }, each with a leading zero byte.
  const body = 2 * (2 + order + 1);
  return body + (body > 127 ? 3 : 2);
}

/**
 * The largest size `signer`'s CMS without a timestamp can have over any digest (the same for every call:
 * an ECDSA signature value, whose length varies, is counted at its longest).
 */
export function cadesSize(signer: Signer): number {
  return signedData(signer, signerInfo(Buffer.alloc(32), signer, true).parts).length;
}

/** The TimeStampToken inside an RFC 3161 TimeStampResp, or an error naming the refusal. */
export function tokenOfResponse(response: Buffer): Buffer {
  const [status, token] = children(readDer(response));
  const code = status ? children(status)[0] : undefined;
  if (!code || code.tag !== TAG.INTEGER) throw new Error('the timestamp authority answered something other than a TimeStampResp');
  const value = code.contents.readUIntBE(0, Math.min(code.contents.length, 4));
  if (value > 1 || !token) throw new Error(`the timestamp authority refused (PKIStatus ${value})`);
  return token.bytes;
}

/** An RFC 3161 TimeStampReq for SHA-256 of `data`, asking for the authority's certificate. */
export function timestampRequest(data: Buffer, nonce: Buffer): Buffer {
  const imprint = seq(algorithm(OID.sha256, true), octets(crypto.createHash('sha256').update(data).digest()));
  const nonceInt = der(TAG.INTEGER, nonce[0] & 0x80 ? Buffer.concat([Buffer.from([0]), nonce]) : nonce);
  return seq(int(1), imprint, nonceInt, der(0x01, Buffer.from([0xff])));
}
