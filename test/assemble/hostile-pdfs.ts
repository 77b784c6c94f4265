/**
 * PDFs written to exhaust a reader, each small: an xref subsection that claims 10^9 entries, a page tree
 * that contains itself, an XMP packet made for a backtracking regular expression, an XMP that inflates to
 * hundreds of MiB, claims written under another prefix, a trailer that is not a dictionary. The assembly
 * tests and the PDF fuzz start from them.
 */
import zlib from 'node:zlib';
import { pdfOfObjects } from './helpers.js';

const PAGE = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>';

/** A one-page PDF whose only xref subsection says it has 1,000,000,000 entries (583 bytes). */
export function xrefClaimingBillion(): Buffer {
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (const body of ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE]) {
    offsets.push(out.length);
    out += `${offsets.length} 0 obj\n${body}\nendobj\n`;
  }
  const xref = out.length;
  out += 'xref\n0 1000000000\n0000000000 65535 f \n';
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A PDF whose page tree root lists itself twice as its kids: a walk bounded by depth alone does 2^depth visits. */
export function pageTreeContainingItself(): Buffer {
  return pdfOfObjects(
    '1.4',
    ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [2 0 R 2 0 R 3 0 R] /Count 3 >>', PAGE],
    '/Root 1 0 R',
  );
}

/** A one-page PDF with `xmp` as its catalog's /Metadata stream, deflated when `deflate` (the stream's bytes as given). */
export function pdfWithXmp(xmp: Buffer, opts: { deflate?: boolean; deflated?: Buffer } = {}): Buffer {
  const data = opts.deflated ?? (opts.deflate ? zlib.deflateSync(xmp) : xmp);
  const filter = opts.deflate || opts.deflated ? ' /Filter /FlateDecode' : '';
  return pdfOfObjects(
    '1.7',
    [
      '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      PAGE,
      `<< /Type /Metadata /Subtype /XML${filter} /Length ${data.length} >>\nstream\n${data.toString('latin1')}\nendstream`,
    ],
    '/Root 1 0 R',
  );
}

/** An XMP packet that takes `<rdf:Description[^>]*xmlns:pdfaid="[^"]*"[^>]*>` quadratic time: one open tag never closed. */
export function backtrackingXmp(repeats: number): Buffer {
  return Buffer.from(`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description ${'xmlns:pdfaid="" '.repeat(repeats)}`, 'utf8');
}

/**
 * A zlib stream of `mib` MiB of zero bytes, made without holding them: the same fully flushed 1 MiB
 * block repeated, a final empty block, and the Adler-32 of that many zeros (a = 1, b = n mod 65521).
 */
export function deflatedZeros(mib: number): Buffer {
  const block = zlib.deflateRawSync(Buffer.alloc(1 << 20), { finishFlush: zlib.constants.Z_FULL_FLUSH });
  const last = zlib.deflateRawSync(Buffer.alloc(0));
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((((mib * 2 ** 20) % 65521) << 16) | 1) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0x9c]), ...Array.from({ length: mib }, () => block), last, adler]);
}

/** An XMP packet claiming PDF/A-3B and PDF/UA-1 under prefixes `a` and `u`, spaces around `=` (attribute form). */
export function claimsUnderOtherPrefixes(): Buffer {
  return Buffer.from(
    `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:format>application/pdf</dc:format></rdf:Description>
<rdf:Description rdf:about="" xmlns:a="http://www.aiim.org/pdfa/ns/id/" a:part = "3" a:conformance = "B"/>
<rdf:Description rdf:about="" xmlns:u="http://www.aiim.org/pdfua/ns/id/"><u:part>1</u:part></rdf:Description>
</rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>`,
    'utf8',
  );
}

/** A one-page PDF whose trailer is not a dictionary the reader can finish (a bare number where a key belongs). */
export function unparsableTrailer(): Buffer {
  return pdfOfObjects(
    '1.4',
    ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE],
    '/Root 1 0 R 7',
  );
}

/** A valid one-page PDF of about `bytes` bytes (an unreferenced stream of filler makes up the size). */
export function paddedPdf(bytes: number): Buffer {
  const filler = 'x'.repeat(Math.max(0, bytes - 600));
  return pdfOfObjects(
    '1.4',
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      PAGE,
      `<< /Length ${filler.length} >>\nstream\n${filler}\nendstream`,
    ],
    '/Root 1 0 R',
  );
}
