import { describe, expect, it } from 'vitest';
import { compareWithOracle, formatMismatches } from './oracle-compare.js';
import { oracleBrowserForSuite } from './oracle.js';
import { RULE_PAGES } from './rule-pages.js';

describe('browser oracle: hand-written rule pages', () => {
  const browser = oracleBrowserForSuite();

  it('Chromium agrees with the extractor on every field of every rule page', { timeout: 300_000 }, async () => {
    const result = await compareWithOracle(browser(), RULE_PAGES);
    if (result.mismatches.length) console.log(`rule-page mismatches:\n${formatMismatches(result.mismatches)}`);
    expect(result.urlProblems).toEqual([]);
    expect(result.mismatches).toEqual([]);
  });
});
