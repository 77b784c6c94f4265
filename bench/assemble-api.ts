/**
 * What assembling costs on top of rendering, and what a large assembly holds in memory.
 *
 * 1. 20 one-page invoices (the corpus's invoice, 8 rows) assembled into one PDF (runAssembly: the parts
 *    rendered 2 at a time through the pool, then merged) against the same 20 rendered one by one at the same
 *    concurrency (2 at a time, the PDFs kept): alternating pairs on one pool, so machine noise hits both arms
 *    alike. Goal (DESIGN.md "Assembling"): the median pair's ratio ≤ 1.15.
 * 2. A 1,000-part assembly (996 one-page PDFs and 4 invoices, as the job test sends) run the way a job runs it
 *    (spilling parts to files, parts made 2 at a time): the process's peak RSS and heap above where they
 *    started, sampled every 20 ms, beside the bytes of its parts and of its PDF.
 */
import os from 'node:os';
import { PDF_STEPS, runAssembly } from '../src/assemble/index.js';
import { loadConfig } from '../src/config.js';
import { createPinnedAgent } from '../src/net/pinned-agent.js';
import { createEgressPolicy } from '../src/net/policy.js';
import { BrowserPool } from '../src/render/pool/browser-pool.js';
import { toPrintParams } from '../src/render/request/options.js';
import { tinyPdf } from '../test/assemble/helpers.js';
import { invoiceDocument } from '../test/fixtures/corpus/documents.js';
import { fmt, heading, median, quantile, verdict } from './stats.js';

const CONCURRENCY = 2;
const INVOICES = 20;
const PAIRS = Number(process.env.ASSEMBLE_BENCH_PAIRS ?? 8);
const MIB = 1024 * 1024;

/** Renders `htmls` `width` at a time, keeping every PDF, as a caller that assembles elsewhere would. */
async function renderEach(pool: BrowserPool, htmls: readonly string[], width: number): Promise<Buffer[]> {
  const params = toPrintParams({});
  const out: Buffer[] = new Array(htmls.length);
  let next = 0;
  const worker = async () => {
    while (next < htmls.length) {
      const i = next++;
      out[i] = (await pool.render('bench', htmls[i], params)).pdf;
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

/** Samples RSS and heap while `work` runs; returns the peaks above the start. */
async function peakMemory<T>(work: () => Promise<T>): Promise<{ result: T; rss: number; heap: number }> {
  global.gc?.();
  const start = process.memoryUsage();
  let rss = 0;
  let heap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss - start.rss);
    heap = Math.max(heap, m.heapUsed + m.external + m.arrayBuffers - (start.heapUsed + start.external + start.arrayBuffers));
  };
  const timer = setInterval(sample, 20);
  try {
    const result = await work();
    sample();
    return { result, rss, heap };
  } finally {
    clearInterval(timer);
  }
}

/** `npm run bench -- assemble`: the API side's figures. */
export async function runAssembleApiBench(): Promise<void> {
  const config = loadConfig({
    LOG_LEVEL: 'warn',
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
  });
  const policy = createEgressPolicy({ allow: [] });
  const agent = createPinnedAgent();
  const pool = await BrowserPool.start({
    policy,
    concurrency: CONCURRENCY,
    queueLimit: 1000,
    timeoutMs: config.renderTimeoutMs,
    executablePath: config.chromiumPath,
  });
  const deps = { pool, policy, agent, fetchTimeoutMs: config.renderTimeoutMs, steps: PDF_STEPS };
  try {
    heading(`assemble: ${INVOICES} one-page invoices, assembled vs rendered one by one (${CONCURRENCY} at a time)`);
    const htmls = Array.from({ length: INVOICES }, (_, i) => invoiceDocument(8).replace('<title>', `<title>Invoice ${i} `));
    const request = { parts: htmls.map((html) => ({ html })) };
    const assemble = () => runAssembly(request, deps, { accountId: 'bench', width: CONCURRENCY });
    // Warm both paths once.
    await renderEach(pool, htmls, CONCURRENCY);
    const warm = await assemble();
    const single: number[] = [];
    const assembled: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      // Alternate which arm goes first, so a drift in the machine's load favours neither.
      const order = i % 2 === 0 ? (['single', 'assembled'] as const) : (['assembled', 'single'] as const);
      const took: Record<string, number> = {};
      for (const arm of order) {
        const started = performance.now();
        if (arm === 'single') await renderEach(pool, htmls, CONCURRENCY);
        else await assemble();
        took[arm] = performance.now() - started;
      }
      single.push(took.single);
      assembled.push(took.assembled);
      ratios.push(took.assembled / took.single);
    }
    process.stdout.write(
      `rendered one by one  p50 ${fmt(median(single), 0, 7)} ms\n` +
        `assembled            p50 ${fmt(median(assembled), 0, 7)} ms  (${warm.pages} pages)\n` +
        `ratio per pair       p50 ${fmt(median(ratios), 3, 0)}  (quartiles ${fmt(quantile(ratios, 0.25), 3, 0)}–${fmt(quantile(ratios, 0.75), 3, 0)}, ${PAIRS} alternating pairs; ${os.loadavg()[0].toFixed(1)} load)\n` +
        `goal: assembled ≤ 1.15× rendered one by one: ${verdict(median(ratios) <= 1.15)}\n`,
    );

    heading('assemble: memory of a 1,000-part assembly, run as a job runs it');
    const parts = Array.from({ length: 1000 }, (_, i) =>
      i % 333 === 0 ? { html: invoiceDocument(8) } : { pdf: tinyPdf(`Payslip ${i}`).toString('base64') },
    );
    const partBytes = parts.reduce((n, p) => n + (((p as { pdf?: string }).pdf?.length ?? 0) * 3) / 4, 0);
    const started = performance.now();
    const { result, rss, heap } = await peakMemory(() =>
      runAssembly({ parts }, deps, { accountId: 'bench', width: CONCURRENCY, priority: 'background' }),
    );
    process.stdout.write(
      `1,000 parts (${fmt(partBytes / MIB, 1, 0)} MiB of part PDFs, the request ${fmt(JSON.stringify(parts).length / MIB, 1, 0)} MiB) → ` +
        `${result.pages} pages, ${fmt(result.pdf.length / MIB, 1, 0)} MiB, in ${fmt((performance.now() - started) / 1000, 1, 0)} s\n` +
        `peak above the start: RSS ${fmt(rss / MIB, 1, 0)} MiB, heap + buffers ${fmt(heap / MIB, 1, 0)} MiB\n`,
    );
  } finally {
    await pool.close();
    await agent.close();
  }
}
