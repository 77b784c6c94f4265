/**
 * A split of a tagged document through the PDF engine, within the deadline it has by default (one
 * PDF_WORK_TIMEOUT_MS of 5 s per 10,000 pages): 1,000 pages, each a section of a heading, a link and 50
 * paragraphs, cut into 500 files of 2 pages. Each file holds its own pages' structure elements (as
 * pdfinfo reads them, with their text), outline items and named destinations, and nothing of the other
 * pages'. Walking the whole structure tree again for each file took past the deadline.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PDF_STEPS } from '../../src/assemble/default-steps.js';
import { stopPdfEngine } from '../../src/pdf/engine.js';
import { countPdfPages } from '../../src/pdf/pdf-pages.js';
import { taggedPagesPdf } from '../helpers/tagged-pages.js';
import { pdfOutline, qpdfCheck } from '../render/pdf-tools.js';

const PAGES = 1000;
const PARAGRAPHS = 50;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-split-structure-'));

afterAll(async () => {
  await stopPdfEngine();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What poppler reads of a file: its structure tree with each element's text (an annotation as `Object N 0`), and its named destinations. */
function poppler(pdf: Buffer, name: string): { structure: string; dests: string[] } {
  const file = path.join(dir, name);
  fs.writeFileSync(file, pdf);
  const structure = execFileSync('pdfinfo', ['-struct-text', file], { encoding: 'utf8' });
  const dests = execFileSync('pdfinfo', ['-dests', file], { encoding: 'utf8' })
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => line.replace(/\s+/g, ' ').trim());
  return { structure, dests };
}

/** The structure tree pdfinfo prints for a section of page `i` (from 0) whose link went to a page the file has or not. */
function section(i: number, linkKept: boolean): string {
  const next = ((i + 1) % PAGES) + 1;
  const lines = [
    '  Sect',
    `    H1 <h${String(i).padStart(6, '0')}> (block)`,
    `      "Heading ${i + 1}"`,
    '    Link (inline)',
    `      "Go to page ${next}"`,
    ...(linkKept ? ['      Object'] : []),
    ...Array.from({ length: PARAGRAPHS }, (_, j) => ['    P (block)', `      "Paragraph ${j + 1} of page ${i + 1}."`]).flat(),
  ];
  return lines.join('\n');
}

describe('split of a tagged document', () => {
  it('cuts 1,000 tagged pages into 500 files within the default deadline, each with its own structure, outline and destinations', async () => {
    const pdf = taggedPagesPdf(PAGES, { paragraphs: PARAGRAPHS });
    const pieces = Array.from({ length: PAGES / 2 }, (_, k) => ({ label: `split[${k}]`, pages: [2 * k, 2 * k + 1] }));
    const files = (await PDF_STEPS.split(pdf, pieces, { claims: [] })).map((piece) => piece.pdf);

    expect(files).toHaveLength(500);
    expect(files.map((file) => countPdfPages(file)).filter((n) => n !== 2)).toEqual([]);
    for (const k of [0, 123, 499]) {
      const file = files[k];
      expect(qpdfCheck(file).status, qpdfCheck(file).output).toBe(0);
      const [first, second] = [2 * k, 2 * k + 1];
      const { structure, dests } = poppler(file, `piece-${k}.pdf`);
      // The first page's link goes to the second, in the file; the second's goes to a page it does not have.
      expect(structure.replace(/Object \d+ 0/g, 'Object').trimEnd()).toBe(
        ['Document', section(first, true), section(second, false)].join('\n'),
      );
      expect(dests).toEqual([
        `1 [ XYZ 0 842 null ] "p${String(first).padStart(6, '0')}"`,
        `2 [ XYZ 0 842 null ] "p${String(second).padStart(6, '0')}"`,
      ]);
      expect(pdfOutline(file)).toEqual([
        { title: `Page ${first + 1}`, page: 1, kids: [] },
        { title: `Page ${second + 1}`, page: 2, kids: [] },
      ]);
    }
  }, 60_000);
});
