import { describe, expect, it } from 'vitest';
import { extractMetadata } from '../../src/metadata/extract.js';
import { MetadataExtractor } from '../../src/metadata/metadata-extractor.js';
import { generatedPages } from './generated-pages.js';
import { oracleBrowserForSuite } from './oracle.js';
import { compareWithOracle, formatMismatches } from './oracle-compare.js';

const PAGES = generatedPages(20261123, 100);

describe('generated pages: tokenizer and tree-building corners', () => {
  const browser = oracleBrowserForSuite();

  it('Chromium agrees with the extractor on every field of every generated page', { timeout: 300_000 }, async () => {
    const result = await compareWithOracle(browser(), PAGES);
    expect(result.urlProblems).toEqual([]);
    // Empty exactly when no field disagrees; on failure it lists each disagreement readably.
    expect(formatMismatches(result.mismatches)).toBe('');
    expect(result.fields).toBe(PAGES.length * 8);
  });

  it('any chunking gives the answer of the whole page', () => {
    for (const page of PAGES) {
      const whole = extractMetadata(page.bytes, 'text/html', page.url);
      for (const size of [1, 3, 17]) {
        const x = new MetadataExtractor('text/html', page.url);
        for (let i = 0; i < page.bytes.length && !x.settled; i += size) x.push(page.bytes.subarray(i, i + size));
        expect(x.finish(), `${page.name}, chunks of ${size}`).toEqual(whole);
      }
    }
  });
});
