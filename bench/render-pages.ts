/**
 * Big documents: ms per page for 1-, 10- and 100-page reports through the HTTP API (one at a time, as a
 * user sending a report meets it), and Chromium's peak resident memory (every process of its group)
 * while the 100-page report renders.
 */
import fs from 'node:fs';
import { processGroupMembers, processGroupRss } from '../src/render/browser/chromium.js';
import { reportDocument } from '../test/fixtures/render/generated.js';
import { chromiumChildren } from '../test/render/processes.js';
import { startBenchService } from './bench-service.js';
import { serviceRender } from './render-loops.js';
import { fmt, heading, median } from './stats.js';

/** Page counts and measured runs of each (after one warm-up render). */
const SIZES: ReadonlyArray<{ pages: number; runs: number }> = [
  { pages: 1, runs: 9 },
  { pages: 10, runs: 5 },
  { pages: 100, runs: 3 },
];
const SAMPLE_MS = 50;
const MIB = 1024 * 1024;

/**
 * Proportional set size of the groups in bytes: shared pages (libraries, the zygote's copy-on-write heap)
 * split between the processes sharing them, where summed RSS counts them once per process. Reading
 * smaps_rollup costs up to ~100 ms per process, so it is read once, not sampled.
 */
export function groupPss(groups: number[]): number {
  let kib = 0;
  for (const pid of groups.flatMap((g) => processGroupMembers(g))) {
    try {
      kib += Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // The process ended meanwhile.
    }
  }
  return kib * 1024;
}

/** Runs `work` while sampling the summed RSS of the process groups every SAMPLE_MS; resolves with the peak in bytes. */
async function peakRss(groups: number[], work: () => Promise<void>): Promise<number> {
  const sample = () => groups.reduce((sum, pgid) => sum + processGroupRss(pgid), 0);
  let peak = sample();
  const timer = setInterval(() => (peak = Math.max(peak, sample())), SAMPLE_MS);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, sample());
}

/** Runs the big-document bench and prints its table. */
export async function runRenderPagesBench(): Promise<void> {
  heading('render: big documents (generated report, 1 / 10 / 100 pages)');
  const { baseUrl, key, config, close } = await startBenchService('pages');
  try {
    const groups = chromiumChildren();
    process.stdout.write(
      `service: default RENDER_TIMEOUT_MS (${config.renderTimeoutMs} ms); one render at a time; Chromium groups ${groups.join(', ')}\n`,
    );
    process.stdout.write('pages  runs  median ms  ms/page  min ms  max ms\n');
    for (const { pages, runs } of SIZES) {
      const render = serviceRender(baseUrl, key, reportDocument(pages));
      await render();
      const times: number[] = [];
      const before = groups.reduce((sum, pgid) => sum + processGroupRss(pgid), 0);
      let peak = 0;
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        if (pages === 100) peak = Math.max(peak, await peakRss(groups, render));
        else await render();
        times.push(performance.now() - t);
      }
      const m = median(times);
      process.stdout.write(
        `${String(pages).padStart(5)}  ${String(runs).padStart(4)}  ${fmt(m, 0, 9)}  ${fmt(m / pages, 1, 7)}  ${fmt(Math.min(...times), 0, 6)}  ${fmt(Math.max(...times), 0, 6)}\n`,
      );
      if (pages === 100) {
        const mib = (bytes: number) => `${fmt(bytes / MIB, 0, 0)} MiB`;
        process.stdout.write(
          `Chromium peak RSS during the 100-page render: ${mib(peak)} (VmRSS summed over its ${groups.flatMap((g) => processGroupMembers(g)).length} ` +
            `processes, sampled every ${SAMPLE_MS} ms), ${mib(peak - before)} above the ${mib(before)} before it; ` +
            `PSS after it: ${mib(groupPss(groups))} (summed RSS counts shared pages once per process)\n`,
        );
      }
    }
  } finally {
    await close();
  }
}
