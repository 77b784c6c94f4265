import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareWithOracle, formatMismatches } from './oracle-compare.js';
import { launchOracleBrowser } from './oracle.js';
import { RULE_PAGES } from './rule-pages.js';

describe('browser oracle: hand-written rule pages', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchOracleBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('Chromium agrees with the extractor on every field of every rule page', { timeout: 300_000 }, async () => {
    const result = await compareWithOracle(browser, RULE_PAGES);
    if (result.mismatches.length) console.log(`rule-page mismatches:\n${formatMismatches(result.mismatches)}`);
    expect(result.urlProblems).toEqual([]);
    expect(result.mismatches).toEqual([]);
  });
});
