/**
 * The encoding an XML declaration names, for a document nothing else declared an encoding for: HTML's
 * "get an XML encoding" (the fallback after the meta pre-scan), as Chromium reads it. The declaration counts
 * only at the document's first byte (a blank before it makes it a bogus comment), `encoding` must stand
 * before the declaration's first `>`, and bytes up to 0x20 may surround its `=`, as Blink skips them.
 */
import { resolveEncodingLabel } from './encoding.js';

const GT = 0x3e;
const EQ = 0x3d;
const DQ = 0x22;
const SQ = 0x27;
const XML_OPEN = Buffer.from('<?xml');
const ENCODING = Buffer.from('encoding');

/** The bytes before the first `>` of `chunks` (the document so far, in order), or null when no `>` came yet. */
function untilFirstGt(chunks: readonly Uint8Array[]): Buffer | null {
  const parts: Uint8Array[] = [];
  for (const chunk of chunks) {
    const gt = chunk.indexOf(GT);
    if (gt >= 0) {
      parts.push(chunk.subarray(0, gt));
      return Buffer.concat(parts);
    }
    parts.push(chunk);
    // Nothing but `<?xml` can start a declaration: most documents are decided by their first chunk.
    if (!startsLikeXml(parts)) return null;
  }
  return null;
}

/** Whether the bytes so far could still begin with `<?xml`. */
function startsLikeXml(parts: readonly Uint8Array[]): boolean {
  let i = 0;
  for (const part of parts) {
    for (let k = 0; k < part.length && i < XML_OPEN.length; k++, i++) if (part[k] !== XML_OPEN[i]) return false;
    if (i === XML_OPEN.length) return true;
  }
  return true;
}

/**
 * The encoding named by an XML declaration at the start of the document (`chunks`, without a BOM), UTF-16
 * read as UTF-8 as for any encoding a document names from inside; null when there is none or it names no
 * known encoding. Call it once the declaration's `>` has arrived or the input has ended.
 */
export function xmlDeclarationEncoding(chunks: readonly Uint8Array[]): string | null {
  const decl = untilFirstGt(chunks);
  if (decl === null || decl.length < XML_OPEN.length || !decl.subarray(0, XML_OPEN.length).equals(XML_OPEN)) return null;
  const at = decl.indexOf(ENCODING, XML_OPEN.length);
  if (at < 0) return null;
  let p = at + ENCODING.length;
  while (p < decl.length && decl[p] <= 0x20) p++;
  if (decl[p] !== EQ) return null;
  p++;
  while (p < decl.length && decl[p] <= 0x20) p++;
  const quote = decl[p];
  if (quote !== DQ && quote !== SQ) return null;
  const end = decl.indexOf(quote, p + 1);
  if (end < 0) return null;
  const label = decl.subarray(p + 1, end);
  if (label.length === 0 || label.some((b) => b <= 0x20)) return null;
  const encoding = resolveEncodingLabel(label.toString('latin1'));
  return encoding === 'utf-16le' || encoding === 'utf-16be' ? 'utf-8' : encoding;
}
