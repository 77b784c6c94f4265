/**
 * What the wall around untrusted bytes costs: the same merges in process (assemblePdfs) and through the
 * PDF engine (a worker process; large bytes cross through a private file each way), and, as the baseline of
 * that crossing, through an engine that sends every byte in its IPC messages; in rounds whose order turns,
 * so that load hits all alike. Twenty one-page invoices printed by Chromium, and a 150-page report with an
 * invoice. The hop is the median of each round's difference (engine − in process), split into the crossing
 * (the engine's wait less the operation's own time in the worker) and the rest (the same work, slower or
 * faster in the worker's process); a round trip with next to no bytes gives the crossing's fixed part.
 * Each case's hop is given as a share of its whole assembly: printing its parts (one at a time, medians of
 * `PDF_ENGINE_BENCH_PRINTS` (3) rounds) plus the merge. Goal: the hop < 5% of an assembly.
 * `PDF_ENGINE_BENCH_ROUNDS` (30) rounds of merges, `PDF_ENGINE_BENCH_PAGES` (150) report pages.
 */
import { loadConfig } from '../src/config.js';
import { createEgressPolicy } from '../src/net/policy.js';
import { type AssemblePart, assemblePdfs } from '../src/pdf/assemble/assemble-pdfs.js';
import { PdfEngine } from '../src/pdf/engine.js';
import { BrowserPool } from '../src/render/pool/browser-pool.js';
import { toPrintParams } from '../src/render/request/options.js';
import { invoiceDocument, longReportDocument } from '../test/fixtures/pdf/profile-documents.js';
import { fmt, heading, median, verdict } from './stats.js';

const ROUNDS = Number(process.env.PDF_ENGINE_BENCH_ROUNDS ?? 30);
const PRINTS = Number(process.env.PDF_ENGINE_BENCH_PRINTS ?? 3);
const PAGES = Number(process.env.PDF_ENGINE_BENCH_PAGES ?? 150);
const INVOICES = 20;

interface Printed {
  invoices: Buffer[];
  report: Buffer;
  /** Median wall time of printing the 20 invoices one at a time, and of printing the report and one invoice. */
  invoicesMs: number;
  reportMs: number;
}

/** Prints the parts `PRINTS` times, alternating the two cases, and keeps the last round's PDFs. */
async function printParts(): Promise<Printed> {
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
    const print = async (html: string) => (await pool.render('bench', html, params)).pdf;
    await print(invoiceDocument('PDF/A-3b'));
    const times = { invoices: [] as number[], report: [] as number[] };
    let invoices: Buffer[] = [];
    let report: Buffer = Buffer.alloc(0);
    for (let round = 0; round < PRINTS; round++) {
      const order = round % 2 === 0 ? ['invoices', 'report'] : ['report', 'invoices'];
      for (const which of order) {
        const started = performance.now();
        if (which === 'invoices') {
          invoices = [];
          for (let i = 0; i < INVOICES; i++) invoices.push(await print(invoiceDocument('PDF/A-3b')));
        } else {
          report = await print(longReportDocument(PAGES, 'PDF/A-3b, PDF/UA-1'));
          await print(invoiceDocument('PDF/A-3b'));
        }
        times[which as 'invoices' | 'report'].push(performance.now() - started);
      }
    }
    return { invoices, report, invoicesMs: median(times.invoices), reportMs: median(times.report) };
  } finally {
    await pool.close();
  }
}

interface Way {
  /** Wall times of the merge, and (through an engine) the operation's own time in the worker. */
  wall: number[];
  work: number[];
}

/**
 * One case's rounds: the merge in process, through `engine`, and through `viaIpc` (the same engine with every
 * byte inline in the IPC messages, the crossing before files), in an order that turns each round.
 */
async function measure(
  engine: PdfEngine,
  viaIpc: PdfEngine,
  parts: AssemblePart[],
): Promise<Record<'in' | 'files' | 'ipc', Way>> {
  const ways = { in: { wall: [], work: [] }, files: { wall: [], work: [] }, ipc: { wall: [], work: [] } } as Record<
    'in' | 'files' | 'ipc',
    Way
  >;
  const orders: Array<Array<'in' | 'files' | 'ipc'>> = [
    ['in', 'files', 'ipc'],
    ['files', 'ipc', 'in'],
    ['ipc', 'in', 'files'],
  ];
  // Round 0 warms every path and is not counted.
  for (let round = 0; round <= ROUNDS; round++) {
    for (const which of orders[round % orders.length] as Array<'in' | 'files' | 'ipc'>) {
      let work = 0;
      const started = performance.now();
      if (which === 'in') await assemblePdfs(parts);
      else
        await (which === 'files' ? engine : viaIpc).run('assemble', { parts }, { label: 'parts', worked: (ms) => (work = ms) });
      const ms = performance.now() - started;
      if (round === 0) continue;
      ways[which].wall.push(ms);
      ways[which].work.push(work);
    }
  }
  return ways;
}

