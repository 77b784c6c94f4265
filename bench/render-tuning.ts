/**
 * The render pool's tuning, read again on the headless shell (`npm run bench -- render-tuning`): the
 * settings were first chosen on full Chromium. On the browser the service picks (the shell where installed),
 * with the 40-row invoice, in alternating chunks (ratios per round, median):
 * 1. render slots per instance (RENDER_CONCURRENCY, default the CPU count), each pool driven by as many
 *    callers as it has slots: throughput and p50 latency; then, at 2 slots, a render waiting for a slot
 *    being reset against one taking the spare slot at once;
 * 2. the feature switches chromium.ts turns off, each turned back on in a pool of 2 slots, against the
 *    switches as shipped;
 * 3. what recycling guards against: the Chromium tree's proportional memory after 0 to 1,500 renders with
 *    recycling off, and what one relaunch costs (RENDER_RECYCLE_AFTER relaunches every 500 renders).
 */
import { createEgressPolicy } from '../src/net/policy.js';
import { findChromium, processGroupMembers } from '../src/render/browser/chromium.js';
import { BrowserPool, type BrowserPoolOptions } from '../src/render/pool/browser-pool.js';
import { toPrintParams } from '../src/render/request/options.js';
import { invoiceDocument } from '../test/fixtures/corpus/documents.js';
import { drive, emptyResult, rate } from './render-loops.js';
import { groupPss } from './render-pages.js';
import { fmt, heading, median } from './stats.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CHUNK_MAX_MS = 10_000;
/** Memory is read after each of these render counts (recycling off). */
const MEMORY_MARKS = [0, 250, 500, 1000, 1500];

function startPool(
  concurrency: number,
  executablePath: string,
  recycle = true,
  extraArgs: string[] = [],
  more: Partial<BrowserPoolOptions> = {},
): Promise<BrowserPool> {
  return BrowserPool.start({
    ...more,
    extraArgs,
    policy: createEgressPolicy({ allow: [] }),
    concurrency,
    queueLimit: 0,
    timeoutMs: 60_000,
    executablePath,
    ...(recycle ? {} : { maxRendersPerBrowser: 0, maxRendersPerSlot: 1_000_000, memoryLimitBytes: 0 }),
  });
}

/** Runs the loops in `loops` round by round (order rotated) and returns each one's rates and latencies. */
async function alternate(
  loops: Array<{ name: string; callers: number; perChunk: number; one: (w: number) => Promise<void> }>,
): Promise<Map<string, { rates: number[]; latencies: number[] }>> {
  const out = new Map(loops.map((l) => [l.name, { rates: [] as number[], latencies: [] as number[] }]));
  for (const l of loops) await drive(emptyResult('warm-up', l.callers), 2 * l.callers, CHUNK_MAX_MS, l.one);
  for (let i = 0; i < ROUNDS; i++) {
    for (let k = 0; k < loops.length; k++) {
      const l = loops[(i + k) % loops.length];
      const r = emptyResult(l.name, l.callers);
      await drive(r, l.perChunk, CHUNK_MAX_MS, l.one);
      out.get(l.name)?.rates.push(rate(r));
      out.get(l.name)?.latencies.push(...r.latencies);
    }
  }
  return out;
}

/** The per-round ratio of `name`'s rate to `base`'s, median. */
function ratioTo(results: Map<string, { rates: number[] }>, name: string, base: string): number {
  const a = results.get(name)?.rates ?? [];
  const b = results.get(base)?.rates ?? [];
  return median(a.map((x, i) => x / b[i]));
}

