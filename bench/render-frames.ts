/**
 * Where the headless shell's CPU goes in a render (`npm run bench -- render-frames`): a Chromium trace of
 * the 40-row invoice rendered one at a time, by a bare puppeteer loop (goto about:blank, setContent, pdf;
 * the compositor draws the screen as it loads) and by the service's render code in a render slot as the
 * pool drives it (render, then reset to about:blank; it sends a document without script no frames:
 * src/render/browser/frames.ts). Prints each thread's CPU per render (the trace's thread
 * time of its top-level tasks), and the screen paints a render. Thread time is read off the trace, so it
 * counts what each thread ran, whatever else the machine did. Then what each browser spends at rest.
 */
import type { CDPSession, Page } from 'puppeteer-core';
import { createEgressPolicy } from '../src/net/policy.js';
import { type LaunchedChromium, launchChromium, processGroupMembers, shutdownChromium } from '../src/render/browser/chromium.js';
import { closeSlot, createSlot, resetSlot } from '../src/render/browser/slot.js';
import { renderInSlot } from '../src/render/document/renderer.js';
import { ReportCollector } from '../src/render/report/report-collector.js';
import { toPrintParams } from '../src/render/request/options.js';
import { invoiceDocument } from '../test/fixtures/corpus/documents.js';
import { processesCpuMs } from './jobs-cpu.js';
import { fmt, heading } from './stats.js';

const SHELL = '/usr/lib/chromium/chromium-headless-shell';
const RENDERS = Number(process.env.BENCH_RENDERS ?? 60);
const A4 = {
  width: `${210 / 25.4}in`,
  height: `${297 / 25.4}in`,
  margin: { top: '0in', right: '0in', bottom: '0in', left: '0in' },
};

/** A trace event as Chromium reports it (the fields read here). */
interface TraceEvent {
  ph: string;
  name: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/** Traces `run` on the browser that `client` belongs to; returns the events. */
async function traced(client: CDPSession, run: () => Promise<void>): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  const collect = ({ value }: { value: object[] }) => events.push(...(value as TraceEvent[]));
  client.on('Tracing.dataCollected', collect);
  const complete = new Promise((resolve) => client.once('Tracing.tracingComplete', resolve));
  await client.send('Tracing.start', {
    traceConfig: { includedCategories: ['toplevel', 'devtools.timeline', 'disabled-by-default-devtools.timeline'] },
    transferMode: 'ReportEvents',
  });
  await run();
  await client.send('Tracing.end');
  await complete;
  client.off('Tracing.dataCollected', collect);
  return events;
}

/** CPU per render by thread name (outermost events' thread time only, so nothing counts twice), and paints a render. */
function perRender(events: TraceEvent[]): { threads: Map<string, number>; paints: number } {
  const names = new Map<string, string>();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args?.name ?? '?');
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    if (e.ph !== 'X' || e.tdur === undefined) continue;
    const key = `${e.pid}:${e.tid}`;
    const list = byThread.get(key) ?? [];
    list.push(e);
    byThread.set(key, list);
  }
  const threads = new Map<string, number>();
  for (const [key, list] of byThread) {
    list.sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
    let openUntil = Number.NEGATIVE_INFINITY;
    let us = 0;
    for (const e of list) {
      if (e.ts < openUntil) continue;
      us += e.tdur ?? 0;
      openUntil = e.ts + (e.dur ?? 0);
    }
    const name = names.get(key) ?? '?';
    threads.set(name, (threads.get(name) ?? 0) + us / 1000 / RENDERS);
  }
  return { threads, paints: events.filter((e) => e.ph === 'X' && e.name === 'Paint').length / RENDERS };
}

/** How long each browser is watched at rest. */
const IDLE_MS = 5000;

/** The CPU a browser's process group spends a second over `ms` with nothing asked of it. */
async function idleCpuMsPerSecond(pgid: number, ms: number): Promise<number> {
  const spent = () => processesCpuMs(processGroupMembers(pgid));
  const before = spent();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return ((spent() - before) / ms) * 1000;
}

/** Runs the frames bench and prints CPU per render by thread for both loops. */
export async function runRenderFramesBench(): Promise<void> {
  heading(`render: where the shell's CPU goes (invoice-40-rows, one at a time, ${RENDERS} traced renders each)`);
  const html = invoiceDocument(40);
  const bare: LaunchedChromium = await launchChromium(SHELL);
  const served: LaunchedChromium = await launchChromium(SHELL);
  const slot = await createSlot(served, { policy: createEgressPolicy({ allow: [] }), maxRequests: 100, maxBytes: 50 << 20 });
  try {
    const page: Page = await bare.browser.newPage();
    const bareOne = async () => {
      await page.goto('about:blank');
      await page.setContent(html);
      await page.pdf(A4);
    };
    const params = toPrintParams({});
    const serviceOne = async () => {
      const report = new ReportCollector(slot.session);
      await renderInSlot(slot, html, params, { deadline: Date.now() + 60_000, timeoutMs: 60_000, report });
      if (!(await resetSlot(slot, 10_000))) throw new Error('the slot did not come back clean');
    };
    const loops = [
      ['bare loop', bare.client, bareOne],
      ['service', served.client, serviceOne],
    ] as const;
    const results: Array<{ label: string; threads: Map<string, number>; paints: number }> = [];
    for (const [label, client, one] of loops) {
      for (let i = 0; i < 10; i++) await one();
      results.push({
        label,
        ...perRender(
          await traced(client, async () => {
            for (let i = 0; i < RENDERS; i++) await one();
          }),
        ),
      });
    }
    const threads = [...new Set(results.flatMap((r) => [...r.threads.keys()]))]
      .filter((t) => results.some((r) => (r.threads.get(t) ?? 0) >= 0.1))
      .sort((a, b) => (results[0].threads.get(b) ?? 0) - (results[0].threads.get(a) ?? 0));
    process.stdout.write(`${'thread (ms a render)'.padEnd(34)}${results.map((r) => r.label.padStart(14)).join('')}\n`);
    for (const t of threads) {
      process.stdout.write(`${t.padEnd(34)}${results.map((r) => fmt(r.threads.get(t) ?? 0, 2, 14)).join('')}\n`);
    }
    const total = (r: (typeof results)[number]) => [...r.threads.values()].reduce((a, b) => a + b, 0);
    process.stdout.write(`${'all threads'.padEnd(34)}${results.map((r) => fmt(total(r), 2, 14)).join('')}\n`);
    process.stdout.write(`${'paints a render'.padEnd(34)}${results.map((r) => fmt(r.paints, 2, 14)).join('')}\n`);
    // At rest: what each browser spends with no render under way (the bare loop's pages, not under frame
    // control, are drawn at 60 frames a second; a shell tab left open is too: chromium.ts closes its own).
    const idle = await Promise.all([bare.pid, served.pid].map((pid) => idleCpuMsPerSecond(pid, IDLE_MS)));
    process.stdout.write(`${'idle, ms of CPU a second'.padEnd(34)}${idle.map((ms) => fmt(ms, 1, 14)).join('')}\n`);
  } finally {
    await closeSlot(slot);
    await Promise.all([shutdownChromium(served), shutdownChromium(bare)]);
  }
}
