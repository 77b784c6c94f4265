/**
 * README.md stays a first page: what Pageworks is, how to start it, where the rest lives. Worked examples
 * belong in docs/, where the docs tests run them; a README past 250 lines has grown a manual again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const README = path.resolve(import.meta.dirname, '../../README.md');

describe('README.md', () => {
  it('is under 250 lines', () => {
    const lines = fs.readFileSync(README, 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    expect(lines.length).toBeLessThan(250);
  });
});
