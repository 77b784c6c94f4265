/**
 * PAdES baseline signatures (B-B; B-T with a timestamper): one invisible signature field added in an
 * incremental update after everything the file already holds, so what was there (a PDF/A or PDF/UA
 * claim, a previous signature) stays byte for byte. /ByteRange covers the whole file but the signature's
 * own /Contents. In a protected file (AES-256) the new objects' strings and streams are encrypted with the
 * file key, except /Contents, which ISO 32000 7.6.2 leaves in the clear. /Contents is sized to the CMS it
 * will hold; one too long for PDF/A (signature-room.ts) takes the file's PDF/A claim out of its XMP in the
 * same update, so the file never claims what it breaks.
 */
import crypto from 'node:crypto';
import { xmpClaims, xmpText, xmpWithClaims } from '../assemble/assembly-claims.js';
import { pdfDate, pdfTextString } from '../pdf-info.js';
import { PdfFile } from '../profiles/pdf-file.js';
import { isDict, type PdfDict, PdfName, PdfRaw, PdfRef, type PdfValue, serialize, stringBytes } from '../profiles/pdf-objects.js';
import { cadesDetached, type Signer, type Timestamper } from './cms.js';
import { openCrypt, type PdfCrypt } from './pdf-crypt.js';
import { PdfReader, SignInputError } from './pdf-reader.js';
import { PDFA_MAX_STRING_BYTES, signatureRoom } from './signature-room.js';

/** How to sign: who, why, where, the password of a protected file, and a timestamp authority for B-T. */
export interface SignOptions {
  signer: Signer;
  reason?: string;
  location?: string;
  contact?: string;
  /** The owner or user password when the PDF is protected (none: the empty user password is tried). */
  password?: string;
  /** The file key of a protected PDF the caller has just encrypted (protectPdfWithKey); checked, then used. */
  fileKey?: Buffer;
  /** Adds an RFC 3161 timestamp on the signature (PAdES B-T). */
  timestamp?: Timestamper;
  /** The claimed signing time (/M); now by default. */
  date?: Date;
}

/** Width of each /ByteRange number, so the range can be written in after the offsets are known. */
const RANGE_WIDTH = 10;

