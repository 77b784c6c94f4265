/**
 * What a split costs against the merge of the same pages. A tagged document of `ASSEMBLE_FINISHING_PAGES`
 * (1,000) pages written by hand (test/helpers/tagged-pages.ts: each page a section of a heading, a link and
 * 20 paragraphs, with its parent tree, ID tree, outline item and named destination) is split into files of
 * 2 pages (splitPages), each file checked for PDF/UA-1 as the split of a PDF/UA assembly is (kept-claims.ts);
 * the same pages are merged back from those files, one part each (assemblePdfs).
 * Beside them: the split of a quarter of the pages, and keeping every page (the metadata's rewrite). In
 * process, the engine's functions directly; in rounds whose order turns, so that load hits all alike;
 * medians of `ASSEMBLE_FINISHING_ROUNDS` (5). Goals: the split takes at most 2× the merge of the same pages
 * (DESIGN.md, "Finishing an assembly"), and its time grows with its pages, not with their square: four times
 * the pages take at most six times as long. When each file walked the whole document
 * they took 22 times as long (8.5 s against 0.39 s, the merge 1.5 s; 3 rounds at load 5); indexed once
 * per split, 3.3 times (316 ms against 97 ms, the merge 177 ms). Checking each file for PDF/UA-1 costs
 * 1.13× the split's CPU (387 ms against 343 ms, medians of 15 at load 5).
 */
import { assemblePdfs } from '../src/pdf/assemble/assemble-pdfs.js';
import { keepPages, splitPages } from '../src/pdf/assemble/keep-pages.js';
import { taggedPagesPdf } from '../test/helpers/tagged-pages.js';
import { fmt, heading, median, verdict } from './stats.js';

const PAGES = Number(process.env.ASSEMBLE_FINISHING_PAGES ?? 1000);
const ROUNDS = Number(process.env.ASSEMBLE_FINISHING_ROUNDS ?? 5);
const PARAGRAPHS = 20;
/** What the split of a PDF/UA assembly checks each file for. */
const CHECKS = { claims: ['PDF/UA-1'] } as const;

/** Files of 2 pages (the last of 1 when `pages` is odd). */
function pairs(pages: number): Array<{ label: string; pages: number[] }> {
  return Array.from({ length: Math.ceil(pages / 2) }, (_, k) => ({
    label: `split[${k}]`,
    pages: [2 * k, 2 * k + 1].filter((p) => p < pages),
  }));
}

/** Runs the bench and prints its figures and goal. */
export async function runAssembleFinishingBench(): Promise<void> {
  const quarterPages = Math.max(2, Math.round(PAGES / 4));
  heading(`assemble-finishing: splitting ${PAGES} tagged pages into ${Math.ceil(PAGES / 2)} files vs merging them`);
  const whole = taggedPagesPdf(PAGES, { paragraphs: PARAGRAPHS });
  const quarter = taggedPagesPdf(quarterPages, { paragraphs: PARAGRAPHS });
  const files = await splitPages(whole, pairs(PAGES));
  const parts = files.map((file, k) => ({ pdf: file.pdf, label: `parts[${k}]` }));
  const merged = await assemblePdfs(parts);
  if (merged.pages !== PAGES) throw new Error(`the merge has ${merged.pages} pages, not ${PAGES}`);

  const cases: Record<string, { label: string; files: number; run: () => Promise<unknown> }> = {
    split: {
      label: `split: ${PAGES} pages into files of 2`,
      files: files.length,
      run: () => splitPages(whole, pairs(PAGES), CHECKS),
    },
    merge: { label: `merge: the ${files.length} files back, one part each`, files: files.length, run: () => assemblePdfs(parts) },
    quarter: {
      label: `split: ${quarterPages} pages into files of 2`,
      files: Math.ceil(quarterPages / 2),
      run: () => splitPages(quarter, pairs(quarterPages), CHECKS),
    },
    keepAll: {
      label: `keep every page of ${PAGES} (metadata)`,
      files: 1,
      run: () => keepPages(whole, { label: 'the assembly' }),
    },
  };
  const keys = Object.keys(cases);
  const runs: Record<string, number[]> = Object.fromEntries(keys.map((k) => [k, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    const order = keys.map((_, i) => keys[(i + round) % keys.length]);
    for (const key of order) {
      const started = performance.now();
      await cases[key].run();
      // Round 0 warms the code up.
      if (round > 0) runs[key].push(performance.now() - started);
    }
  }
  process.stdout.write(
    `${ROUNDS} rounds; the document ${(whole.length / 2 ** 20).toFixed(1)} MiB, ${PARAGRAPHS} paragraphs a page\n`,
  );
  for (const key of keys) {
    const ms = median(runs[key]);
    process.stdout.write(
      `${cases[key].label.padEnd(44)} median ${fmt(ms, 1, 8)} ms  ${fmt(ms / cases[key].files, 2, 7)} ms per file\n`,
    );
  }
  const split = median(runs.split);
  const merge = median(runs.merge);
  const growth = split / median(runs.quarter);
  process.stdout.write(
    `goal: the split ≤ 2 × the merge of the same pages: ${fmt(split / merge, 2, 0)} × — ${verdict(split <= 2 * merge)}\n`,
  );
  process.stdout.write(
    `goal: the split of ${PAGES} pages ≤ 6 × the split of ${quarterPages}: ${fmt(growth, 1, 0)} × — ${verdict(growth <= 6)}\n`,
  );
}
