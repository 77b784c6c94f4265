/**
 * What a declared standard costs: the profile bench's invoice (test/fixtures/pdf) declared PDF/A-2b
 * against the same invoice undeclared, through one browser pool, in back-to-back pairs of chunks whose
 * order alternates; the median of the pairs' ratios is the figure (goal: ≤ 1.10×), with the PDF/A step's own
 * CPU time beside it. Then the 150-page report declared PDF/A-2b and `PDF/A-2b, PDF/UA-1` against undeclared. With PDF_PROFILES_BASELINE=<dist of an
 * earlier build> the undeclared invoice is also run through that build's pool, for "no declaration costs
 * nothing" (goal: throughput ≥ 0.98× the earlier build).
 */
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { createEgressPolicy } from '../src/net/policy.js';
import { applyProfiles } from '../src/pdf/profiles/apply-profiles.js';
import { BrowserPool } from '../src/render/pool/browser-pool.js';
import { toPrintParams } from '../src/render/request/options.js';
import { invoiceDocument, longReportDocument } from '../test/fixtures/pdf/profile-documents.js';
import { drive, emptyResult, type LoopResult, rate } from './render-loops.js';
import { fmt, heading, median, verdict } from './stats.js';

const CONCURRENCY = 1;
const CHUNK_MAX_MS = 20_000;

/** The pool's face the bench uses, so an earlier build's pool fits too. */
interface Pool {
  render(accountId: string, html: string, params: unknown): Promise<unknown>;
  close(): Promise<void>;
}

async function startPool(PoolClass: { start(opts: unknown): Promise<Pool> }): Promise<Pool> {
  const config = loadConfig({
    LOG_LEVEL: 'warn',
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
  });
  return PoolClass.start({
    policy: createEgressPolicy({ allow: [] }),
    concurrency: CONCURRENCY,
    queueLimit: 100,
    timeoutMs: 120_000,
    executablePath: config.chromiumPath,
  });
}

/** Alternating pairs of chunks of `a` and `b`; returns the median of the pairs' rate(b)/rate(a), that is a's time over b's. */
async function pairs(
  a: { label: string; run: () => Promise<void> },
  b: { label: string; run: () => Promise<void> },
  opts: { chunks: number; perChunk: number },
): Promise<number> {
  const loops = new Map<string, LoopResult>([
    [a.label, emptyResult(a.label, CONCURRENCY)],
    [b.label, emptyResult(b.label, CONCURRENCY)],
  ]);
  await drive(emptyResult('warm-up', CONCURRENCY), 2, CHUNK_MAX_MS, a.run);
  await drive(emptyResult('warm-up', CONCURRENCY), 2, CHUNK_MAX_MS, b.run);
  const ratios: number[] = [];
  for (let i = 0; i < opts.chunks; i++) {
    const order = i % 2 === 0 ? [a, b] : [b, a];
    const chunk = new Map<string, number>();
    for (const side of order) {
      const part = emptyResult(side.label, CONCURRENCY);
      await drive(part, opts.perChunk, CHUNK_MAX_MS, side.run);
      const loop = loops.get(side.label) as LoopResult;
      loop.latencies.push(...part.latencies);
      loop.wallMs += part.wallMs;
      loop.renders = loop.latencies.length;
      chunk.set(side.label, rate(part));
    }
    ratios.push((chunk.get(b.label) ?? 0) / (chunk.get(a.label) ?? 1));
  }
  for (const loop of loops.values())
    process.stdout.write(
      `${loop.label.padEnd(36)} ${fmt(rate(loop), 2, 7)} PDF/s  p50 ${fmt(median(loop.latencies), 1, 8)} ms  (${loop.renders} renders)\n`,
    );
  return median(ratios);
}

/**
 * The CPU time (ms, median) the profile engine takes to make `pdf` a PDF/A-2b, as a render's last step
 * does: process CPU time, so a loaded machine's waits are not in it.
 */
