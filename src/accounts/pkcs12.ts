/**
 * Reads a PKCS#12 file (what `openssl pkcs12 -export`, browsers and key stores write) into a signing
 * certificate: the certificate chain (DER, the key's own certificate first), the private key (PKCS#8 DER,
 * RSA or EC) and the facts the API shows. node-forge decrypts the bags (legacy 3DES/RC2 and OpenSSL 3's
 * PBES2/AES alike); node:crypto reads the certificates and keys it hands back. The iteration counts the file
 * asks for are bounded before forge derives any key (certificate-checks.ts).
 */
import crypto, { X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { boundBagIterations, CertificateRefused, checkMacIterations } from './certificate-checks.js';

boundBagIterations();

/** A PKCS#12 file that cannot give a signing certificate; the message is for the person who uploaded it. */
export class Pkcs12Error extends Error {
  override name = 'Pkcs12Error';
}

/** What a PKCS#12 file holds, ready to sign with. */
export interface ParsedPkcs12 {
  /** DER certificates, the one matching the private key first, then the rest of the chain toward the root. */
  chain: Buffer[];
  /** The private key as PKCS#8 DER. */
  privateKeyDer: Buffer;
  subject: string;
  issuer: string;
  notAfter: Date;
  notBefore: Date;
}

const derOf = (asn1: forge.asn1.Asn1): Buffer => Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');

/** A bag's certificate as DER (forge parses only RSA certificates into objects; the ASN.1 it keeps serves all). */
function certificateDer(bag: forge.pkcs12.Bag): Buffer | undefined {
  if (bag.cert) return derOf(forge.pki.certificateToAsn1(bag.cert));
  return bag.asn1 ? derOf(bag.asn1) : undefined;
}

/** A bag's private key as PKCS#8 DER (an RSA key forge parsed, or the PrivateKeyInfo it kept for EC). */
function keyDer(bag: forge.pkcs12.Bag): Buffer | undefined {
  if (bag.key) return derOf(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(bag.key)));
  return bag.asn1 ? derOf(bag.asn1) : undefined;
}

/** One line per attribute, as a person reads a distinguished name: `CN=Acme Ltd, O=Acme, C=GB`. */
export function distinguishedName(text: string): string {
  return text.split('\n').filter(Boolean).join(', ');
}

/** Orders the chain from the key's certificate up: each next one is the issuer of the one before. */
function orderChain(leaf: X509Certificate, rest: X509Certificate[]): X509Certificate[] {
  const chain = [leaf];
  const left = [...rest];
  for (;;) {
    const last = chain[chain.length - 1];
    const at = left.findIndex((c) => last.checkIssued(c) && c !== last);
    if (at < 0 || last.checkIssued(last)) break;
    chain.push(...left.splice(at, 1));
  }
  return chain;
}

/** Parses a PKCS#12 file with its password; errors say what is wrong (password, no key, no certificate). */
export function parsePkcs12(data: Buffer, password: string): ParsedPkcs12 {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(data.toString('binary')));
    checkMacIterations(asn1);
    p12 = forge.pkcs12.pkcs12FromAsn1(asn1, false, password);
  } catch (error) {
    if (error instanceof CertificateRefused) throw new Pkcs12Error(error.message);
    const message = (error as Error).message ?? '';
    if (/password|MAC|decrypt/i.test(message)) throw new Pkcs12Error('pkcs12: wrong password (the file does not open with it)');
    throw new Pkcs12Error('pkcs12: not a PKCS#12 file (give the .p12/.pfx file, base64-encoded)');
  }
  const keyBags = [
    ...(p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag })[forge.pki.oids.pkcs8ShroudedKeyBag] ?? []),
    ...(p12.getBags({ bagType: forge.pki.oids.keyBag })[forge.pki.oids.keyBag] ?? []),
  ];
  const certBags = p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag] ?? [];
  const keyBytes = keyBags.map(keyDer).find((k) => k !== undefined);
  if (!keyBytes) throw new Pkcs12Error('pkcs12: the file holds no private key (export the certificate together with its key)');
  let privateKey: crypto.KeyObject;
  try {
    privateKey = crypto.createPrivateKey({ key: keyBytes, format: 'der', type: 'pkcs8' });
  } catch {
    throw new Pkcs12Error('pkcs12: the private key cannot be read');
  }
  if (privateKey.asymmetricKeyType !== 'rsa' && privateKey.asymmetricKeyType !== 'ec') {
    throw new Pkcs12Error(`pkcs12: a ${privateKey.asymmetricKeyType} key cannot sign PDFs here (RSA or EC)`);
  }
  const certificates = certBags
    .map(certificateDer)
    .filter((c): c is Buffer => c !== undefined)
    .map((der) => new X509Certificate(der));
  const leaf = certificates.find((c) => c.checkPrivateKey(privateKey));
  if (!leaf) throw new Pkcs12Error('pkcs12: no certificate in the file matches its private key');
  const chain = orderChain(
    leaf,
    certificates.filter((c) => c !== leaf),
  );
  return {
    chain: chain.map((c) => c.raw),
    privateKeyDer: privateKey.export({ format: 'der', type: 'pkcs8' }),
    subject: distinguishedName(leaf.subject),
    issuer: distinguishedName(leaf.issuer),
    notAfter: new Date(leaf.validTo),
    notBefore: new Date(leaf.validFrom),
  };
}
