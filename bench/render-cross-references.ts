/**
 * Cross-references: a 100-page report with a 60-entry table of contents (leader dots, target-counter())
 * through the HTTP API, against the same report without those rules (one pass), alternating, one render
 * at a time. The goal: at most 2.3× the time of one pass.
 */
import { crossReferenceReport } from '../test/fixtures/cross-reference-report.js';
import { startBenchService } from './bench-service.js';
import { serviceRender } from './render-loops.js';
import { fmt, heading, median, verdict } from './stats.js';

const RUNS = 7;
/** Paragraphs of the 60 parts: 100 pages of A4 in all. */
const PARTS = Array.from({ length: 60 }, (_, i) => [5, 14, 8, 19, 4][i % 5]);
const GOAL = 2.3;

/** Runs the cross-reference bench and prints its ratio. */
export async function runRenderCrossReferencesBench(): Promise<void> {
  heading('render: cross-references (100-page report, 60-entry table of contents)');
  const { baseUrl, key, close } = await startBenchService('xref');
  try {
    const withReferences = serviceRender(baseUrl, key, crossReferenceReport({ parts: PARTS }));
    const onePass = serviceRender(baseUrl, key, crossReferenceReport({ parts: PARTS, references: false }));
    await withReferences();
    await onePass();
    const times = { references: [] as number[], plain: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      for (const [name, render] of [
        ['references', withReferences],
        ['plain', onePass],
      ] as const) {
        const t = performance.now();
        await render();
        times[name].push(performance.now() - t);
      }
    }
    const ratio = median(times.references) / median(times.plain);
    process.stdout.write(
      `one pass (no cross-references)  median ${fmt(median(times.plain), 0, 6)} ms\n` +
        `with cross-references           median ${fmt(median(times.references), 0, 6)} ms  (${RUNS} runs each, alternating)\n` +
        `goal: ≤ ${GOAL}× the time of one pass: ${fmt(ratio, 2, 0)}× — ${verdict(ratio <= GOAL)}\n`,
    );
  } finally {
    await close();
  }
}
