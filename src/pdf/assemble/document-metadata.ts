/**
 * The assembly's own properties (`metadata`: title, author, subject, keywords, language) written over the
 * first part's, in an incremental update: a new Info dictionary and a new XMP packet saying the same
 * (PDF/A 6.6.3 compares them), identifying exactly the claims the assembly makes, `/Lang` on the catalog,
 * and the title shown as the window title (`/DisplayDocTitle`). A property not given, or given
 * blank, keeps the first part's value.
 */
import { FACTUR_X_LEVELS, type FacturXLevel } from '../factur-x/levels.js';
import { facturXSchema } from '../factur-x/xmp-schema.js';
import { pdfDate } from '../pdf-info.js';
import { legalText } from '../profiles/legal-text.js';
import { PdfFile } from '../profiles/pdf-file.js';
import { dict, name, type PdfDict, PdfRaw, raw, stringText, textString } from '../profiles/pdf-objects.js';
import type { Claim } from '../profiles/types.js';
import { xmpPacket } from '../profiles/xmp.js';
import { xmpText } from './assembly-claims.js';

/** What `metadata` may set. */
export interface DocumentMetadata {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  /** A BCP 47 language tag. */
  lang?: string;
}

const FIELDS = { title: 'Title', author: 'Author', subject: 'Subject', keywords: 'Keywords' } as const;

/** The PDF with `metadata` as its properties; `claims` are what the XMP identifies (the assembly's). */
export function withDocumentMetadata(
  pdf: Uint8Array,
  metadata: DocumentMetadata,
  claims: readonly Claim[],
  date = new Date(),
): Buffer {
  const file = new PdfFile(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength));
  const info = file.dict(file.trailer.get('Info'));
  const old = (key: string): string | undefined => {
    const value = file.resolve(info?.get(key));
    return value instanceof PdfRaw && /^[(<]/.test(value.text) ? stringText(value.text) : undefined;
  };
  const catalog = file.catalog();
  const oldLang = file.resolve(catalog.value.get('Lang'));
  // A value given blank is as if not given, as a part's blank title is: an empty title would leave a
  // PDF/UA document without the title it must show.
  const given = (value: string | undefined): string | undefined => (value?.trim() ? value : undefined);
  const values = {
    title: legalText(given(metadata.title) ?? old('Title')),
    author: legalText(given(metadata.author) ?? old('Author')),
    subject: legalText(given(metadata.subject) ?? old('Subject')),
    keywords: legalText(given(metadata.keywords) ?? old('Keywords')),
    lang: metadata.lang ?? (oldLang instanceof PdfRaw && /^[(<]/.test(oldLang.text) ? stringText(oldLang.text) : undefined),
    creator: legalText(old('Creator') ?? 'Pageworks'),
    producer: legalText(old('Producer') ?? 'Pageworks'),
  };
  const infoOut: PdfDict = new Map();
  for (const [field, key] of Object.entries(FIELDS)) {
    const value = values[field as keyof typeof FIELDS];
    if (value) infoOut.set(key, textString(value));
  }
  infoOut.set('Creator', textString(values.creator));
  infoOut.set('Producer', textString(values.producer));
  infoOut.set('CreationDate', raw(pdfDate(date)));
  infoOut.set('ModDate', raw(pdfDate(date)));

  const pdfa = claims.map((c) => /^PDF\/A-(\d)([a-z])$/.exec(c)).find(Boolean);
  const level = claims.includes('Factur-X') ? facturXLevel(xmpText(file)) : undefined;
  const xmp = xmpPacket({
    ...values,
    date,
    pdfa: pdfa ? { part: Number(pdfa[1]) as 2 | 3, conformance: pdfa[2].toUpperCase() as 'B' | 'U' } : undefined,
    pdfua: claims.includes('PDF/UA-1'),
    extensions: level ? [facturXSchema(level)] : [],
  });
  const root: PdfDict = new Map(catalog.value);
  root.set('Metadata', file.add(dict({ Type: name('Metadata'), Subtype: name('XML') }), xmp));
  if (values.lang) root.set('Lang', textString(values.lang));
  if (values.title) {
    const prefs: PdfDict = new Map(file.dict(root.get('ViewerPreferences')) ?? []);
    root.set('ViewerPreferences', prefs.set('DisplayDocTitle', raw(true)));
  }
  file.set(catalog.num, root);
  return file.finish(new Map([['Info', file.add(infoOut)]]));
}

/** The Factur-X level the first part's XMP names (Pageworks wrote it: `<fx:ConformanceLevel>EN 16931<`). */
function facturXLevel(xmp: string | undefined): FacturXLevel | undefined {
  const tag = '<fx:ConformanceLevel>';
  const at = xmp?.indexOf(tag) ?? -1;
  if (!xmp || at < 0) return undefined;
  const end = xmp.indexOf('<', at + tag.length);
  const value = xmp.slice(at + tag.length, end < 0 ? undefined : end).trim();
  return FACTUR_X_LEVELS.find((l) => l === value);
}
