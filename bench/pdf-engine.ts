/**
 * What the wall around untrusted bytes costs: the same merges in process (assemblePdfs) and through the
 * PDF engine (a worker process: the parts copied there, the PDF copied back), alternating in rounds so that
 * load hits both alike. Twenty one-page invoices printed by Chromium, and a 150-page report with an
 * invoice. Medians of wall time; the hop is the difference, also given as a share of the 20 invoices'
 * whole assembly (their printing, one at a time here, plus the merge). Goal: the hop < 5% of an assembly.
 * `PDF_ENGINE_BENCH_ROUNDS` (15) rounds, `PDF_ENGINE_BENCH_PAGES` (150) report pages.
 */
import { loadConfig } from '../src/config.js';
import { createEgressPolicy } from '../src/net/policy.js';
import { type AssemblePart, assemblePdfs } from '../src/pdf/assemble/assemble-pdfs.js';
import { PdfEngine } from '../src/pdf/engine.js';
import { BrowserPool } from '../src/render/pool/browser-pool.js';
import { toPrintParams } from '../src/render/request/options.js';
import { invoiceDocument, longReportDocument } from '../test/fixtures/pdf/profile-documents.js';
import { fmt, heading, median, verdict } from './stats.js';

const ROUNDS = Number(process.env.PDF_ENGINE_BENCH_ROUNDS ?? 15);
const PAGES = Number(process.env.PDF_ENGINE_BENCH_PAGES ?? 150);
const INVOICES = 20;

/** Prints the parts once: 20 invoices (timed, the printing share of their assembly) and the report. */
async function printParts(): Promise<{ invoices: Buffer[]; printMs: number; report: Buffer }> {
  const config = loadConfig({
    LOG_LEVEL: 'warn',
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
  });
  const pool = await BrowserPool.start({
    policy: createEgressPolicy({ allow: [] }),
    concurrency: 1,
    queueLimit: 100,
    timeoutMs: 300_000,
    executablePath: config.chromiumPath,
  });
  try {
    const params = toPrintParams({ printBackground: true });
    await pool.render('bench', invoiceDocument('PDF/A-3b'), params);
    const invoices: Buffer[] = [];
    const started = performance.now();
    for (let i = 0; i < INVOICES; i++) invoices.push((await pool.render('bench', invoiceDocument('PDF/A-3b'), params)).pdf);
    const printMs = performance.now() - started;
    const report = (await pool.render('bench', longReportDocument(PAGES, 'PDF/A-3b, PDF/UA-1'), params)).pdf;
    return { invoices, printMs, report };
  } finally {
    await pool.close();
  }
}

async function wall(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** Runs the bench and prints its figures and goal. */
export async function runPdfEngineBench(): Promise<void> {
  heading(`pdf-engine: merging in process vs through the PDF engine (${ROUNDS} rounds, medians)`);
  const { invoices, printMs, report } = await printParts();
  const engine = new PdfEngine({ workers: 1, timeoutMs: 60_000, maxMemoryMb: 2048 });
  engine.warm();
  const cases: Array<{ name: string; parts: AssemblePart[] }> = [
    { name: `${INVOICES} one-page invoices`, parts: invoices.map((pdf, i) => ({ pdf, label: `parts[${i}]` })) },
    {
      name: `${PAGES}-page report + invoice`,
      parts: [
        { pdf: report, label: 'parts[0]' },
        { pdf: invoices[0], label: 'parts[1]' },
      ],
    },
  ];
  try {
    for (const { name, parts } of cases) {
      const inProcess: number[] = [];
      const viaEngine: number[] = [];
      // Round 0 warms both paths and is not counted.
      for (let round = 0; round <= ROUNDS; round++) {
        const order = round % 2 === 0 ? ['in', 'engine'] : ['engine', 'in'];
        for (const which of order) {
          const ms =
            which === 'in'
              ? await wall(() => assemblePdfs(parts))
              : await wall(() => engine.run('assemble', { parts }, { label: 'parts' }));
          if (round > 0) (which === 'in' ? inProcess : viaEngine).push(ms);
        }
      }
      const bytes = parts.reduce((n, p) => n + p.pdf.length, 0);
      const [a, b] = [median(inProcess), median(viaEngine)];
      console.log(
        `${name.padEnd(28)} ${(bytes / 1024).toFixed(0).padStart(6)} KiB in: in process ${fmt(a)} ms · engine ${fmt(b)} ms · hop ${fmt(b - a)} ms (${fmt(((b - a) / a) * 100, 1, 5)}% of the merge)`,
      );
      if (parts.length === INVOICES) {
        const share = ((b - a) / (printMs + a)) * 100;
        console.log(
          `  the 20 invoices' assembly: printing ${fmt(printMs, 0)} ms (one at a time) + merge: the hop is ${fmt(share, 2, 5)}% of it  goal < 5%: ${verdict(share < 5)}`,
        );
      }
    }
  } finally {
    await engine.close();
  }
}