/** Encrypts the strings of a value read from an object stream (their bytes are clear there). */
function encryptStrings(value: PdfValue, crypt: PdfCrypt): PdfValue {
  if (value instanceof PdfRaw && /^[(<]/.test(value.text)) {
    return new PdfRaw(`<${crypt.string(stringBytes(value.text)).toString('hex')}>`);
  }
  if (Array.isArray(value)) return value.map((v) => encryptStrings(v, crypt));
  if (isDict(value)) return new Map([...value].map(([k, v]) => [k, encryptStrings(v, crypt)]));
  return value;
}

/** The xref section: a classic table and trailer, or a cross-reference stream, like the file's own last one. */
function xrefSection(reader: PdfReader, placed: Array<[number, number]>, xrefAt: number, size: number): string {
  const trailer: PdfDict = new Map();
  for (const key of ['Root', 'Info', 'ID', 'Encrypt']) {
    const value = reader.trailer.get(key);
    if (value !== undefined) trailer.set(key, value);
  }
  trailer.set('Size', new PdfRaw(String(size)));
  trailer.set('Prev', new PdfRaw(String(reader.lastXref)));
  const sorted = [...placed].sort((a, b) => a[0] - b[0]);
  const runs: Array<Array<[number, number]>> = [];
  for (const entry of sorted) {
    const run = runs.at(-1);
    if (run && run[run.length - 1][0] + 1 === entry[0]) run.push(entry);
    else runs.push([entry]);
  }
  if (!reader.xrefStream) {
    let table = 'xref\n';
    for (const run of runs) {
      table += `${run[0][0]} ${run.length}\n`;
      for (const [, at] of run) table += `${String(at).padStart(10, '0')} 00000 n \n`;
    }
    return `${table}trailer\n${serialize(trailer)}\nstartxref\n${xrefAt}\n%%EOF\n`;
  }
  // The stream's own entry is the last one placed (its number is size - 1, written at xrefAt).
  const rows = Buffer.alloc(sorted.length * 7);
  sorted.forEach(([, at], i) => {
    rows[i * 7] = 1;
    rows.writeUInt32BE(at, i * 7 + 1);
  });
  trailer.set('Type', new PdfName('XRef'));
  trailer.set('W', [new PdfRaw('1'), new PdfRaw('4'), new PdfRaw('2')]);
  trailer.set(
    'Index',
    runs.flatMap((run) => [new PdfRaw(String(run[0][0])), new PdfRaw(String(run.length))]),
  );
  trailer.set('Length', new PdfRaw(String(rows.length)));
  return `${size - 1} 0 obj\n${serialize(trailer)}\nstream\n${rows.toString('latin1')}\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`;
}

/**
 * The XMP of a file that claims PDF/A, without its PDF/A and Factur-X claims (null when they cannot be taken
 * out with certainty: the file then loses its XMP); undefined when it claims no PDF/A or is not read here.
 */
function xmpWithoutPdfA(bytes: Buffer): Buffer | null | undefined {
  let xmp: string | undefined;
  try {
    xmp = xmpText(new PdfFile(bytes));
  } catch {
    return undefined;
  }
  const claims = xmpClaims(xmp);
  if (!claims.some((c) => c.startsWith('PDF/A-'))) return undefined;
  return (
    xmpWithClaims(
      xmp,
      claims.filter((c) => !c.startsWith('PDF/A-') && c !== 'Factur-X'),
    ) ?? null
  );
}

/** Signs `pdf` (PAdES B-B, or B-T with `timestamp`); the original bytes come back unchanged, followed by the signature. */
export async function signPdf(pdf: Uint8Array, opts: SignOptions): Promise<Uint8Array> {
  const bytes = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const reader = new PdfReader(bytes);
  const encryptDict = reader.dict(reader.trailer.get('Encrypt'));
  const crypt = encryptDict ? openCrypt(encryptDict, opts.password, opts.fileKey) : undefined;
  if (crypt) reader.decryptStream = crypt.decryptStream;
  const root = reader.trailer.get('Root');
  const catalog = reader.dict(root);
  if (!(root instanceof PdfRef) || !catalog) throw new SignInputError('the PDF has no catalog');

  const text = (value: string): PdfRaw => {
    if (!crypt) return new PdfRaw(pdfTextString(value));
    return new PdfRaw(`<${crypt.string(stringBytes(pdfTextString(value))).toString('hex')}>`);
  };
  // Objects copied from an object stream of a protected file get their strings encrypted as top-level objects need.
  const copied = (num: number, value: PdfDict): PdfDict =>
    crypt && reader.isPacked(num) ? (encryptStrings(value, crypt) as PdfDict) : new Map(value);

  let next = reader.size;
  const [sigNum, fieldNum, apNum] = [next++, next++, next++];
  const acroRef = catalog.get('AcroForm');
  const acroNum = acroRef instanceof PdfRef ? acroRef.num : next++;
  const acroForm = reader.dict(acroRef);
  const acroCopy: PdfDict = acroForm ? copied(acroNum, acroForm) : new Map();
  const fieldsValue = reader.resolve(acroForm?.get('Fields'));
  const fields = Array.isArray(fieldsValue) ? fieldsValue : [];
  acroCopy.set('Fields', [...fields, new PdfRef(fieldNum, 0)]);
  acroCopy.set('SigFlags', new PdfRaw('3'));
  const catalogCopy = copied(root.num, catalog);
  catalogCopy.set('AcroForm', new PdfRef(acroNum, 0));
  const version = /^%PDF-(\d\.\d)/.exec(reader.text.slice(0, 16))?.[1] ?? '1.7';
  // ETSI.CAdES.detached is PDF 2.0's; an earlier file declares the ESIC extension that brings it (PAdES part 2).
  if (version < '2.0' && !catalogCopy.has('Extensions')) {
    catalogCopy.set(
      'Extensions',
      new Map([
        [
          'ESIC',
          new Map<string, PdfValue>([
            ['BaseVersion', new PdfName('1.7')],
            ['ExtensionLevel', new PdfRaw('2')],
          ]),
        ],
      ]),
    );
  }

  const placeholderBytes = signatureRoom(opts.signer, opts.timestamp !== undefined);
  // An encrypted file claims no PDF/A (PDF/A forbids encryption): only a clear one can lose its claim here.
  const metadata = !crypt && placeholderBytes > PDFA_MAX_STRING_BYTES ? xmpWithoutPdfA(bytes) : undefined;
  let metadataNum: number | undefined;
  if (metadata === null) catalogCopy.delete('Metadata');
  else if (metadata) {
    metadataNum = next++;
    catalogCopy.set('Metadata', new PdfRef(metadataNum, 0));
  }
  const rangeSlot = `[0 ${'0'.repeat(RANGE_WIDTH)} ${'0'.repeat(RANGE_WIDTH)} ${'0'.repeat(RANGE_WIDTH)}]`;
  const sig = new Map<string, PdfValue>([
    ['Type', new PdfName('Sig')],
    ['Filter', new PdfName('Adobe.PPKLite')],
    ['SubFilter', new PdfName('ETSI.CAdES.detached')],
    ['M', crypt ? text(pdfDate(opts.date ?? new Date()).slice(1, -1)) : new PdfRaw(pdfDate(opts.date ?? new Date()))],
  ]);
  if (opts.reason) sig.set('Reason', text(opts.reason));
  if (opts.location) sig.set('Location', text(opts.location));
  if (opts.contact) sig.set('ContactInfo', text(opts.contact));
  // /ByteRange and /Contents close the dictionary, and their places are counted as it is written, never
  // searched for: a reason or location may hold the very same text.
  const sigHead = `${serialize(sig).slice(0, -2)}/ByteRange `;
  const sigBody = `${sigHead}${rangeSlot}/Contents <${'0'.repeat(placeholderBytes * 2)}>>>`;

  const apData = crypt ? crypt.stream(Buffer.alloc(0)) : Buffer.alloc(0);
  const fieldName = `Signature${fields.length + 1}`;
  const objects: Array<[number, string | Buffer]> = [
    [root.num, serialize(catalogCopy)],
    [acroNum, serialize(acroCopy)],
    [sigNum, sigBody],
    [
      fieldNum,
      `<</FT/Sig/T ${text(fieldName).text}/V ${sigNum} 0 R/Type/Annot/Subtype/Widget/Rect[0 0 0 0]/F 132/AP<</N ${apNum} 0 R>>>>`,
    ],
    [
      apNum,
      Buffer.concat([
        Buffer.from(`<</Type/XObject/Subtype/Form/BBox[0 0 0 0]/Resources<<>>/Length ${apData.length}>>\nstream\n`, 'latin1'),
        apData,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    ],
  ];
  if (metadata && metadataNum !== undefined)
    objects.push([
      metadataNum,
      Buffer.concat([
        Buffer.from(`<</Type/Metadata/Subtype/XML/Length ${metadata.length}>>\nstream\n`, 'latin1'),
        metadata,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    ]);

  const chunks: Buffer[] = [bytes];
  let offset = bytes.length;
  const push = (chunk: Buffer): void => {
    chunks.push(chunk);
    offset += chunk.length;
  };
  if (bytes[bytes.length - 1] !== 0x0a) push(Buffer.from('\n'));
  const placed: Array<[number, number]> = [];
  let sigAt = 0;
  for (const [num, body] of objects) {
    placed.push([num, offset]);
    if (num === sigNum) sigAt = offset + `${num} 0 obj\n`.length;
    push(
      Buffer.concat([
        Buffer.from(`${num} 0 obj\n`),
        typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
        Buffer.from('\nendobj\n'),
      ]),
    );
  }
  const xrefAt = offset;
  if (reader.xrefStream) placed.push([next++, xrefAt]);
  push(Buffer.from(xrefSection(reader, placed, xrefAt, next), 'latin1'));
  const out = Buffer.concat(chunks);

  const rangeAt = sigAt + sigHead.length;
  const contentsAt = rangeAt + rangeSlot.length + '/Contents '.length;
  const contentsEnd = contentsAt + placeholderBytes * 2 + 2;
  const range = [0, contentsAt, contentsEnd, out.length - contentsEnd];
  const rangeText = `[${range.join(' ')}]`.padEnd(rangeSlot.length, ' ');
  out.write(rangeText, rangeAt, 'latin1');
  const digest = crypto.createHash('sha256').update(out.subarray(0, contentsAt)).update(out.subarray(contentsEnd)).digest();
  const cms = await cadesDetached(digest, opts.signer, opts.timestamp);
  if (cms.length > placeholderBytes)
    throw new Error(`the signature (${cms.length} bytes) outgrew its room (${placeholderBytes})`);
  out.write(cms.toString('hex'), contentsAt + 1, 'latin1');
  return out;
}
