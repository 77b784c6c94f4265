/**
 * Soak bench (`npm run bench -- soak`, opt-in): one instance (render + metadata, embedded store) started as
 * `npm start` starts it, under a mixed load for SOAK_S seconds (default 600): renders of the render corpus and
 * of heavier documents at c=2, metadata fetches of the metadata corpus (test/fixtures, plus the saved real
 * pages when PAGEWORKS_CORPUS_DIR is set) from a loopback origin at c=16 (every
 * other request with a cache-busting query, so the cache both hits and fills). Every 10 s it samples
 * throughput, p50/p99, Node RSS and heap, Chromium RSS/PSS, processes and the service's open fds; at the end
 * it prints the slopes after warm-up (MB per 1,000 requests) and compares the last minute with the first
 * warm one. Loopback only; stops by itself. RENDER_RECYCLE_AFTER / RENDER_MAX_BROWSER_RSS_MB pass through.
 * SOAK_MODE=mixed runs the two-account soak of render jobs and sync renders instead (bench/soak-mixed.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { Pool } from 'undici';
import { metadataPages } from '../test/fixtures/corpus/index.js';
import { child } from './metadata.js';
import { soakDocuments, startFontServer } from './soak-docs.js';
import { JOB_WAIT_S, type JobLoad, startJobLoad } from './soak-jobs.js';
import { descendants, type MetricsSample, type ProcessSample, sampleMetrics, sampleProcesses, slope } from './soak-probe.js';
import { fmt, heading, quantile, verdict } from './stats.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SAMPLE_S = 10;
const RENDER_C = 2;
const METADATA_C = 16;
/** Render jobs with webhooks in flight at once (one per caller; each waits for its webhook); SOAK_JOBS_C sets it. */
const JOBS_C = Math.max(1, Number(process.env.SOAK_JOBS_C ?? 2));
/** Which loads run (SOAK_MIX, comma-separated; default all): `jobs` alone gives a clean slope per 1,000 jobs. */
const MIX = new Set((process.env.SOAK_MIX ?? 'renders,metadata,jobs').split(','));
const callers = (load: string, c: number) => (MIX.has(load) ? c : 0);

interface Outcome {
  kind: 'render' | 'metadata';
  ms: number;
  ok: boolean;
}

interface Row extends ProcessSample, MetricsSample {
  t: number;
  /** Seconds this sample covers: SAMPLE_S, less for the one the run's end cuts short. */
  spanS: number;
  renders: number;
  fetches: number;
  errors: number;
  renderMs: number[];
  fetchMs: number[];
  totalRenders: number;
  totalRequests: number;
  /** Jobs that succeeded (verified webhook) in this sample, and since the start. */
  jobs: number;
  totalJobs: number;
}

interface Service {
  proc: ChildProcess;
  renderBase: string;
  metadataBase: string;
  renderKey: string;
  metadataKey: string;
}

/** Starts `node dist/cli.js serve` (what `npm start` runs after setup) on a fresh store; reads its ports and first-start keys. */
async function startService(dataDir: string, concurrency = RENDER_C): Promise<Service> {
  const proc = spawn(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'serve'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      PAGEWORKS_DATA_DIR: dataDir,
      PAGEWORKS_SERVICES: 'render,metadata',
      RENDER_PORT: '0',
      METADATA_PORT: '0',
      RENDER_CONCURRENCY: String(concurrency),
      RENDER_RATE_LIMIT: '1000000',
      METADATA_RATE_LIMIT: '1000000',
      EGRESS_ALLOW: '127.0.0.1',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
  });
  const found: Record<string, string> = {};
  const lines = readline.createInterface({ input: proc.stdout! });
  for await (const line of lines) {
    const key = /^\s+(render|metadata) key\s+: (\S+)/.exec(line);
    if (key) found[`${key[1]}Key`] = key[2]!;
    const listening = /^(render|metadata)\s+listening on (\S+)/.exec(line);
    if (listening) found[listening[1]!] = listening[2]!;
    if (found.render && found.metadata && found.renderKey && found.metadataKey) break;
  }
  if (!found.render || !found.metadata) throw new Error('the service exited before it listened');
  // Keep draining its stdout (warnings), or the child blocks on a full pipe.
  proc.stdout!.resume();
  return {
    proc,
    renderBase: found.render,
    metadataBase: found.metadata!,
    renderKey: found.renderKey!,
    metadataKey: found.metadataKey!,
  };
}

