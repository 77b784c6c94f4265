/**
 * A claim is a promise on pages nobody here wrote: 50 pages saved from real sites (the extra corpus,
 * PAGEWORKS_CORPUS_DIR) each declare PDF/A-3b and PDF/UA-1 and are rendered through POST /v1/render with
 * the network refused; every profile a PDF claims must pass veraPDF. Real article templates are where a
 * bare <li> outside any list and a <figure> around a decorative image were claimed as PDF/UA-1 and failed
 * (7.2-17, 7.3-1). Skipped, in one line, without the corpus or veraPDF.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRA_CORPUS_SKIPPED, extraCorpusDir, loadPages } from '../fixtures/corpus/index.js';
import { type ClaimsDocument, runClaims } from './claims/claims-runner.js';
import { type ClaimsService, startClaimsService } from './claims/claims-service.js';
import { VERAPDF, VERAPDF_SKIPPED } from './verapdf.js';

const PAGES = 50;
const DECLARATION = 'PDF/A-3b, PDF/UA-1';
const EXTRA_DIR = extraCorpusDir('metadata');

/** A saved page declaring `profiles`: the declaration goes first in its <head> (or before everything without one). */
function declaring(name: string, bytes: Buffer): ClaimsDocument {
  const page = bytes.toString('utf8');
  const head = /<head\b[^>]*>/i.exec(page);
  return {
    name,
    constructs: [`page:${name}`],
    html: (profiles) => {
      const meta = `<meta name="pdf-profile" content="${profiles}">`;
      return head
        ? `${page.slice(0, head.index + head[0].length)}${meta}${page.slice(head.index + head[0].length)}`
        : meta + page;
    },
  };
}

let service: ClaimsService | undefined;
beforeAll(async () => {
  if (EXTRA_DIR && VERAPDF) service = await startClaimsService({ RENDER_TIMEOUT_MS: '120000' });
});
afterAll(() => service?.close());

describe('a claim is a promise, on pages saved from real sites', () => {
  it(`${PAGES} saved pages declaring ${DECLARATION}: every claim passes veraPDF`, { timeout: 1_200_000 }, async () => {
    if (!EXTRA_DIR || !service) {
      console.log(EXTRA_DIR ? VERAPDF_SKIPPED : EXTRA_CORPUS_SKIPPED);
      return;
    }
    const documents = loadPages(EXTRA_DIR)
      .slice(0, PAGES)
      .map((p) => declaring(p.name, p.bytes));
    const summary = await runClaims(documents, {
      render: service.render,
      concurrency: service.concurrency,
      batchSize: 60,
      check: true,
      declarations: [DECLARATION],
    });
    console.log(
      `real pages: ${summary.documents} pages, claims ${JSON.stringify(summary.claims)}, renders not 200: ` +
        `${summary.failedRenders.map((r) => `${r.document} ${r.status}`).join(', ') || 'none'}, ${(summary.ms / 1000).toFixed(0)} s`,
    );
    expect(summary.documents).toBe(PAGES);
    expect(summary.falseClaims).toEqual([]);
    for (const profile of Object.keys(summary.claims)) expect(summary.checked[profile], profile).toBe(summary.claims[profile]);
    // Not vacuous: some real pages meet PDF/UA-1 and are claimed, and each of those claims was checked above.
    expect(summary.claims['PDF/UA-1'] ?? 0).toBeGreaterThan(0);
  });
});