/** Runs the bench and prints its figures and goal. */
export async function runPdfEngineBench(): Promise<void> {
  heading(`pdf-engine: merging in process vs through the PDF engine (${ROUNDS} rounds, medians)`);
  const printed = await printParts();
  const engine = new PdfEngine({ workers: 1, timeoutMs: 60_000, maxMemoryMb: 2048 });
  const viaIpc = new PdfEngine({ workers: 1, timeoutMs: 60_000, maxMemoryMb: 2048, inlineMaxBytes: Number.MAX_SAFE_INTEGER });
  engine.warm();
  viaIpc.warm();
  const cases = [
    {
      name: `${INVOICES} one-page invoices`,
      printing: `printing the ${INVOICES} invoices one at a time`,
      printMs: printed.invoicesMs,
      parts: printed.invoices.map((pdf, i) => ({ pdf, label: `parts[${i}]` })),
    },
    {
      name: `${PAGES}-page report + invoice`,
      printing: `printing the ${PAGES}-page report and the invoice`,
      printMs: printed.reportMs,
      parts: [
        { pdf: printed.report, label: 'parts[0]' },
        { pdf: printed.invoices[0] as Buffer, label: 'parts[1]' },
      ],
    },
  ];
  try {
    for (const { name, printing, printMs, parts } of cases) {
      const ways = await measure(engine, viaIpc, parts);
      const bytes = parts.reduce((n, p) => n + p.pdf.length, 0);
      const a = median(ways.in.wall);
      // Each round's difference, so that a load that changes between rounds weighs on both sides alike.
      const hopOf = (way: Way) => median(way.wall.map((ms, i) => ms - (ways.in.wall[i] as number)));
      const crossingOf = (way: Way) => median(way.wall.map((ms, i) => ms - (way.work[i] as number)));
      const hop = hopOf(ways.files);
      const share = (hop / (printMs + a)) * 100;
      console.log(
        `${name.padEnd(28)} ${(bytes / 1024).toFixed(0).padStart(6)} KiB in: in process ${fmt(a)} ms · engine ${fmt(median(ways.files.wall))} ms · hop ${fmt(hop)} ms (${fmt((hop / a) * 100, 1, 5)}% of the merge)`,
      );
      console.log(
        `  where it goes: crossing (the wait less the merge in the worker) ${fmt(crossingOf(ways.files), 2, 6)} ms · the merge itself in the worker ${fmt(median(ways.files.work), 2, 6)} ms vs ${fmt(a, 2, 6)} ms in process`,
      );
      console.log(
        `  bytes through the IPC channel instead of files: engine ${fmt(median(ways.ipc.wall))} ms · hop ${fmt(hopOf(ways.ipc))} ms · crossing ${fmt(crossingOf(ways.ipc), 2, 6)} ms`,
      );
      console.log(
        `  its assembly: ${printing} ${fmt(printMs, 0, 5)} ms + the merge: the hop is ${fmt(share, 2, 5)}% of it  goal hop < 5% of an assembly: ${verdict(share < 5)}`,
      );
    }
    // The fixed part of every hop: a message each way and the wake-ups, with next to no bytes or work.
    const tiny = Buffer.from('%PDF-1.7 << /Type /Pages /Count 3 >>');
    const trips: number[] = [];
    for (let i = 0; i <= ROUNDS; i++) {
      const started = performance.now();
      await engine.run('count-pages', { pdf: tiny }, { label: 'parts[0]' });
      if (i > 0) trips.push(performance.now() - started);
    }
    console.log(
      `a round trip with next to no bytes or work (a page count of ${tiny.length} bytes): ${fmt(median(trips), 2, 6)} ms`,
    );
    // What a fresh worker costs: paid at start-up (the service warms its workers) and when one is replaced.
    const starts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const fresh = new PdfEngine({ workers: 1, timeoutMs: 60_000, maxMemoryMb: 2048 });
      await fresh.run('count-pages', { pdf: printed.invoices[0] as Buffer }, { label: 'parts[0]' });
      starts.push(performance.now() - started);
      await fresh.close();
    }
    console.log(
      `a fresh worker (its process started, then one page count): ${fmt(median(starts), 0, 5)} ms; paid when the service starts (it warms its workers) or replaces a worker it killed, not by the merges above`,
    );
  } finally {
    await Promise.all([engine.close(), viaIpc.close()]);
  }
}