async function profileStepCpuMs(pdf: Buffer, runs = 300): Promise<number> {
  const request = {
    profiles: ['PDF/A-2b' as const],
    files: [],
    extensions: [],
    title: 'Invoice 2026-0042',
    author: 'Northwind Traders',
    lang: 'en',
    creator: 'Pageworks',
    producer: 'Pageworks',
    date: new Date(),
  };
  const times: number[] = [];
  for (let i = 0; i < runs + 30; i++) {
    const before = process.cpuUsage();
    await applyProfiles(pdf, request);
    const used = process.cpuUsage(before);
    if (i >= 30) times.push((used.user + used.system) / 1000);
  }
  return median(times);
}

/** Runs the bench and prints its figures and goals. */
export async function runPdfProfilesBench(): Promise<void> {
  heading('pdf profiles: what a declared standard costs');
  const params = toPrintParams({ printBackground: true });
  const pool = await startPool(BrowserPool as unknown as { start(opts: unknown): Promise<Pool> });
  const renderer = (html: string) => async () => {
    await pool.render('bench', html, params);
  };
  try {
    const invoice = invoiceDocument();
    const invoiceA = invoiceDocument('PDF/A-2b');
    const ratio = await pairs(
      { label: 'invoice declared PDF/A-2b', run: renderer(invoiceA) },
      { label: 'invoice undeclared', run: renderer(invoice) },
      { chunks: 12, perChunk: 5 },
    );
    process.stdout.write(
      `goal: PDF/A-2b ≤ 1.10× the undeclared invoice (median of 12 alternating pairs): ${fmt(ratio, 3, 0)}× — ${verdict(ratio <= 1.1)}\n`,
    );
    const printed = (await pool.render('bench', invoice, params)) as { pdf: Buffer };
    process.stdout.write(
      `figure: the PDF/A-2b step on the printed invoice: ${fmt(await profileStepCpuMs(printed.pdf), 3, 0)} ms of CPU (median of 300 runs; what the machine's load does not change)\n`,
    );
    const report = longReportDocument(150);
    for (const declared of ['PDF/A-2b', 'PDF/A-2b, PDF/UA-1']) {
      const r = await pairs(
        { label: `150-page report ${declared}`, run: renderer(longReportDocument(150, declared)) },
        { label: '150-page report undeclared', run: renderer(report) },
        { chunks: 4, perChunk: 1 },
      );
      process.stdout.write(
        `figure: 150-page report declared ${declared}: ${fmt(r, 3, 0)}× the undeclared render (median of 4 pairs)\n`,
      );
    }
    const baselineDist = process.env.PDF_PROFILES_BASELINE;
    if (baselineDist) {
      const earlier = await import(path.resolve(baselineDist, 'render/browser-pool.js'));
      // Both builds on a fresh pool: this build's first pool has printed 150-page reports, the earlier one nothing.
      const old = await startPool(earlier.BrowserPool);
      const fresh = await startPool(BrowserPool as unknown as { start(opts: unknown): Promise<Pool> });
      try {
        const t = await pairs(
          { label: 'invoice undeclared (earlier build)', run: async () => void (await old.render('bench', invoice, params)) },
          { label: 'invoice undeclared (this build)', run: async () => void (await fresh.render('bench', invoice, params)) },
          { chunks: 12, perChunk: 5 },
        );
        // pairs() gives a/b in time, that is this build's throughput over the earlier build's.
        process.stdout.write(
          `goal: undeclared invoice throughput ≥ 0.98× the earlier build (${baselineDist}): ${fmt(t, 3, 0)}× — ${verdict(t >= 0.98)}\n`,
        );
      } finally {
        await old.close();
        await fresh.close();
      }
    } else process.stdout.write('PDF_PROFILES_BASELINE is not set: the comparison with an earlier build is skipped\n');
  } finally {
    await pool.close();
  }
}
