/**
 * A PDF's Info /Title, read from the last cross-reference section only (the trailer, one table entry, one
 * object): what an assembled PDF says its title is, for its record, without parsing the whole file. Whoever
 * sets the assembly's title (the first part's, or one the request gives) writes it there first.
 */
import { offsetInTable, readTrailer } from './pdf-info.js';
import { isDict, PdfRaw, stringText } from './profiles/pdf-objects.js';
import { PdfParser } from './profiles/pdf-parser.js';

/** Bytes of the Info object read at most (PDF/A keeps a string within 32,767 bytes; escapes double it). */
const MAX_INFO_BYTES = 256 * 1024;
/** Characters of the title kept (a record keeps less: stored-report.ts). */
const MAX_TITLE_CHARS = 4096;

/** The Info dictionary's /Title as text, trimmed; undefined when the PDF has none or it cannot be read so simply. */
export function infoTitle(pdf: Buffer): string | undefined {
  const trailer = readTrailer(pdf);
  const ref = trailer && /\/Info\s+(\d+)\s+(\d+)\s+R/.exec(trailer.dict);
  if (!trailer?.classic || !ref) return undefined;
  const start = offsetInTable(pdf, trailer.xrefOffset, Number(ref[1]));
  if (start === undefined) return undefined;
  const marker = `${ref[1]} ${ref[2]} obj`;
  if (pdf.toString('latin1', start, start + marker.length) !== marker) return undefined;
  const end = pdf.indexOf('endobj', start, 'latin1');
  if (end < 0 || end - start > MAX_INFO_BYTES) return undefined;
  try {
    const info = new PdfParser(pdf.toString('latin1', start + marker.length, end)).value();
    const title = isDict(info) ? info.get('Title') : undefined;
    if (!(title instanceof PdfRaw) || !/^[(<]/.test(title.text)) return undefined;
    const text = stringText(title.text).trim().slice(0, MAX_TITLE_CHARS);
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}
