/**
 * Printing a document whose generated content names other pages (`target-counter()`; cross-references.ts
 * rewrites the rules). Pass one prints with placeholders; the target pages are read from the named
 * destinations Chromium printed (src/pdf/pdf-destinations.ts); the numbers are set and the document prints again,
 * once more if that moved a target (a table of contents whose own length moves what it lists), at most
 * MAX_PASSES, then the last pass prints as it is.
 */
import { readDestinationPages } from '../../pdf/index.js';
import type { ReportEntry } from '../../report/report.js';
import { reportText } from '../../report/report-text.js';
import { callExpression, evaluate } from '../browser/cdp.js';
import type { RenderSlot } from '../browser/slot.js';
import { MAX_ENTRIES } from '../report/report-collector.js';
import { type CrossReferenceTargets, fillCrossReferences } from './cross-reference-fill.js';
import {
  type CrossReferenceBinding,
  type CrossReferenceSource,
  type CrossReferenceUse,
  installCrossReferences,
  mentionsCrossReferences,
} from './cross-references.js';

/** Most prints of one document. */
export const MAX_PASSES = 3;

/** A printed document, how many passes it took, and the targets its cross-references could not find. */
export interface CrossReferencePrint {
  pdf: Buffer;
  passes: number;
  /** Target ids named by `target-counter()`/`target-text()` that the document has not (or that did not print). */
  unresolved: string[];
}

/**
 * The sheets that use the functions: the style elements found in the page, and the linked sheets whose text
 * (read from the network, as the page got it) uses them.
 */
async function sourcesOf(slot: RenderSlot, use: CrossReferenceUse): Promise<CrossReferenceSource[]> {
  const found: CrossReferenceSource[] = use.styles.map((node) => ({ node }));
  for (const link of use.links) {
    const requestId = slot.stylesheets.get(link.href);
    if (requestId === undefined) continue;
    const body = await slot.session.send('Network.getResponseBody', { requestId }).catch(() => undefined);
    if (!body) continue;
    const text = body.base64Encoded ? Buffer.from(body.body, 'base64').toString('utf8') : body.body;
    if (mentionsCrossReferences(text)) found.push({ node: link.node, text });
  }
  return found.sort((a, b) => a.node - b.node);
}

function fill(
  slot: RenderSlot,
  bindings: CrossReferenceBinding[],
  pages: Record<string, number> | null,
  anchor: boolean,
): Promise<CrossReferenceTargets> {
  return evaluate(slot.session, callExpression(fillCrossReferences, bindings, pages, anchor)) as Promise<CrossReferenceTargets>;
}

/** The pages of `targets` in a printed PDF, by id; null when the PDF cannot be read for them. */
function targetPages(pdf: Buffer, targets: string[]): Record<string, number> | null {
  const read = readDestinationPages(pdf);
  if (!read) return null;
  return Object.fromEntries(targets.filter((id) => read.pages[id] !== undefined).map((id) => [id, read.pages[id]]));
}

function samePages(a: Record<string, number>, b: Record<string, number>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/**
 * Prints the document with its cross-references filled in (see the file comment); `print` prints the page
 * as it is now. A document whose sheets turn out not to use the functions prints once, untouched.
 */
export async function printWithCrossReferences(
  slot: RenderSlot,
  use: CrossReferenceUse,
  print: () => Promise<Buffer>,
): Promise<CrossReferencePrint> {
  const sources = await sourcesOf(slot, use);
  const bindings =
    sources.length === 0
      ? []
      : ((await evaluate(slot.session, callExpression(installCrossReferences, sources))) as CrossReferenceBinding[]);
  if (bindings.length === 0) return { pdf: await print(), passes: 1, unresolved: [] };
  let found = await fill(slot, bindings, null, true);
  let pdf = await print();
  let passes = 1;
  // Leaders and target-text() do not depend on pagination: without page numbers, one pass is the print.
  let printedWith: Record<string, number> | null = null;
  while (found.targets.length > 0 && passes < MAX_PASSES) {
    const pages = targetPages(pdf, found.targets);
    if (pages === null || (printedWith !== null && samePages(pages, printedWith))) break;
    found = await fill(slot, bindings, pages, false);
    printedWith = pages;
    pdf = await print();
    passes += 1;
  }
  return { pdf, passes, unresolved: found.missing };
}

/** The render report's entries for targets a cross-reference could not find (docs/rendering.md#when-a-document-cannot-get-everything). */
export function unresolvedReferenceEntries(targets: string[]): ReportEntry[] {
  // The targets are the document's text: strings only, control characters replaced, a report's worth at most.
  return targets
    .filter((target) => typeof target === 'string')
    .slice(0, MAX_ENTRIES + 1)
    .map((target) => ({
      kind: 'unresolved_reference',
      target: reportText(target, 500),
      message: `a cross-reference points to #${reportText(target, 200)}, which the document does not have (or does not print): its page number is left out`,
    }));
}
