/**
 * What keeping some pages does to the claims a document made. The render checked them on the whole
 * document, and a file that keeps only some of its pages can fail what the whole passed:
 * - PDF/UA-1: its headings may start at an h2 or skip a level (the h1 or the h2 was on a page taken out:
 *   veraPDF 7.4.2-1), and a table's rows may no longer line up (a cell spanning rows, or a row, cut where
 *   a page was taken out: 7.2-41, 7.2-43). The render's own checks run again on the structure tree as the
 *   file will hold it, before it is written.
 * - Factur-X: the invoice number and amount due were found shown on the invoice's pages as a whole; a
 *   file without one of those pages may not show them, and a file without any still carries the XML.
 * A claim that no longer holds is cut out of the file's XMP and said why. PDF/A asks nothing a cut can
 * take away: veraPDF 3b passed every piece of tagged documents cut at each page.
 */
import { skippedHeading } from '../profiles/heading-order.js';
import type { PdfFile, StructureReader } from '../profiles/pdf-file.js';
import { dict, isDict, name, PdfRef, type PdfValue } from '../profiles/pdf-objects.js';
import { checkStructure } from '../profiles/structure-checks.js';
import type { Claim, ConformanceIssue } from '../profiles/types.js';
import { xmpClaims, xmpText, xmpWithClaims } from './assembly-claims.js';
import type { PdfWriter } from './pdf-writer.js';
import type { KeptStructure } from './struct-index.js';

/** The structure of `file` as a file that keeps `structure` holds it: elements left out are absent, changed ones changed. */
function keptReader(file: PdfFile, structure: KeptStructure): StructureReader {
  const changed = new Map(structure.overrides);
  const resolve = (value: PdfValue | undefined): PdfValue | undefined => {
    if (!(value instanceof PdfRef)) return file.resolve(value);
    if (structure.dropped(value.num)) return undefined;
    return changed.get(value.num) ?? file.resolve(value);
  };
  return {
    catalog: () => file.catalog(),
    resolve,
    dict: (value) => {
      const resolved = resolve(value);
      return isDict(resolved) ? resolved : undefined;
    },
    kids: (value) => file.kids(value),
  };
}

/** What a file keeping some pages is checked for. */
export interface CutChecks {
  /** What the whole document is known to meet (a render's claims). */
  claims: readonly Claim[];
  /** The structure tree as the file holds it; undefined for an untagged document. */
  structure: KeptStructure | undefined;
  /** Whether the file takes out a page of the invoice (for a split, of its first part). */
  invoiceCut: boolean;
}

/** Why the pages a file keeps no longer meet each claim they break (none when every claim still holds). */
export function cutIssues(file: PdfFile, label: string, checks: CutChecks): ConformanceIssue[] {
  const issues: ConformanceIssue[] = [];
  if (checks.claims.includes('PDF/UA-1') && checks.structure) issues.push(...structureIssues(file, label, checks.structure));
  if (checks.claims.includes('Factur-X') && checks.invoiceCut)
    issues.push({
      profile: 'Factur-X',
      clause: 'Factur-X 1.0',
      element: label,
      message:
        `${label}: it does not keep every page of the invoice, and a Factur-X file must show the invoice its XML is ` +
        '(its number and amount due were checked on all of those pages together), so it does not claim Factur-X',
    });
  return issues;
}

function structureIssues(file: PdfFile, label: string, structure: KeptStructure): ConformanceIssue[] {
  const kept = keptReader(file, structure);
  const issues: ConformanceIssue[] = [];
  const notMet = 'so its pages do not meet PDF/UA-1 and it is not claimed';
  const heading = skippedHeading(kept);
  if (heading) {
    const tag = heading.tag.toLowerCase();
    issues.push({
      profile: 'PDF/UA-1',
      clause: '7.4.2-1',
      element: label,
      message:
        heading.previous === 0
          ? `${label}: the first heading of the pages it keeps is an ${tag} (the headings before it are on pages taken out); PDF/UA needs headings to start at h1 and skip no level, ${notMet}`
          : `${label}: in the pages it keeps an ${tag} follows an h${heading.previous} (the heading between them is on a page taken out); PDF/UA needs headings that skip no level, ${notMet}`,
    });
  }
  const table = checkStructure(kept).table;
  if (table) {
    const { index, widths } = table;
    const rows = widths.every((w) => w === widths[0])
      ? `a cell of table ${index} spans more rows than the pages keep of it`
      : `the rows of table ${index} cover ${widths.slice(0, 8).join(', ')}${widths.length > 8 ? ', …' : ''} columns`;
    issues.push({
      profile: 'PDF/UA-1',
      clause: '7.2-42',
      element: label,
      message: `${label}: in the pages it keeps, ${rows} (a row, or a cell spanning rows, is cut where a page was taken out), ${notMet}`,
    });
  }
  return issues;
}

/**
 * The file's XMP stream with the claims of `withheld` cut out, written to `out`; when they cannot be cut
 * with certainty the file has no XMP, and `lost` says so for each claim it made.
 */
export function xmpWithout(
  file: PdfFile,
  out: PdfWriter,
  label: string,
  withheld: readonly ConformanceIssue[],
): { ref?: PdfRef; lost: ConformanceIssue[] } {
  const xmp = xmpText(file);
  const left = xmpClaims(xmp).filter((c) => !withheld.some((issue) => issue.profile === c));
  const edited = xmpWithClaims(xmp, left);
  if (edited) return { ref: out.add(dict({ Type: name('Metadata'), Subtype: name('XML') }), edited), lost: [] };
  const lost = left.map(
    (claim): ConformanceIssue => ({
      profile: claim,
      clause: 'assembly',
      element: label,
      message: `${label}: its XMP could not be edited with certainty, so it carries none and does not claim ${claim}`,
    }),
  );
  return { lost };
}
