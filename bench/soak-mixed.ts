/**
 * The mixed soak (`SOAK_MODE=mixed npm run bench -- soak`): one `render` instance started as `npm start`
 * starts it (`node dist/cli.js serve`, RENDER_CONCURRENCY at its default), two accounts made with the CLI.
 * Account A keeps SOAK_JOBS_C (default 40) render jobs in the system, each with a webhook verified on
 * receipt; account B sends sync renders of the soak documents back to back from SOAK_SYNC_C (default 2)
 * callers. Every 15 s it prints Node RSS and V8 heap, the store's size (SQLite: file + WAL and the page
 * cache that size can fill; PostgreSQL: the database's size), and the Chromium tree's RSS, PSS and fds; at
 * the end the slopes over the second half per 1,000 renders of either kind. DATABASE_URL and REDIS_URL pass
 * through. Bounded by SOAK_S seconds (default 1200) and SOAK_MAX_RENDERS (default 200,000); loopback only.
 * SOAK_HEAP_AT=600,1800 (or `end`: after the last sample) takes a heap snapshot of the service then (into SOAK_HEAP_DIR); compare
 * two with `node --import tsx bench/soak-heap.ts A B`. Writing a snapshot raises the service's RSS for good
 * (by about the heap's size), so a run that measures the RSS slope takes none.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import pg from 'pg';
import { Pool } from 'undici';
import { soakDocuments, startFontServer } from './soak-docs.js';
import { type JobLoad, startJobLoad } from './soak-jobs.js';
import {
  descendants,
  type MetricsSample,
  type ProcessSample,
  sampleMetrics,
  sampleProcesses,
  slope,
  slopeError,
} from './soak-probe.js';
import { fmt, heading, quantile, verdict } from './stats.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SAMPLE_S = 15;
/** better-sqlite3 is built with SQLITE_DEFAULT_CACHE_SIZE=-16000: 16,000 KiB of page cache per connection. */
const SQLITE_CACHE_MB = 16000 / 1024;
/**
 * A job of A waits behind B's sync renders (interactive first) and behind the other 39: at a job a second
 * that is 40 s and more on a loaded machine, so it counts as lost only after 10 minutes.
 */
const JOB_WAIT_S = 600;

interface Row extends ProcessSample, MetricsSample {
  t: number;
  storeMb: number;
  jobs: number;
  syncs: number;
  syncMs: number[];
  errors: number;
  totalRenders: number;
}

/** Starts `serve` with the render service alone on a fresh data folder; resolves once it listens. */
async function startRender(dataDir: string, env: Record<string, string>): Promise<{ proc: ChildProcess; base: string }> {
  const proc = spawn(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'serve'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      ...env,
      PAGEWORKS_DATA_DIR: dataDir,
      PAGEWORKS_SERVICES: 'render',
      RENDER_PORT: '0',
      RENDER_RATE_LIMIT: '1000000',
      EGRESS_ALLOW: '127.0.0.1',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    },
  });
  let base: string | undefined;
  for await (const line of readline.createInterface({ input: proc.stdout! })) {
    base = /^render\s+listening on (\S+)/.exec(line)?.[1];
    if (base) break;
  }
  if (!base) throw new Error('the service exited before it listened');
  // Keep draining its stdout, or the child blocks on a full pipe.
  proc.stdout!.resume();
  return { proc, base };
}

