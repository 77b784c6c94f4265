/**
 * A comment in src/ that points a reader to a page points to one the repository holds: every
 * `docs/<page>.md` (with its `#anchor`, if any) resolves, and none names a design file kept elsewhere.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, ROOT } from './markdown.js';

const SOURCES = fs
  .readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => `src/${f.split(path.sep).join('/')}`)
  .sort();

/** Each `docs/….md[#anchor]` a source file mentions, with its line. */
function docReferences(file: string): { line: number; page: string; anchor: string | undefined }[] {
  const found: { line: number; page: string; anchor: string | undefined }[] = [];
  for (const [i, text] of fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n').entries()) {
    for (const m of text.matchAll(/\bdocs\/([\w.-]+\.md)(?:#([\w-]+))?/g)) found.push({ line: i + 1, page: m[1], anchor: m[2] });
  }
  return found;
}

describe('pages that source comments point to', () => {
  it('src/ has the files this suite reads', () => {
    expect(SOURCES).toContain('src/main.ts');
  });

  it('every docs/ page and anchor a source file names exists', () => {
    const broken: string[] = [];
    for (const file of SOURCES) {
      for (const { line, page, anchor } of docReferences(file)) {
        const doc = path.join(ROOT, 'docs', page);
        if (!fs.existsSync(doc)) broken.push(`${file}:${line}: no docs/${page}`);
        else if (anchor !== undefined && !anchorsOf(fs.readFileSync(doc, 'utf8')).has(anchor)) {
          broken.push(`${file}:${line}: no heading gives #${anchor} in docs/${page}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('no source file cites DESIGN.md, which the repository does not hold', () => {
    const citing = SOURCES.filter((f) => fs.readFileSync(path.join(ROOT, f), 'utf8').includes('DESIGN.md'));
    expect(citing).toEqual([]);
  });
});
