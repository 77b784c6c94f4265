/**
 * The page each named destination of a printed PDF lands on. Chromium writes one destination per id a
 * link points to (`/Dests` in the catalog: name → [page /XYZ x y zoom]), where the element starts: exactly
 * the page `target-counter(…, page)` names (src/render/document/cross-references.ts). Reads the file Chromium printed (one
 * classic cross-reference table, every object at top level), never the whole content.
 */
import { offsetInTable, readTrailer } from './pdf-info.js';

/** What a printed PDF says about its pages: how many, and the 1-based page of each named destination. */
export interface DestinationPages {
  pageCount: number;
  pages: Record<string, number>;
}

/** Deepest page tree read: Chromium's is two or three levels (a loop is stopped by remembering each node). */
const MAX_TREE_DEPTH = 32;

/** The text of object `num` (between `obj` and `endobj`), or undefined when the table does not place it. */
function objectText(pdf: Buffer, xrefOffset: number, num: number): string | undefined {
  const start = offsetInTable(pdf, xrefOffset, num);
  if (start === undefined) return undefined;
  const end = pdf.indexOf('endobj', start, 'latin1');
  if (end < 0) return undefined;
  const text = pdf.toString('latin1', start, end);
  return text.startsWith(`${num} `) ? text.slice(text.indexOf('obj') + 3) : undefined;
}

/** A PDF name's bytes (`#xx` escapes decoded) read as UTF-8, which is how Chromium writes an element id. */
function decodeName(raw: string): string {
  const bytes = Buffer.from(
    raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    'latin1',
  );
  return bytes.toString('utf8');
}

/** Page object numbers in page order, walking the page tree from `num`, each node once (`seen`). */
function pageObjects(pdf: Buffer, xrefOffset: number, num: number, depth: number, out: number[], seen: Set<number>): void {
  if (seen.has(num) || depth > MAX_TREE_DEPTH) return;
  seen.add(num);
  const text = objectText(pdf, xrefOffset, num);
  if (text === undefined) return;
  if (!/\/Type\s*\/Pages\b/.test(text)) {
    out.push(num);
    return;
  }
  const kids = /\/Kids\s*\[([^\]]*)\]/.exec(text)?.[1] ?? '';
  for (const kid of kids.matchAll(/(\d+)\s+\d+\s+R/g)) pageObjects(pdf, xrefOffset, Number(kid[1]), depth + 1, out, seen);
}

/**
 * The page count and each named destination's page of a PDF as Chromium printed it; undefined when the file
 * is not laid out that way (then cross-references print without numbers rather than with wrong ones).
 */
export function readDestinationPages(pdf: Buffer): DestinationPages | undefined {
  const trailer = readTrailer(pdf);
  if (!trailer?.classic) return undefined;
  const root = /\/Root\s+(\d+)\s+\d+\s+R/.exec(trailer.dict);
  const catalog = root ? objectText(pdf, trailer.xrefOffset, Number(root[1])) : undefined;
  const pagesRoot = catalog && /\/Pages\s+(\d+)\s+\d+\s+R/.exec(catalog);
  if (!catalog || !pagesRoot) return undefined;
  const order: number[] = [];
  pageObjects(pdf, trailer.xrefOffset, Number(pagesRoot[1]), 0, order, new Set());
  const index = new Map(order.map((num, i) => [num, i + 1]));
  const pages: Record<string, number> = {};
  const destsRef = /\/Dests\s+(\d+)\s+\d+\s+R/.exec(catalog);
  const dests = destsRef ? objectText(pdf, trailer.xrefOffset, Number(destsRef[1])) : undefined;
  for (const entry of (dests ?? '').matchAll(/\/([^\s/[\]<>()]+)\s*\[\s*(\d+)\s+\d+\s+R/g)) {
    const page = index.get(Number(entry[2]));
    if (page !== undefined) pages[decodeName(entry[1])] = page;
  }
  return { pageCount: order.length, pages };
}
