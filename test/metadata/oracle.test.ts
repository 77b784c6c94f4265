import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { oracleBrowserForSuite } from './oracle.js';
import { compareWithOracle, formatMismatches } from './oracle-compare.js';

const CORPUS = process.env.METADATA_CORPUS_DIR ?? '/work/shared/corpus/metadata';
const TARGET = 0.995;

describe('browser oracle: corpus', () => {
  const browser = oracleBrowserForSuite();

  it(`agrees with Chromium's DOM on at least ${TARGET * 100}% of fields`, { timeout: 600_000 }, async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(CORPUS, 'manifest.json'), 'utf8')) as Array<{
      name: string;
      url: string;
    }>;
    const pages = manifest.map((m) => ({ ...m, bytes: fs.readFileSync(path.join(CORPUS, 'pages', `${m.name}.html`)) }));
    const result = await compareWithOracle(browser(), pages);
    const rate = result.agreeing / result.fields;
    console.log(
      `oracle agreement: ${result.agreeing}/${result.fields} fields = ${(rate * 100).toFixed(2)}% over ${pages.length} pages` +
        (result.mismatches.length ? `\nmismatches:\n${formatMismatches(result.mismatches)}` : ''),
    );
    expect(pages.length).toBe(91);
    expect(result.urlProblems).toEqual([]);
    expect(rate).toBeGreaterThanOrEqual(TARGET);
  });
});
