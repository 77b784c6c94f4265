/**
 * The extractor against Chromium's DOM on whole pages: the pages written in test/fixtures always (every field
 * agrees), and the pages saved from real sites when PAGEWORKS_CORPUS_DIR names them (at least 99.5%).
 */
import { describe, expect, it } from 'vitest';
import { EXTRA_CORPUS_SKIPPED, extraCorpusDir, loadPages, OWN_METADATA_DIR } from '../fixtures/corpus/index.js';
import { oracleBrowserForSuite } from './oracle.js';
import { compareWithOracle, formatMismatches } from './oracle-compare.js';

const TARGET = 0.995;
const EXTRA_DIR = extraCorpusDir('metadata');
if (!EXTRA_DIR) console.warn(`\n*** ${EXTRA_CORPUS_SKIPPED} ***\n`);

describe('browser oracle: corpus', () => {
  const browser = oracleBrowserForSuite();

  it('agrees with Chromium on every field of the pages written here', { timeout: 300_000 }, async () => {
    const pages = loadPages(OWN_METADATA_DIR);
    const result = await compareWithOracle(browser(), pages);
    expect(result.urlProblems).toEqual([]);
    // Empty exactly when no field disagrees; on failure it lists each disagreement readably.
    expect(formatMismatches(result.mismatches)).toBe('');
    expect(result.fields).toBe(pages.length * 8);
  });

  it.skipIf(!EXTRA_DIR)(
    `agrees with Chromium's DOM on at least ${TARGET * 100}% of fields of the saved real pages`,
    { timeout: 600_000 },
    async () => {
      const pages = loadPages(EXTRA_DIR ?? '');
      const result = await compareWithOracle(browser(), pages);
      const rate = result.agreeing / result.fields;
      console.log(
        `oracle agreement: ${result.agreeing}/${result.fields} fields = ${(rate * 100).toFixed(2)}% over ${pages.length} pages` +
          (result.mismatches.length ? `\nmismatches:\n${formatMismatches(result.mismatches)}` : ''),
      );
      expect(pages.length).toBe(91);
      expect(result.urlProblems).toEqual([]);
      expect(rate).toBeGreaterThanOrEqual(TARGET);
    },
  );
});
