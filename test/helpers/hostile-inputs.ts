/**
 * Small files written to exhaust whatever reads them, made at test time: PDFs whose cross-reference
 * table claims 10^9 entries, whose page tree contains itself, whose XMP feeds a backtracking pattern or
 * inflates to 400 MiB, and a PKCS#12 file whose MAC asks for 2^31 − 1 iterations. Each is a few hundred
 * bytes to a few hundred KiB.
 */
import crypto from 'node:crypto';
import { once } from 'node:events';
import zlib from 'node:zlib';
import forge from 'node-forge';

/** A classic PDF of `objects` (object 1 the catalog); `xrefHeader` replaces the table's subsection line. */
export function classicPdf(objects: Array<string | Buffer>, opts: { xrefHeader?: string } = {}): Buffer {
  const chunks: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let at = chunks[0].length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    const chunk = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    offsets.push(at);
    chunks.push(chunk);
    at += chunk.length;
  });
  const rows = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  const header = opts.xrefHeader ?? `0 ${objects.length + 1}`;
  chunks.push(
    Buffer.from(
      `xref\n${header}\n0000000000 65535 f \n${rows}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(chunks);
}

const PAGE = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>';

/** A stream object of `data`, deflated. */
function flateStream(dict: string, data: Buffer): Buffer {
  const packed = zlib.deflateSync(data, { level: 9 });
  return Buffer.concat([
    Buffer.from(`<< ${dict} /Filter /FlateDecode /Length ${packed.length} >>\nstream\n`, 'latin1'),
    packed,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

/** A PDF whose cross-reference table says it lists 10^9 objects (it lists three). */
export function hugeXrefPdf(): Buffer {
  return classicPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE], {
    xrefHeader: '0 1000000000',
  });
}

/**
 * A well-formed PDF of `pages` empty pages under one page tree node: nothing in it is malformed, so no
 * reader refuses it, but a merge of 100,000 pages takes seconds and a few hundred MiB.
 */
export function manyPagesPdf(pages: number): Buffer {
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(' ');
  return classicPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    ...Array.from({ length: pages }, () => PAGE),
  ]);
}

/** A PDF whose page tree node is its own kid, twice (a walk without memory visits it 2^depth times). */
export function selfContainingPageTree(): Buffer {
  return classicPdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [2 0 R 2 0 R 3 0 R] /Count 1 >>', PAGE]);
}

/** A PDF whose XMP (a few KiB deflated) is an unclosed `<rdf:Description` repeated: patterns that scan to `>` backtrack over all of it. */
export function backtrackingXmpPdf(repeats = 40_000): Buffer {
  const xmp = Buffer.from(
    `<x:xmpmeta xmlns:x="adobe:ns:meta/">${'<rdf:Description xmlns:pdfaid="a" '.repeat(repeats)}`,
    'latin1',
  );
  return classicPdf([
    '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    PAGE,
    flateStream('/Type /Metadata /Subtype /XML', xmp),
  ]);
}

/** A PDF whose XMP stream is about 400 KiB deflated and `mib` MiB inflated. */
export async function inflatingXmpPdf(mib = 400): Promise<Buffer> {
  const deflate = zlib.createDeflate({ level: 9 });
  const packed: Buffer[] = [];
  deflate.on('data', (d: Buffer) => packed.push(d));
  const ended = once(deflate, 'end');
  const block = Buffer.alloc(1 << 20, 0x20);
  // Deflated a MiB at a time: the test never holds the 400 MiB the stream stands for.
  for (let i = 0; i < mib; i++) if (!deflate.write(block)) await once(deflate, 'drain');
  deflate.end();
  await ended;
  const data = Buffer.concat(packed);
  return classicPdf([
    '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    PAGE,
    Buffer.concat([
      Buffer.from(`<< /Type /Metadata /Subtype /XML /Filter /FlateDecode /Length ${data.length} >>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream', 'latin1'),
    ]),
  ]);
}

/**
 * A PKCS#12 file (a self-signed RSA certificate and its key, with `password`) whose MAC asks for
 * `iterations` PBKDF iterations: made by node-forge with 2,048, then its MacData's iterations INTEGER rewritten.
 */
export function pkcs12WithMacIterations(password: string, iterations = 2 ** 31 - 1): Buffer {
  const pair = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = forge.pki.privateKeyFromPem(pair.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString());
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(pair.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 30 * 86_400_000);
  const subject = [{ name: 'commonName', value: 'Hostile MAC' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.sign(key, forge.md.sha256.create());
  const pfx = forge.pkcs12.toPkcs12Asn1(key, [cert], password, { algorithm: '3des', count: 2048 });
  // PFX ::= SEQUENCE { version, authSafe, macData SEQUENCE { mac, macSalt, iterations INTEGER } }
  const macData = (pfx.value as forge.asn1.Asn1[])[2];
  (macData.value as forge.asn1.Asn1[])[2].value = forge.asn1.integerToDer(iterations).getBytes();
  return Buffer.from(forge.asn1.toDer(pfx).getBytes(), 'binary');
}