/** Runs the CLI on the service's store and returns what it printed (trimmed); throws on a non-zero exit. */
function cli(dataDir: string, args: string[]): string {
  const out = spawnSync(process.execPath, [path.join(ROOT, 'dist/cli.js'), ...args], {
    env: { ...process.env, PAGEWORKS_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(`pageworks ${args.join(' ')}: ${out.stderr}`);
  return out.stdout.trim();
}

/** An account with a render key, made the way an operator makes one. */
function account(dataDir: string, email: string): string {
  cli(dataDir, ['accounts', 'create', '--email', email]);
  return cli(dataDir, ['keys', 'create', '--email', email, '--service', 'render', '--name', 'soak']);
}

/** The store's size in MB: the SQLite file and its WAL, or the PostgreSQL database. */
function storeSizer(dataDir: string): { size(): Promise<number>; close(): Promise<void> } {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
    const file = path.join(dataDir, 'pageworks.sqlite');
    return { size: async () => (size(file) + size(`${file}-wal`)) / 1048576, close: async () => {} };
  }
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  return {
    size: async () => {
      await connected;
      const { rows } = await client.query<{ b: string }>('select pg_database_size(current_database()) as b');
      return Number(rows[0]!.b) / 1048576;
    },
    close: () => client.end(),
  };
}

/** Has the service write a heap snapshot and waits until it is written (the service answers again). */
async function snapshot(proc: ChildProcess, base: string): Promise<void> {
  proc.kill('SIGUSR2');
  await new Promise((r) => setTimeout(r, 500));
  await fetch(`${base}/v1/health`).catch(() => {});
}

function printRow(r: Row, sqlite: boolean): void {
  const mb = (v: number, w = 7) => fmt(v, 0, w);
  process.stdout.write(
    `${String(r.t).padStart(5)} ${fmt(r.jobs / SAMPLE_S, 2, 6)} ${fmt(r.syncs / SAMPLE_S, 2, 6)} ${fmt(quantile(r.syncMs, 0.5), 0, 6)}` +
      ` ${fmt(quantile(r.syncMs, 0.99), 0, 6)} ${String(r.errors).padStart(4)} ${String(r.totalRenders).padStart(7)}` +
      ` ${mb(r.nodeRssMb)} ${mb(r.nodeRssAnonMb, 5)} ${mb(r.heapUsedMb, 6)} ${mb(r.heapTotalMb, 6)} ${mb(r.externalMb, 5)} ${fmt(r.storeMb, 1, 7)} ${sqlite ? fmt(Math.min(r.storeMb, SQLITE_CACHE_MB), 1, 6) : '     -'}` +
      ` ${mb(r.chromiumRssMb)} ${mb(r.chromiumPssMb)} ${String(r.chromiumFds).padStart(6)} ${String(r.chromiumProcesses).padStart(5)}` +
      ` ${String(r.fds).padStart(5)} ${String(r.recycles).padStart(4)} ${mb(r.spacesMb.new, 5)} ${mb(r.spacesMb.large, 5)}\n`,
  );
}

/**
 * The slope of Node RSS through the lowest sample of each 5 minutes. Dead Buffers (PDFs, resources proxied for the documents) count as external
 * memory until V8 collects them, which it does once they add up to its external limit (64 MB): that swings
 * RSS by about 100 MB between samples and buries a slope of a few MB; the low points are the RSS after a GC.
 */
function floor(rows: Row[]): string {
  const lows = new Map<number, Row>();
  for (const r of rows) {
    const w = Math.floor(r.t / 300);
    if (!lows.has(w) || r.nodeRssMb < lows.get(w)!.nodeRssMb) lows.set(w, r);
  }
  const points = [...lows.values()].map((r) => [r.totalRenders / 1000, r.nodeRssMb] as const);
  return `${fmt(slope(points), 2, 0)} MB per 1,000 renders over ${points.length} lows (${points.map(([, y]) => fmt(y, 0, 0)).join(', ')} MB)`;
}

function summarize(rows: Row[], seconds: number, tally: JobLoad['tally'], end: { syncs: number; errors: number }): void {
  const last = rows.at(-1)!;
  process.stdout.write(
    `\ntotals: ${tally.succeeded + end.syncs} renders (${tally.succeeded} jobs of A, ${end.syncs} sync renders of B), ${end.errors} sync errors, ` +
      `${last.recycles} Chromium recycles\n`,
  );
  process.stdout.write(
    `jobs of A: ${tally.submitted} submitted, ${tally.succeeded} succeeded with a webhook verified on receipt, ${tally.failed} failed, ` +
      `${tally.lost} without a webhook in ${JOB_WAIT_S} s, ${tally.refused} refused, ${tally.unverified} deliveries that did not verify` +
      ` — every job succeeded: ${verdict(tally.succeeded === tally.submitted && tally.unverified === 0)}\n`,
  );
  const half = rows.filter((r) => r.t > seconds / 2);
  if (half.length < 3) {
    process.stdout.write('(run too short for a second-half slope)\n');
    return;
  }
  const per = (pick: (r: Row) => number) => slope(half.map((r) => [r.totalRenders / 1000, pick(r)] as const));
  // "label: slope per 1,000 renders (range over the half)".
  const figure = (label: string, pick: (r: Row) => number, unit = ' MB', d = 0) =>
    `${label} ${fmt(per(pick), 2, 0)}${unit} (${fmt(Math.min(...half.map(pick)), d, 0)}–${fmt(Math.max(...half.map(pick)), d, 0)}${unit})`;
  const renders = last.totalRenders - half[0]!.totalRenders;
  const lines = [
    `second half (${half[0]!.t}–${last.t} s, ${renders} renders), least squares over ${half.length} samples, per 1,000 renders:`,
    `  ${figure('Node RSS', (r) => r.nodeRssMb)} ± ${fmt(slopeError(half.map((r) => [r.totalRenders / 1000, r.nodeRssMb] as const)), 2, 0)} (standard error)` +
      `  flat (< 0.5 MB): ${verdict(per((r) => r.nodeRssMb) < 0.5)}`,
    `  ${figure('of it anonymous', (r) => r.nodeRssAnonMb)}, ${figure('file-backed', (r) => r.nodeRssFileMb)}`,
    // V8 sizes the young generation by the allocation rate, between 1 MB and 2 × --max-semi-space-size
    // (32 MB on Node 20), and RSS moves with it: without it, what is left is what could leak.
    `  ${figure('Node RSS less the young generation', (r) => r.nodeRssMb - r.spacesMb.new)} ± ${fmt(slopeError(half.map((r) => [r.totalRenders / 1000, r.nodeRssMb - r.spacesMb.new] as const)), 2, 0)}` +
      `  flat (< 0.5 MB): ${verdict(per((r) => r.nodeRssMb - r.spacesMb.new) < 0.5)}`,
    `  ${figure('anonymous less V8 heap and external (malloc, the store)', (r) => r.nodeRssAnonMb - r.heapTotalMb - r.externalMb)}`,
    `  floor (the lowest sample of each 5 minutes, after a GC): ${floor(half)}`,
    `  ${figure('V8 heap used', (r) => r.heapUsedMb)}, ${figure('reserved', (r) => r.heapTotalMb)}, ${figure('external', (r) => r.externalMb)}`,
    `  reserved by space: ${figure('young', (r) => r.spacesMb.new)}, ${figure('old', (r) => r.spacesMb.old)}, ${figure('large objects', (r) => r.spacesMb.large)}, ${figure('code', (r) => r.spacesMb.code)}`,
    `  ${figure('store', (r) => r.storeMb, ' MB', 1)}`,
    `  ${figure('Chromium RSS', (r) => r.chromiumRssMb)}, ${figure('fds', (r) => r.chromiumFds, '')}, ${figure('processes', (r) => r.chromiumProcesses, '')}`,
    `  ${figure('Node fds', (r) => r.fds, '')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const bound = Number(process.env.RENDER_MAX_BROWSER_RSS_MB ?? 2048);
  // During a recycle the old browser drains while the new one serves: a sample then sums both trees.
  const switching = (i: number) =>
    rows.slice(Math.max(0, i - 1), i + 2).some((r, j, near) => j > 0 && r.recycles !== near[j - 1]!.recycles);
  const over = rows.filter((r, i) => r.chromiumRssMb > bound && !switching(i));
  const steady = rows.filter((_r, i) => !switching(i)).map((r) => r.chromiumRssMb);
  process.stdout.write(
    `Chromium tree RSS: ${fmt(Math.min(...steady), 0, 0)}–${fmt(Math.max(...steady), 0, 0)} MB outside recycles, ` +
      `${fmt(Math.max(...rows.map((r) => r.chromiumRssMb)), 0, 0)} MB at most with a switch's two browsers; ` +
      `over the ${bound} MB recycle bound outside a switch in ${over.length} of ${rows.length} samples: within bound ${verdict(over.length === 0)}\n`,
  );
}

/** The mixed soak: see the file's comment. */
export async function runMixedSoak(): Promise<void> {
  const seconds = Math.max(60, Number(process.env.SOAK_S ?? 1200));
  const maxRenders = Number(process.env.SOAK_MAX_RENDERS ?? 200_000);
  const jobsC = Math.max(1, Number(process.env.SOAK_JOBS_C ?? 40));
  const syncC = Math.max(1, Number(process.env.SOAK_SYNC_C ?? 2));
  const heapList = (process.env.SOAK_HEAP_AT ?? '').split(',').filter(Boolean);
  const heapAtEnd = heapList.includes('end');
  const heapAt = heapList
    .filter((s) => s !== 'end')
    .map(Number)
    .sort((a, b) => a - b);
  const sqlite = !process.env.DATABASE_URL;
  heading(
    `mixed soak: ${seconds} s on ${sqlite ? 'SQLite' : 'PostgreSQL'}${process.env.REDIS_URL ? ' + Redis' : ''}, ` +
      `account A ${jobsC} jobs with webhooks in flight, account B sync renders at c=${syncC}, samples every ${SAMPLE_S} s`,
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-soak-mixed-'));
  // Outside the data folder, which goes at the end: the snapshots are for comparing afterwards.
  const heapDir = process.env.SOAK_HEAP_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-soak-heap-'));
  fs.mkdirSync(heapDir, { recursive: true });
  const fonts = await startFontServer();
  const sizer = storeSizer(dataDir);
  let service: { proc: ChildProcess; base: string } | undefined;
  let jobs: JobLoad | undefined;
  try {
    service = await startRender(dataDir, {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${heapDir}`.trim(),
    });
    const { proc, base } = service;
    const keyA = account(dataDir, 'soak-a@example.com');
    const keyB = account(dataDir, 'soak-b@example.com');
    const docs = soakDocuments(fonts.base);
    const deadline = Date.now() + seconds * 1000;
    let totalSyncs = 0;
    let syncErrors = 0;
    const enough = () => (jobs?.tally.succeeded ?? 0) + totalSyncs >= maxRenders;
    const jobsPool = new Pool(base, { connections: 8 });
    const syncPool = new Pool(base, { connections: syncC });
    jobs = await startJobLoad({
      root: ROOT,
      dataDir,
      pool: jobsPool,
      renderKey: keyA,
      concurrency: jobsC,
      deadline,
      email: 'soak-a@example.com',
      enough,
      waitS: JOB_WAIT_S,
    });
    const jobLoad = jobs;
    let window: Array<{ ms: number; ok: boolean }> = [];
    let nextDoc = 0;
    const syncCaller = async () => {
      while (Date.now() < deadline && !enough()) {
        const n = nextDoc++;
        const body = JSON.stringify({ html: docs[n % docs.length]!.html(n) });
        const t = performance.now();
        const ok = await syncPool
          .request({
            method: 'POST',
            path: '/v1/render',
            headers: { authorization: `Bearer ${keyB}`, 'content-type': 'application/json' },
            body,
          })
          .then(async (res) => {
            const pdf = Buffer.from(await res.body.arrayBuffer());
            return res.statusCode === 200 && pdf.subarray(0, 5).toString() === '%PDF-';
          })
          .catch(() => false);
        window.push({ ms: performance.now() - t, ok });
        if (ok) totalSyncs += 1;
        else syncErrors += 1;
      }
    };
    process.stdout.write(
      `sync documents: ${docs.length} (the render corpus and the heavy ones); jobs: one-line documents; heap snapshots at ${[...heapAt.map((t) => `${t} s`), ...(heapAtEnd ? ['the end'] : [])].join(', ') || 'none'} into ${heapDir}\n` +
        '    t  job/s sync/s  s p50  s p99  err renders  nodeMB  anon heapMB heapTo  extMB storeMB cache≤ chrRSS chrPSS chrFDs procs   fds recy young large\n',
    );
    const rows: Row[] = [];
    const start = Date.now();
    let jobsBefore = 0;
    const sampler = (async () => {
      while (Date.now() < deadline && !enough()) {
        await new Promise((r) => setTimeout(r, Math.min(SAMPLE_S * 1000, deadline - Date.now() + 50)));
        const t = Math.round((Date.now() - start) / 1000);
        const taken = window;
        window = [];
        const metrics = await sampleMetrics(base).catch(() => ({
          heapUsedMb: Number.NaN,
          heapTotalMb: Number.NaN,
          externalMb: Number.NaN,
          spacesMb: { new: Number.NaN, old: Number.NaN, large: Number.NaN, code: Number.NaN },
          recycles: Number.NaN,
        }));
        const succeeded = jobLoad.tally.succeeded;
        const row: Row = {
          t,
          ...sampleProcesses(proc.pid!),
          ...metrics,
          storeMb: await sizer.size().catch(() => Number.NaN),
          jobs: succeeded - jobsBefore,
          syncs: taken.filter((o) => o.ok).length,
          syncMs: taken.filter((o) => o.ok).map((o) => o.ms),
          errors: taken.filter((o) => !o.ok).length,
          totalRenders: succeeded + totalSyncs,
        };
        jobsBefore = succeeded;
        rows.push(row);
        printRow(row, sqlite);
        // A snapshot after the sample, so the sample itself is not the snapshot's transient peak.
        while (heapAt.length > 0 && heapAt[0]! <= t) {
          heapAt.shift();
          await snapshot(proc, base);
          process.stdout.write(`      (heap snapshot taken at ${t} s)\n`);
        }
      }
    })();
    await Promise.all([...Array.from({ length: syncC }, syncCaller), ...jobLoad.callers, sampler]);
    await Promise.all([jobsPool.close(), syncPool.close()]);
    const ended = Math.round((Date.now() - start) / 1000);
    if (heapAtEnd) await snapshot(proc, base);
    summarize(rows, ended, jobLoad.tally, { syncs: totalSyncs, errors: syncErrors });
    const snapshots = fs.readdirSync(heapDir).filter((f) => f.endsWith('.heapsnapshot'));
    if (snapshots.length > 0) process.stdout.write(`heap snapshots: ${snapshots.map((f) => path.join(heapDir, f)).join(' ')}\n`);
  } finally {
    await jobs?.close();
    await sizer.close().catch(() => {});
    const below = service?.proc.pid === undefined ? [] : descendants(service.proc.pid);
    if (service && service.proc.exitCode === null) {
      const exited = new Promise((resolve) => service!.proc.once('exit', resolve));
      service.proc.kill('SIGTERM');
      const timer = setTimeout(() => service!.proc.kill('SIGKILL'), 40_000);
      await exited;
      clearTimeout(timer);
    }
    await fonts.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    const left = below.filter(
      (pid) => fs.existsSync(`/proc/${pid}`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')),
    );
    process.stdout.write(`service stopped; of its ${below.length} child processes, ${left.length} still run\n`);
  }
}
