/**
 * Whether an XML may hold a DOCTYPE, read the way any parser could read it. `<!DOCTYPE` is ASCII, and
 * every encoding libxml2 (or a receiver's parser) takes writes ASCII either as single bytes (UTF-8, the
 * ISO-8859 and Windows code pages, Shift_JIS…) or as one byte beside zero bytes (UTF-16 and UTF-32, either
 * byte order, with or without a BOM). So the whole file, with its zero bytes dropped, is searched as
 * single bytes: no prefix, no encoding guess, no comment or CDATA section exempt (a false alarm costs an
 * odd invoice its claim; a miss would hand a receiver a DTD to load).
 */

const DOCTYPE = /<!DOCTYPE/i;
/** Encodings whose ASCII is neither single bytes nor zero-padded: a DOCTYPE could hide in them. */
const UNREADABLE = /^(utf-?7|ebcdic|cp0?37|ibm0?37|cp500|ibm500|cp1047|ibm1047|hz-gb-2312|iso-2022-[a-z0-9-]+)$/i;

/** Why the XML may carry a DOCTYPE (or may hide one), or null when no reading of it can. */
export function doctypeProblem(xml: Uint8Array): string | null {
  const bytes = Buffer.from(xml.buffer, xml.byteOffset, xml.byteLength);
  // A file without zero bytes is its own single-byte reading; only UTF-16/32 need the copy.
  const text = (bytes.includes(0) ? bytes.filter((b) => b !== 0) : bytes).toString('latin1');
  if (DOCTYPE.test(text)) return 'it declares a DOCTYPE, which an invoice has no use for (Pageworks does not read one)';
  // EBCDIC has no ASCII at all: its `<?xml` is 4C 6F A7 94.
  if (text.startsWith('\x4c\x6f\xa7\x94')) return 'it is encoded in EBCDIC; a Factur-X invoice is UTF-8';
  const declared = /^[\s\S]{0,8}<\?xml[^>]{0,200}?encoding\s*=\s*["']([^"']{1,40})["']/.exec(text)?.[1];
  if (declared && UNREADABLE.test(declared.trim())) return `it is encoded in ${declared.trim()}; a Factur-X invoice is UTF-8`;
  return null;
}
