/**
 * The page count of a PDF, read from its page tree without a PDF library: Chromium (Skia) writes the tree's
 * dictionaries uncompressed, and the root's /Count is the total. Customers' PDFs pass through here too (an
 * assembly's parts), so the scan is linear in the file: each stretch between two `>` is read once, and a
 * /Count the file has no room for is not believed.
 */

const PAGES_TYPE = /\/Type\s*\/Pages\b/g;
const COUNT = /\/Count\s+(\d+)/;
const PAGE_DICT = /\/Type\s*\/Page(?![a-zA-Z])/g;

/** Pages of the PDF: the largest /Count of a /Pages node, else the number of /Page objects. */
export function countPdfPages(pdf: Buffer): number {
  const text = pdf.toString('latin1');
  let max = 0;
  let scannedTo = -1;
  for (const m of text.matchAll(PAGES_TYPE)) {
    // The /Count of a /Pages node is in the same stretch of the dictionary (no `>` between them).
    if (m.index < scannedTo) continue;
    const start = text.lastIndexOf('>', m.index) + 1;
    let end = text.indexOf('>', m.index);
    if (end < 0) end = text.length;
    scannedTo = end;
    const count = COUNT.exec(text.slice(start, end));
    if (count) max = Math.max(max, Number(count[1]));
  }
  // Every page is a dictionary of its own or a reference in a /Kids array: more pages than bytes is a lie.
  if (max > 0 && max <= pdf.length) return max;
  return text.match(PAGE_DICT)?.length ?? 0;
}
