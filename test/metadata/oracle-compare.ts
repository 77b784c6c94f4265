/**
 * Field-by-field comparison of the extractor with the browser oracle over a set of pages,
 * a few pages at a time in one Chromium.
 */
import type { Browser } from 'puppeteer-core';
import { extractMetadata } from '../../src/metadata/extract.js';
import { METADATA_FIELDS, type Metadata } from '../../src/metadata/types.js';
import { OracleTab } from './oracle.js';

/** One disagreement between the extractor and the DOM. */
export interface Mismatch {
  page: string;
  field: keyof Metadata;
  browser: string | null;
  ours: string | null;
}

/** Agreement over all fields of all pages, with every mismatch. */
export interface Agreement {
  fields: number;
  agreeing: number;
  mismatches: Mismatch[];
  /** Pages whose document URL in the browser was not the URL they were served under. */
  urlProblems: string[];
}

/** Compares extractor and browser on every page (served as text/html without charset). */
export async function compareWithOracle(
  browser: Browser,
  pages: ReadonlyArray<{ name: string; url: string; bytes: Uint8Array }>,
  concurrency = 3,
): Promise<Agreement> {
  const result: Agreement = { fields: 0, agreeing: 0, mismatches: [], urlProblems: [] };
  let next = 0;
  const context = await browser.createBrowserContext();
  const worker = async (): Promise<void> => {
    const tab = await OracleTab.open(context);
    while (next < pages.length) {
      const page = pages[next++];
      const dom = await tab.read(page.bytes, page.url);
      if (dom.documentUrl !== new URL(page.url).href) result.urlProblems.push(`${page.name}: ${dom.documentUrl}`);
      const ours = extractMetadata(page.bytes, 'text/html', page.url);
      for (const field of METADATA_FIELDS) {
        result.fields++;
        if (ours[field] === dom.fields[field]) result.agreeing++;
        else result.mismatches.push({ page: page.name, field, browser: dom.fields[field], ours: ours[field] });
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await context.close();
  }
  return result;
}

/** Human-readable list of mismatches. */
export function formatMismatches(mismatches: readonly Mismatch[]): string {
  return mismatches
    .map((m) => `  ${m.page} · ${m.field}\n    browser: ${JSON.stringify(m.browser)}\n    ours:    ${JSON.stringify(m.ours)}`)
    .join('\n');
}
