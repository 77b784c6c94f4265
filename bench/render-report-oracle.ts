/**
 * `npm run bench -- render-report-oracle`: the render report's precision and recall on the saved real
 * pages (PAGEWORKS_CORPUS_DIR's metadata pages and render documents), held against a bare page of the same
 * browser that records every request the document made (test/render/report-oracle.ts; the matching is
 * written down in report-oracle-compare.ts). The service renders through its own pool with a resolver
 * that knows no name, as the tests do: every remote host is `unresolvable`, nothing leaves the machine.
 * Goals: precision ≥ 0.99 and recall ≥ 0.99. BENCH_ORACLE_ONLY (comma-separated names) picks pages.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createEgressPolicy } from '../src/net/policy.js';
import { BrowserPool } from '../src/render/pool/browser-pool.js';
import { toPrintParams } from '../src/render/request/options.js';
import type { ReportEntry } from '../src/report/report.js';
import { extraCorpusDir, loadPages } from '../test/fixtures/corpus/index.js';
import { noDns } from '../test/helpers/render.js';
import { ReportOracle } from '../test/render/report-oracle.js';
import { compareReport, mismatchLines, type PageAgreement, printTimeLines } from '../test/render/report-oracle-compare.js';
import { heading, verdict } from './stats.js';

/**
 * Pages that never finish printing on Chromium 156 (`<li><span><div></div></span></li>`: the print hangs in
 * the browser, with or without the service), left out of both sides.
 */
const NEVER_PRINT = new Set(['astier', 'reuters', 'silicon-angle', 'wired']);
const ONLY = process.env.BENCH_ORACLE_ONLY?.split(',').map((name) => name.trim());
const GOAL = 0.99;

/** The saved pages: the metadata corpus's pages, then the render corpus's documents. */
function savedPages(): Array<{ name: string; html: string }> {
  const metadata = extraCorpusDir('metadata');
  const render = extraCorpusDir('render');
  if (!metadata || !render) throw new Error('PAGEWORKS_CORPUS_DIR must name the saved corpus');
  return [
    ...loadPages(metadata).map((p) => ({ name: p.name, html: p.bytes.toString('utf8') })),
    ...fs
      .readdirSync(render)
      .filter((f) => f.endsWith('.html'))
      .sort()
      .map((f) => ({ name: `render/${f.slice(0, -5)}`, html: fs.readFileSync(path.join(render, f), 'utf8') })),
  ].filter((p) => !ONLY || ONLY.includes(p.name));
}

/** Runs the oracle bench. */
export async function runRenderReportOracleBench(): Promise<void> {
  heading('render report against the request oracle (saved pages)');
  const pages = savedPages();
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const pool = await BrowserPool.start({
    policy: createEgressPolicy({ allow: [], lookup: noDns }),
    concurrency: 1,
    queueLimit: 4,
    timeoutMs: 30_000,
  });
  const oracle = await ReportOracle.launch();
  const totals = { entries: 0, confirmed: 0, failed: 0, found: 0, covered: 0 };
  const lines: string[] = [];
  const printLines: string[] = [];
  const skipped: string[] = [];
  try {
    for (const page of pages) {
      if (NEVER_PRINT.has(page.name)) {
        skipped.push(`${page.name} (never prints on Chromium 156)`);
        continue;
      }
      let warnings: ReportEntry[];
      let agreement: PageAgreement;
      try {
        ({ warnings } = await pool.render('oracle', page.html, toPrintParams({})));
        agreement = compareReport(warnings, await oracle.load(page.html));
      } catch (err) {
        skipped.push(`${page.name} (${(err as Error).message})`);
        continue;
      }
      totals.entries += agreement.entries;
      totals.confirmed += agreement.confirmed;
      totals.failed += agreement.failed;
      totals.found += agreement.found;
      totals.covered += agreement.coveredByTruncation;
      lines.push(...mismatchLines(page.name, agreement));
      printLines.push(...printTimeLines(page.name, agreement));
      if (process.env.BENCH_ORACLE_VERBOSE) {
        process.stdout.write(
          `${page.name}: ${agreement.confirmed}/${agreement.entries} confirmed, ${agreement.found}+${agreement.coveredByTruncation}/${agreement.failed} found ${JSON.stringify(agreement.other)}\n`,
        );
      }
    }
  } finally {
    await Promise.all([pool.close(), oracle.close()]);
  }
  const precision = totals.entries === 0 ? 1 : totals.confirmed / totals.entries;
  const recall = totals.failed === 0 ? 1 : (totals.found + totals.covered) / totals.failed;
  const cpu = process.cpuUsage(cpuStarted);
  process.stdout.write(
    `${pages.length - skipped.length} pages judged, ${skipped.length} left out` +
      ` (${((performance.now() - started) / 1000).toFixed(0)} s wall, this process ${((cpu.user + cpu.system) / 1e6).toFixed(0)} s CPU)\n`,
  );
  for (const s of skipped) process.stdout.write(`  left out: ${s}\n`);
  process.stdout.write(
    `mismatches (- an entry the oracle does not confirm, + a failed request the report misses): ${lines.length}\n`,
  );
  for (const line of lines) process.stdout.write(`  ${line}\n`);
  process.stdout.write(`requests made while printing that the report does not name (not counted): ${printLines.length}\n`);
  for (const line of printLines) process.stdout.write(`  ${line}\n`);
  process.stdout.write(
    `precision ${precision.toFixed(4)} (${totals.confirmed}/${totals.entries} entries)   goal ≥ ${GOAL}: ${verdict(precision >= GOAL)}\n` +
      `recall    ${recall.toFixed(4)} (${totals.found} named + ${totals.covered} in truncated / ${totals.failed} failed URLs)   goal ≥ ${GOAL}: ${verdict(recall >= GOAL)}\n`,
  );
}
