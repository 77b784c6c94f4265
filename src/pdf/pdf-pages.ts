/**
 * The page count of a PDF Chromium printed, read from its page tree without a PDF library: Chromium
 * (Skia) writes the tree's dictionaries uncompressed, and the root's /Count is the total.
 */

const PAGES_DICT = /\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]*?\/Type\s*\/Pages\b/g;
const PAGE_DICT = /\/Type\s*\/Page(?![a-zA-Z])/g;

/** Pages of the PDF: the largest /Count of a /Pages node, else the number of /Page objects. */
export function countPdfPages(pdf: Buffer): number {
  const text = pdf.toString('latin1');
  let max = 0;
  for (const m of text.matchAll(PAGES_DICT)) max = Math.max(max, Number(m[1] ?? m[2]));
  if (max > 0) return max;
  return text.match(PAGE_DICT)?.length ?? 0;
}