/** Runs the tuning bench and prints its tables. */
export async function runRenderTuningBench(): Promise<void> {
  const executablePath = findChromium({ configured: process.env.CHROMIUM_PATH });
  heading(`render tuning on ${executablePath} (invoice-40-rows; ${ROUNDS} rounds, order rotated)`);
  const html = invoiceDocument(40);
  const params = toPrintParams({});

  // 1. Slots per instance.
  const sizes = [1, 2, 3, 4];
  const pools = await Promise.all(sizes.map((n) => startPool(n, executablePath)));
  try {
    const results = await alternate(
      sizes.map((n, i) => ({
        name: `${n} slot${n === 1 ? '' : 's'}`,
        callers: n,
        perChunk: 6 * n,
        one: async () => {
          await pools[i].render('bench', html, params);
        },
      })),
    );
    process.stdout.write('RENDER_CONCURRENCY  PDF/s (median)  ÷ 2 slots  p50 ms\n');
    for (const [name, r] of results) {
      process.stdout.write(
        `${name.padEnd(18)}  ${fmt(median(r.rates), 2, 14)}  ${fmt(ratioTo(results, name, '2 slots'), 2, 9)}×  ${fmt(median(r.latencies), 0, 6)}\n`,
      );
    }
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }

  // 1b. The spare slot: a render waits for a slot being reset (as shipped) or takes the spare one at once,
  // which spreads two renders at a time over three renderer processes.
  const spare = await Promise.all([startPool(2, executablePath), startPool(2, executablePath, true, [], { resetWaitMs: 0 })]);
  const spareNames = ['waits for a reset (as shipped)', 'takes the spare at once'];
  try {
    const results = await alternate(
      spareNames.map((name, i) => ({
        name,
        callers: 2,
        perChunk: 40,
        one: async () => {
          await spare[i].render('bench', html, params);
        },
      })),
    );
    process.stdout.write('\nspare slot (pool of 2 slots, c=2)    PDF/s (median)  ÷ as shipped  p50 ms\n');
    for (const name of spareNames) {
      const r = results.get(name);
      process.stdout.write(
        `${name.padEnd(36)}  ${fmt(median(r?.rates ?? []), 2, 14)}  ${fmt(ratioTo(results, name, spareNames[0]), 2, 11)}×  ${fmt(median(r?.latencies ?? []), 0, 6)}\n`,
      );
    }
  } finally {
    await Promise.all(spare.map((p) => p.close()));
  }

  // 2. The switches: each feature chromium.ts disables, enabled again, in a pool as the service runs it
  // (a context per slot, each reset between renders).
  const variants = [
    { name: 'as shipped', args: [] as string[] },
    ...['RenderDocument', 'SpareRendererForSitePerProcess'].map((f) => ({ name: `${f} on`, args: [`--enable-features=${f}`] })),
  ];
  const switched = await Promise.all(variants.map((v) => startPool(2, executablePath, true, v.args)));
  try {
    const results = await alternate(
      variants.map((v, i) => ({
        name: v.name,
        callers: 2,
        perChunk: 12,
        one: async () => {
          await switched[i].render('bench', html, params);
        },
      })),
    );
    process.stdout.write('\nswitch (pool of 2 slots, c=2)        PDF/s (median)  ÷ as shipped  processes\n');
    variants.forEach((v, i) => {
      const r = results.get(v.name);
      process.stdout.write(
        `${v.name.padEnd(36)}  ${fmt(median(r?.rates ?? []), 2, 14)}  ${fmt(ratioTo(results, v.name, 'as shipped'), 2, 11)}×  ${String(processGroupMembers(switched[i].browserPid ?? 0).length).padStart(9)}\n`,
      );
    });
  } finally {
    await Promise.all(switched.map((p) => p.close()));
  }

  // 3. Memory without recycling, and the price of a relaunch.
  const pool = await startPool(2, executablePath, false);
  try {
    process.stdout.write('\nrenders (recycling off)  Chromium tree PSS MiB\n');
    let done = 0;
    for (const mark of MEMORY_MARKS) {
      for (; done < mark; done += 2) {
        await Promise.all([pool.render('bench', html, params), pool.render('bench', html, params)]);
      }
      process.stdout.write(`${String(mark).padStart(23)}  ${fmt(groupPss([pool.browserPid ?? 0]) / 2 ** 20, 0, 21)}\n`);
    }
  } finally {
    await pool.close();
  }
  // A recycle launches the next Chromium and warms its slots (concurrency + 1 contexts) before the old one goes.
  const launches: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    const next = await startPool(2, executablePath);
    launches.push(performance.now() - t);
    await next.close();
  }
  process.stdout.write(
    `one relaunch with 3 warm slots: ${fmt(median(launches), 0, 0)} ms (median of 5); every 500 renders that is ${fmt(median(launches) / 500, 2, 0)} ms per render\n`,
  );
}
