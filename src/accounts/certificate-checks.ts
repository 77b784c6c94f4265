/**
 * What a PKCS#12 upload must be before Pageworks stores it and signs with it. Its key derivations are
 * bounded before any is run: a PFX can ask its reader for 2^31 iterations of the MAC's key derivation or a
 * bag's PBE/PBKDF2, which would hold the CPU for hours, so the counts are read from the ASN.1 first. And its
 * certificate must make a signature PDF readers accept: valid now, allowed to sign where it states a key
 * usage, an RSA key of 2048 bits or more or an EC key on P-256, P-384 or P-521 (readers refuse secp256k1).
 */
import { X509Certificate } from 'node:crypto';
import forge from 'node-forge';

/**
 * Most iterations a PKCS#12 file may ask for, per key derivation (the MAC's, each bag's). Tools' defaults
 * pass with room: OpenSSL 3 writes 2,048, Windows and .NET 2,000, Java's keytool 10,000. node-forge derives
 * in JavaScript, about 1 s per 100,000 iterations of the MAC's derivation and 3.5 s of PBKDF2-SHA256.
 */
export const MAX_PKCS12_ITERATIONS = 100_000;

/** A PKCS#12 file or certificate that Pageworks will not sign with; the message names why. */
export class CertificateRefused extends Error {
  override name = 'CertificateRefused';
}

const PBES2 = '1.2.840.113549.1.5.13';
const SIGNING_CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1']);

/** An ASN.1 INTEGER's value (Infinity past 2^48: no count that large is honest). */
function integer(node: forge.asn1.Asn1 | undefined): number {
  if (!node || node.type !== forge.asn1.Type.INTEGER || typeof node.value !== 'string') return Number.NaN;
  const bytes = node.value.replace(/^\0+/, '');
  if (bytes.length > 6) return Number.POSITIVE_INFINITY;
  let n = 0;
  for (let i = 0; i < bytes.length; i++) n = n * 256 + bytes.charCodeAt(i);
  return n;
}

const children = (node: forge.asn1.Asn1 | undefined): forge.asn1.Asn1[] =>
  node && Array.isArray(node.value) ? (node.value as forge.asn1.Asn1[]) : [];

function refuseCount(what: string, count: number): void {
  if (count > MAX_PKCS12_ITERATIONS) {
    const shown = Number.isFinite(count) ? count.toLocaleString('en-US') : 'more than 2^48';
    throw new CertificateRefused(
      `pkcs12: its ${what} asks for ${shown} iterations, more than the ${MAX_PKCS12_ITERATIONS.toLocaleString('en-US')} accepted (export it again, for example with \`openssl pkcs12 -export -iter 2048\`)`,
    );
  }
}

/** Refuses a PFX (as forge parsed its DER, nothing derived yet) whose MAC asks for too many iterations. */
export function checkMacIterations(pfx: forge.asn1.Asn1): void {
  // PFX ::= SEQUENCE { version, authSafe ContentInfo, macData MacData OPTIONAL }
  // MacData ::= SEQUENCE { mac DigestInfo, macSalt OCTET STRING, iterations INTEGER DEFAULT 1 }
  const macData = children(pfx)[2];
  const iterations = children(macData)[2];
  if (iterations) refuseCount('MAC', integer(iterations));
}

/** The iteration count of a PBE algorithm's parameters: PKCS#12 and PBES1 `{salt, count}`, or PBES2's PBKDF2. */
export function pbeIterations(oid: string, params: forge.asn1.Asn1): number {
  if (oid === PBES2) {
    // PBES2-params ::= SEQUENCE { keyDerivationFunc {PBKDF2, {salt, iterationCount, …}}, encryptionScheme }
    const kdfParams = children(children(params)[0])[1];
    return integer(children(kdfParams)[1]);
  }
  return integer(children(params)[1]);
}

interface PbeModule {
  getCipher: (oid: string, params: forge.asn1.Asn1, password: string) => unknown;
  bounded?: boolean;
}

/**
 * Makes forge check every bag's PBE/PBKDF2 iteration count before it derives the key to decrypt the bag
 * (encrypted contents and shrouded keys alike, also those only seen once their contents are decrypted).
 */
export function boundBagIterations(): void {
  // node-forge's typings leave out pki.pbe; every bag it decrypts asks pki.pbe.getCipher for the cipher.
  const pbe = (forge.pki as unknown as { pbe: PbeModule }).pbe;
  if (pbe.bounded) return;
  const original = pbe.getCipher;
  pbe.getCipher = (oid, params, password) => {
    refuseCount('encryption', pbeIterations(oid, params));
    return original(oid, params, password);
  };
  pbe.bounded = true;
}

/** The key usage bits a certificate states (digitalSignature, nonRepudiation), or undefined when it states none. */
function keyUsage(der: Buffer): { digitalSignature: boolean; nonRepudiation: boolean } | undefined {
  const cert = forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary')));
  const tbs = children(cert)[0];
  const explicit = children(tbs).find((n) => n.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && n.type === 3);
  for (const extension of children(children(explicit)[0])) {
    const [id, ...rest] = children(extension);
    if (typeof id?.value !== 'string' || forge.asn1.derToOid(id.value) !== '2.5.29.15') continue;
    const octets = rest.at(-1);
    if (typeof octets?.value !== 'string') return { digitalSignature: false, nonRepudiation: false };
    const bits = forge.asn1.fromDer(octets.value);
    // BIT STRING: its first byte counts unused bits; bit 0 is digitalSignature, bit 1 nonRepudiation.
    const first = typeof bits.value === 'string' ? bits.value.charCodeAt(1) || 0 : 0;
    return { digitalSignature: (first & 0x80) !== 0, nonRepudiation: (first & 0x40) !== 0 };
  }
  return undefined;
}

/** Refuses a signing certificate (DER) a PDF reader would not accept a signature from, naming why. */
export function checkSigningCertificate(der: Buffer, now: number): void {
  const cert = new X509Certificate(der);
  const from = new Date(cert.validFrom);
  if (from.getTime() > now) throw new CertificateRefused(`pkcs12: the certificate is not valid before ${from.toISOString()}`);
  let usage: ReturnType<typeof keyUsage>;
  try {
    usage = keyUsage(der);
  } catch {
    // node:crypto read it; a certificate whose extensions forge cannot walk is not one to sign with either.
    throw new CertificateRefused('pkcs12: the certificate’s extensions cannot be read');
  }
  if (usage && !usage.digitalSignature && !usage.nonRepudiation)
    throw new CertificateRefused(
      'pkcs12: the certificate’s key usage does not allow signing (it needs digitalSignature or nonRepudiation)',
    );
  const key = cert.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss') {
    const bits = details.modulusLength ?? 0;
    if (bits < 2048) throw new CertificateRefused(`pkcs12: an RSA key of ${bits} bits is too weak to sign (2048 or more)`);
  } else if (key.asymmetricKeyType === 'ec') {
    const curve = details.namedCurve ?? 'unknown';
    if (!SIGNING_CURVES.has(curve))
      throw new CertificateRefused(
        `pkcs12: an EC key on ${curve} makes signatures PDF readers do not verify (use P-256, P-384 or P-521)`,
      );
  }
}
