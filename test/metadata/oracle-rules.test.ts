import { describe, expect, it } from 'vitest';
import { oracleBrowserForSuite } from './oracle.js';
import { compareWithOracle, formatMismatches } from './oracle-compare.js';
import { RULE_PAGES } from './rule-pages.js';

describe('browser oracle: hand-written rule pages', () => {
  const browser = oracleBrowserForSuite();

  it('Chromium agrees with the extractor on every field of every rule page', { timeout: 300_000 }, async () => {
    const result = await compareWithOracle(browser(), RULE_PAGES);
    expect(result.urlProblems).toEqual([]);
    // Empty exactly when no field disagrees; on failure it lists each disagreement readably.
    expect(formatMismatches(result.mismatches)).toBe('');
  });
});