/** Stops the service with SIGTERM (SIGKILL after 40 s) and waits for it to exit. */
async function stopService(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 40_000);
  await exited;
  clearTimeout(timer);
}

/**
 * What an idle Chromium costs: the service started with 1 and with 4 render slots in use (plus the spare one),
 * sampled after it settled; the difference per slot is one render context, the rest the browser itself.
 */
async function idleFootprint(): Promise<void> {
  const figures: Array<{ slots: number; sample: ProcessSample }> = [];
  for (const concurrency of [1, 4]) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-soak-idle-'));
    const service = await startService(dataDir, concurrency);
    try {
      await new Promise((r) => setTimeout(r, 5000));
      figures.push({ slots: concurrency + 1, sample: sampleProcesses(service.proc.pid!) });
    } finally {
      await stopService(service.proc);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const [a, b] = figures as [(typeof figures)[0], (typeof figures)[0]];
  const perSlot = (pick: (s: ProcessSample) => number) => (pick(b.sample) - pick(a.sample)) / (b.slots - a.slots);
  const base = (pick: (s: ProcessSample) => number) => pick(a.sample) - a.slots * perSlot(pick);
  process.stdout.write('idle (no render yet)    slots  Node RSS MB  Chromium RSS MB  Chromium PSS MB  processes\n');
  for (const { slots, sample } of figures) {
    process.stdout.write(
      `  RENDER_CONCURRENCY=${slots - 1}  ${String(slots).padStart(5)}  ${mb(sample.nodeRssMb, 11)}  ${mb(sample.chromiumRssMb, 15)}  ${mb(sample.chromiumPssMb, 15)}  ${String(sample.chromiumProcesses).padStart(9)}\n`,
    );
  }
  process.stdout.write(
    `  per render slot: ${fmt(
      perSlot((s) => s.chromiumPssMb),
      0,
      0,
    )} MB PSS (${fmt(
      perSlot((s) => s.chromiumRssMb),
      0,
      0,
    )} MB RSS); ` +
      `Chromium without slots: ${fmt(
        base((s) => s.chromiumPssMb),
        0,
        0,
      )} MB PSS (${fmt(
        base((s) => s.chromiumRssMb),
        0,
        0,
      )} MB RSS)\n\n`,
  );
}

function mb(v: number, width = 7): string {
  return fmt(v, 0, width);
}

function printRow(r: Row): void {
  const s = (n: number) => n / r.spanS;
  process.stdout.write(
    `${String(r.t).padStart(5)} ${fmt(s(r.renders), 2, 7)} ${fmt(quantile(r.renderMs, 0.5), 0, 6)} ${fmt(quantile(r.renderMs, 0.99), 0, 6)}` +
      ` ${fmt(s(r.fetches), 0, 7)} ${fmt(quantile(r.fetchMs, 0.5), 1, 6)} ${fmt(quantile(r.fetchMs, 0.99), 1, 6)} ${String(r.errors).padStart(4)}` +
      ` ${mb(r.nodeRssMb)} ${mb(r.heapUsedMb, 6)} ${mb(r.chromiumRssMb)} ${mb(r.chromiumPssMb)} ${String(r.chromiumProcesses).padStart(5)}` +
      ` ${String(r.renderers).padStart(4)} ${String(r.fds).padStart(5)} ${String(r.recycles).padStart(4)} ${fmt(s(r.jobs), 2, 6)}\n`,
  );
}

/** Pooled figures over the rows whose time lies in (from, to]. */
function span(
  rows: Row[],
  from: number,
  to: number,
): { renderRate: number; renderP99: number; fetchRate: number; fetchP99: number } {
  const inSpan = rows.filter((r) => r.t > from && r.t <= to);
  // The run's end cuts its last sample short: rates divide by the time each sample really covered.
  const seconds = inSpan.reduce((n, r) => n + r.spanS, 0);
  return {
    renderRate: inSpan.reduce((n, r) => n + r.renders, 0) / seconds,
    renderP99: quantile(
      inSpan.flatMap((r) => r.renderMs),
      0.99,
    ),
    fetchRate: inSpan.reduce((n, r) => n + r.fetches, 0) / seconds,
    fetchP99: quantile(
      inSpan.flatMap((r) => r.fetchMs),
      0.99,
    ),
  };
}

function summarize(rows: Row[], seconds: number): void {
  const warm = Math.min(60, Math.floor(seconds / 5 / SAMPLE_S) * SAMPLE_S);
  const after = rows.filter((r) => r.t > warm);
  const perRenders = (pick: (r: Row) => number) => slope(after.map((r) => [r.totalRenders / 1000, pick(r)] as const));
  const perRequests = (pick: (r: Row) => number) => slope(after.map((r) => [r.totalRequests / 1000, pick(r)] as const));
  const perJobs = (pick: (r: Row) => number) => slope(after.map((r) => [r.totalJobs / 1000, pick(r)] as const));
  const last = rows.at(-1)!;
  process.stdout.write(
    `\ntotals: ${last.totalRenders} renders, ${last.totalRequests - last.totalRenders} metadata fetches, ` +
      `${rows.reduce((n, r) => n + r.errors, 0)} errors, ${last.recycles} Chromium recycles\n`,
  );
  process.stdout.write(`slopes after ${warm} s of warm-up (least squares over ${after.length} samples):\n`);
  process.stdout.write(
    `  Chromium RSS ${fmt(
      perRenders((r) => r.chromiumRssMb),
      2,
      0,
    )} MB and PSS ${fmt(
      perRenders((r) => r.chromiumPssMb),
      2,
      0,
    )} MB per 1,000 renders\n`,
  );
  process.stdout.write(
    `  Node RSS ${fmt(
      perRequests((r) => r.nodeRssMb),
      2,
      0,
    )} MB and heap ${fmt(
      perRequests((r) => r.heapUsedMb),
      2,
      0,
    )} MB per 1,000 requests\n`,
  );
  process.stdout.write(
    `  open fds ${fmt(
      perRequests((r) => r.fds),
      2,
      0,
    )} per 1,000 requests\n`,
  );
  const fds = after.map((r) => r.fds);
  process.stdout.write(
    `  per 1,000 render jobs: Node RSS ${fmt(
      perJobs((r) => r.nodeRssMb),
      2,
      0,
    )} MB, heap ${fmt(
      perJobs((r) => r.heapUsedMb),
      2,
      0,
    )} MB, open fds ${fmt(
      perJobs((r) => r.fds),
      2,
      0,
    )} (fds ${Math.min(...fds)}–${Math.max(...fds)} after warm-up)\n`,
  );
  // Caches that fill up and then stay (SQLite's page cache as the tables grow, the metadata cache) show as
  // growth early in a long run; a leak goes on growing in its second half too.
  const half = rows.filter((r) => r.t > seconds / 2);
  if (seconds >= 600 && half.length >= 2) {
    const rssAt = (t: number) => rows.reduce((best, r) => (Math.abs(r.t - t) < Math.abs(best.t - t) ? r : best)).nodeRssMb;
    const halfFds = half.map((r) => r.fds);
    process.stdout.write(
      `  second half (${Math.round(seconds / 2)}–${seconds} s), per 1,000 render jobs: Node RSS ${fmt(
        slope(half.map((r) => [r.totalJobs / 1000, r.nodeRssMb] as const)),
        2,
        0,
      )} MB, open fds ${fmt(slope(half.map((r) => [r.totalJobs / 1000, r.fds] as const)), 2, 0)} ` +
        `(fds ${Math.min(...halfFds)}–${Math.max(...halfFds)}); Node RSS ${fmt(rssAt(warm), 0, 0)} MB at ${warm} s, ` +
        `${fmt(rssAt(seconds / 2), 0, 0)} MB at ${Math.round(seconds / 2)} s, ${fmt(rssAt(seconds), 0, 0)} MB at the end\n`,
    );
  }
  if (seconds < warm + 120) {
    process.stdout.write('(run too short to compare the last minute with the first warm one)\n');
    return;
  }
  const first = span(rows, warm, warm + 60);
  const end = span(rows, seconds - 60, seconds);
  const within = (a: number, b: number, higherIsBetter: boolean) => (higherIsBetter ? b >= a * 0.9 : b <= a * 1.1);
  const line = (label: string, a: number, b: number, higherIsBetter: boolean, d: number) =>
    process.stdout.write(
      `  ${label.padEnd(22)} ${fmt(a, d, 8)} → ${fmt(b, d, 8)}  within 10 %: ${verdict(within(a, b, higherIsBetter))}\n`,
    );
  process.stdout.write(`first warm minute (${warm}–${warm + 60} s) → last minute (${seconds - 60}–${seconds} s):\n`);
  line('renders/s', first.renderRate, end.renderRate, true, 2);
  line('render p99 ms', first.renderP99, end.renderP99, false, 0);
  line('metadata req/s', first.fetchRate, end.fetchRate, true, 0);
  line('metadata p99 ms', first.fetchP99, end.fetchP99, false, 1);
}

/** The soak section of `npm run bench`. */
export async function runSoakBench(): Promise<void> {
  if (process.env.SOAK_MODE === 'mixed') return (await import('./soak-mixed.js')).runMixedSoak();
  const seconds = Math.max(30, Number(process.env.SOAK_S ?? 600));
  heading(
    `soak: ${seconds} s, renders at c=${callers('renders', RENDER_C)}, metadata fetches at c=${callers('metadata', METADATA_C)}, ` +
      `render jobs with webhooks at c=${callers('jobs', JOBS_C)}, samples every ${SAMPLE_S} s`,
  );
  await idleFootprint();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-soak-'));
  const fonts = await startFontServer();
  const origin = await child('origin');
  let service: Service | undefined;
  let jobs: JobLoad | undefined;
  try {
    service = await startService(dataDir);
    const { renderBase, metadataBase, renderKey, metadataKey } = service;
    process.stdout.write(
      `recycling: RENDER_RECYCLE_AFTER=${process.env.RENDER_RECYCLE_AFTER ?? '(default)'}, ` +
        `RENDER_MAX_BROWSER_RSS_MB=${process.env.RENDER_MAX_BROWSER_RSS_MB ?? '(default)'}\n`,
    );
    const docs = soakDocuments(fonts.base);
    const manifest = metadataPages().map((p) => ({ name: p.name }));
    const deadline = Date.now() + seconds * 1000;
    let window: Outcome[] = [];
    let totalRenders = 0;
    let totalRequests = 0;
    const renderPool = new Pool(renderBase, { connections: RENDER_C });
    const metadataPool = new Pool(metadataBase, { connections: METADATA_C });
    const jobsPool = new Pool(renderBase, { connections: JOBS_C });
    jobs = await startJobLoad({ root: ROOT, dataDir, pool: jobsPool, renderKey, concurrency: callers('jobs', JOBS_C), deadline });
    const jobLoad = jobs;
    process.stdout.write(
      `render jobs: one-line documents with webhooks, verified on receipt; job rows ${process.env.SOAK_JOB_ROWS === 'delete' ? 'DELETED every sample (SOAK_JOB_ROWS=delete)' : 'kept'}\n`,
    );
    let jobsBefore = 0;
    const timed = async (kind: Outcome['kind'], send: () => Promise<boolean>) => {
      const t = performance.now();
      const ok = await send().catch(() => false);
      window.push({ kind, ms: performance.now() - t, ok });
      totalRequests += 1;
      if (kind === 'render') totalRenders += 1;
    };
    let nextDoc = 0;
    const renderWorker = async () => {
      while (Date.now() < deadline) {
        const n = nextDoc++;
        const body = JSON.stringify({ html: docs[n % docs.length]!.html(n) });
        await timed('render', async () => {
          const res = await renderPool.request({
            method: 'POST',
            path: '/v1/render',
            headers: { authorization: `Bearer ${renderKey}`, 'content-type': 'application/json' },
            body,
          });
          const pdf = Buffer.from(await res.body.arrayBuffer());
          return res.statusCode === 200 && pdf.subarray(0, 5).toString() === '%PDF-';
        });
      }
    };
    let nextPage = 0;
    const metadataWorker = async () => {
      while (Date.now() < deadline) {
        const n = nextPage++;
        // Odd requests bust the cache (a new URL each time, so the cache fills too); even ones hit it.
        const target = `http://127.0.0.1:${origin.port}/${manifest[n % manifest.length]!.name}${n % 2 ? `?soak=${n}` : ''}`;
        await timed('metadata', async () => {
          const res = await metadataPool.request({
            method: 'GET',
            path: `/v1/fetch?url=${encodeURIComponent(target)}`,
            headers: { 'x-api-key': metadataKey },
          });
          await res.body.text();
          return res.statusCode === 200;
        });
      }
    };
    const rows: Row[] = [];
    const start = Date.now();
    let windowStart = start;
    const sampler = (async () => {
      process.stdout.write(
        '    t  rend/s  r p50  r p99  meta/s  m p50  m p99  err  nodeMB heapMB chrRSS chrPSS procs rend   fds recy jobs/s\n',
      );
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, Math.min(SAMPLE_S * 1000, deadline - Date.now() + 50)));
        const taken = window;
        window = [];
        const swappedAt = Date.now();
        const spanS = (swappedAt - windowStart) / 1000;
        windowStart = swappedAt;
        jobLoad.prune();
        const totalJobs = jobLoad.tally.succeeded;
        const metrics = await sampleMetrics(renderBase).catch(() => ({
          heapUsedMb: Number.NaN,
          heapTotalMb: Number.NaN,
          externalMb: Number.NaN,
          spacesMb: { new: Number.NaN, old: Number.NaN, large: Number.NaN, code: Number.NaN },
          recycles: Number.NaN,
        }));
        const row: Row = {
          t: Math.round((Date.now() - start) / 1000),
          spanS,
          renders: taken.filter((o) => o.kind === 'render' && o.ok).length,
          fetches: taken.filter((o) => o.kind === 'metadata' && o.ok).length,
          errors: taken.filter((o) => !o.ok).length,
          renderMs: taken.filter((o) => o.kind === 'render' && o.ok).map((o) => o.ms),
          fetchMs: taken.filter((o) => o.kind === 'metadata' && o.ok).map((o) => o.ms),
          totalRenders,
          totalRequests,
          jobs: totalJobs - jobsBefore,
          totalJobs,
          ...sampleProcesses(service!.proc.pid!),
          ...metrics,
        };
        jobsBefore = totalJobs;
        rows.push(row);
        printRow(row);
      }
    })();
    await Promise.all([
      ...Array.from({ length: callers('renders', RENDER_C) }, renderWorker),
      ...Array.from({ length: callers('metadata', METADATA_C) }, metadataWorker),
      ...jobLoad.callers,
      sampler,
    ]);
    await Promise.all([renderPool.close(), metadataPool.close(), jobsPool.close()]);
    const t = jobLoad.tally;
    process.stdout.write(
      `render jobs: ${t.submitted} submitted, ${t.succeeded} succeeded with a webhook verified on receipt, ${t.failed} failed, ` +
        `${t.lost} without a webhook in ${JOB_WAIT_S} s, ${t.refused} refused at submit, ${t.unverified} deliveries that did not verify` +
        `${process.env.SOAK_JOB_ROWS === 'delete' ? `; ${t.rowsDeleted} rows deleted` : ''} — every job succeeded: ${verdict(t.succeeded === t.submitted && t.unverified === 0)}\n`,
    );
    process.stdout.write(`web-font renders fetched the font ${fonts.requests} times\n`);
    summarize(rows, seconds);
  } finally {
    await jobs?.close();
    const below = service?.proc.pid === undefined ? [] : descendants(service.proc.pid);
    if (service) await stopService(service.proc);
    origin.proc.kill('SIGTERM');
    await fonts.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    // Once the service exits its children belong to init: look the pids seen before up again.
    const left = below.filter(
      (pid) => fs.existsSync(`/proc/${pid}`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')),
    );
    process.stdout.write(`service stopped; of its ${below.length} child processes, ${left.length} still run\n`);
  }
}
