/**
 * Associated files (PDF/A-3 6.8, ISO 32000-2 14.13): each file an embedded file stream with its media
 * type and modification date, a file specification with `AFRelationship`, listed in the catalog's `/AF`
 * and in the `EmbeddedFiles` name tree, where readers (and `pdfdetach`) find them.
 */
import zlib from 'node:zlib';
import { pdfDate } from '../pdf-info.js';
import type { PdfFile } from './pdf-file.js';
import { dict, name, type PdfDict, type PdfRef, type PdfValue, raw, textString } from './pdf-objects.js';
import type { EmbeddedFile } from './types.js';

/** A media type as a PDF name: `/` and other delimiters written as `#xx`. */
function mediaTypeName(mimeType: string): string {
  return mimeType.replace(/[^A-Za-z0-9.+-]/g, (c) => `#${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** A PDF literal string sorted as bytes, so the name tree's keys are in order. */
function sortKey(file: EmbeddedFile): string {
  return Buffer.from(file.name, 'utf16le').swap16().toString('latin1');
}

/** Adds every file to the update and lists them in `catalog` (`AF`, `Names`), which the caller writes. */
export function embedFiles(file: PdfFile, catalog: PdfDict, files: EmbeddedFile[], date: Date): void {
  if (files.length === 0) return;
  const specs: Array<{ file: EmbeddedFile; ref: PdfRef }> = [];
  for (const embedded of files) {
    const bytes = Buffer.from(embedded.bytes);
    const stream = file.add(
      dict({
        Type: name('EmbeddedFile'),
        Subtype: name(mediaTypeName(embedded.mimeType)),
        Filter: name('FlateDecode'),
        Params: dict({ Size: raw(bytes.length), ModDate: raw(pdfDate(embedded.modified ?? date)) }),
      }),
      zlib.deflateSync(bytes),
    );
    const entries: Record<string, PdfValue> = {
      Type: name('Filespec'),
      F: textString(embedded.name),
      UF: textString(embedded.name),
      AFRelationship: name(embedded.relationship),
      EF: dict({ F: stream, UF: stream }),
    };
    if (embedded.description) entries.Desc = textString(embedded.description);
    specs.push({ file: embedded, ref: file.add(dict(entries)) });
  }
  specs.sort((a, b) => (sortKey(a.file) < sortKey(b.file) ? -1 : 1));
  const existingAf = file.resolve(catalog.get('AF'));
  catalog.set('AF', [...(Array.isArray(existingAf) ? existingAf : []), ...specs.map((s) => s.ref)]);
  const names: PdfDict = new Map(file.dict(catalog.get('Names')) ?? []);
  names.set('EmbeddedFiles', dict({ Names: specs.flatMap((s) => [textString(s.file.name), s.ref]) }));
  catalog.set('Names', names);
}
