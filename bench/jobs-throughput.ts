/**
 * Part 2 of the jobs bench: job throughput ÷ sync `/v1/render` throughput on one render instance (2 render
 * slots), the same invoice, sync rounds and job rounds alternating. Once per store the run is asked for
 * (JOBS_BENCH_STORES=postgres,embedded; both by default when PostgreSQL is there, else embedded), each
 * store's ratio measured against its own sync rounds in the same run. JOBS_BENCH_RESULTS=files|s3 picks
 * where PDFs go (default: s3rver beside PostgreSQL, files beside the embedded store, as each is deployed).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SQLITE_FILE } from '../src/store/open-store.js';
import { openSqliteFile } from '../src/store/sqlite-driver.js';
import { type S3Server, s3Env, startS3ServerProcess } from '../test/helpers/s3-server.js';
import { Seeder } from '../test/scale/cluster.js';
import { Instance } from '../test/scale/instances.js';
import { JobsCluster, submitJob } from '../test/scale/jobs-cluster.js';
import { pooled } from '../test/scale/jobs-scenario.js';
import { type CpuScope, cpuSnapshot, cpuSpent } from './jobs-cpu.js';
import { fmt, heading, median, verdict } from './stats.js';

/** How long the render instance may take to listen: Chromium and the TypeScript loader start slowly on a busy machine. */
const START_MS = 180_000;

type StoreName = 'postgres' | 'embedded';
type Results = 'files' | 's3';

/** One render instance to measure: its address, a render key, and when a set of jobs was all final. */
interface Deployment {
  api: Instance;
  key: string;
  /** Whose CPU time is counted (jobs-cpu.ts). */
  cpu: CpuScope;
  /** Epoch ms at which the last of `ids` finished, once all are final (read from the store of record). */
  waitFinal(ids: string[], timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

/** The render instance's environment for the comparison: both slots for jobs, as sync renders have them. */
function renderEnv(workerConcurrency: string): Record<string, string> {
  return { RENDER_CONCURRENCY: '2', RENDER_WORKER_CONCURRENCY: workerConcurrency, LOG_LEVEL: 'warn' };
}

/** PostgreSQL (a fresh database), Redis and s3rver: the scale suite's cluster with one API instance and no workers. */
async function postgresDeployment(databaseUrl: string, results: Results, workerConcurrency: string): Promise<Deployment> {
  const cluster = await JobsCluster.start(databaseUrl, {
    apis: 1,
    workers: 0,
    env: { ...renderEnv(workerConcurrency), ...(results === 'files' ? { RESULT_STORE: '' } : {}) },
  });
  try {
    const { key } = await cluster.account('tput');
    return {
      api: cluster.apis[0]!,
      key,
      cpu: { instancePid: cluster.apis[0]!.pid, postgres: true, redisPort: cluster.redis?.port },
      waitFinal: (ids, timeoutMs) => cluster.waitFinal(ids, timeoutMs),
      close: () => cluster.close(),
    };
  } catch (err) {
    await cluster.close();
    throw err;
  }
}

/** One render instance on the embedded SQLite store of a data dir of its own, no Redis (its own submits wake its worker). */
async function embeddedDeployment(results: Results, workerConcurrency: string): Promise<Deployment> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-bench-embedded-'));
  let s3: S3Server | undefined;
  let api: Instance | undefined;
  const close = async () => {
    await api?.stop().catch(() => api?.kill());
    await s3?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const seeder = await Seeder.openEmbedded(dataDir);
    const { key } = await seeder.key('render', 1_000_000).finally(() => seeder.close());
    if (results === 's3') s3 = await startS3ServerProcess();
    api = await Instance.start(
      'render',
      { PAGEWORKS_DATA_DIR: dataDir, EGRESS_ALLOW: '127.0.0.1/32', ...renderEnv(workerConcurrency), ...(s3 ? s3Env(s3) : {}) },
      START_MS,
    );
    const file = path.join(dataDir, SQLITE_FILE);
    const waitFinal = async (ids: string[], timeoutMs: number) => {
      const until = Date.now() + timeoutMs;
      // A reader of its own beside the instance's writer (WAL); opened per look, as the PostgreSQL side connects per look.
      for (;;) {
        const db = openSqliteFile(file, { readonly: true });
        let row: { open: number; last: number | null };
        try {
          row = db
            .prepare(
              `SELECT count(*) FILTER (WHERE status IN ('queued', 'running')) AS open, max(finished_at) AS last
                 FROM render_jobs WHERE id IN (${ids.map(() => '?').join(',')})`,
            )
            .get(ids) as typeof row;
        } finally {
          db.close();
        }
        if (Number(row.open) === 0) return Number(row.last);
        if (Date.now() > until) throw new Error(`${row.open} of ${ids.length} jobs still open after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    return { api, key, cpu: { instancePid: api.pid }, waitFinal, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** What one path cost over all its rounds: PDFs made, and CPU milliseconds by process group. */
type PathCpu = { pdfs: number; ms: Record<string, number> };

/** Sync renders per second and jobs per second, three alternating rounds of `count` each, and each path's CPU. */
async function measure(
  d: Deployment,
  html: string,
  count: number,
): Promise<{ sync: number[]; jobs: number[]; cpu: { sync: PathCpu; jobs: PathCpu } }> {
  const sync: number[] = [];
  const jobs: number[] = [];
  const cpu = { sync: { pdfs: 0, ms: {} as Record<string, number> }, jobs: { pdfs: 0, ms: {} as Record<string, number> } };
  const add = (path: PathCpu, before: Record<string, number>) => {
    path.pdfs += count;
    for (const [group, ms] of Object.entries(cpuSpent(before, cpuSnapshot(d.cpu)))) path.ms[group] = (path.ms[group] ?? 0) + ms;
  };
  const render = async () => {
    const res = await fetch(`${d.api.url}/v1/render`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ html }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`sync render answered ${res.status}`);
  };
  // Warm-up of both paths: the first job compiles its answer's serializer and the S3 client's middleware.
  await pooled([1, 2, 3, 4], 2, render);
  await d.waitFinal(
    await Promise.all([1, 2, 3, 4].map(async () => (await submitJob(d.api, d.key, { html, reference: 'warm-up' })).id)),
    10 * 60_000,
  );
  await new Promise((r) => setTimeout(r, 2000));
  for (let round = 0; round < 3; round++) {
    let before = cpuSnapshot(d.cpu);
    let t0 = Date.now();
    // Four callers keep both slots busy, as the queue keeps them busy for jobs.
    await pooled(Array.from({ length: count }), 4, render);
    sync.push(count / ((Date.now() - t0) / 1000));
    add(cpu.sync, before);
    // Jobs right behind sync renders are paced for a moment (interactive first); each half of a round
    // measures its path alone.
    await new Promise((r) => setTimeout(r, 2000));
    before = cpuSnapshot(d.cpu);
    t0 = Date.now();
    const ids: string[] = [];
    await pooled(Array.from({ length: count }), 8, async () => {
      ids.push((await submitJob(d.api, d.key, { html, reference: `tput-${round}` })).id);
    });
    const finished = await d.waitFinal(ids, 10 * 60_000);
    jobs.push(count / ((finished - t0) / 1000));
    // Up to a second of idle past the last job's end (the poll): nothing runs then but the idle loops.
    add(cpu.jobs, before);
  }
  return { sync, jobs, cpu };
}

/** "Node 9.1 | 14.0, Chromium …": CPU ms per PDF of each group, sync | jobs, and the totals. */
function cpuLine(cpu: { sync: PathCpu; jobs: PathCpu }): string {
  const per = (path: PathCpu, group: string) => (path.ms[group] ?? 0) / path.pdfs;
  const groups = Object.keys(cpu.jobs.ms).filter((g) => per(cpu.sync, g) >= 0.05 || per(cpu.jobs, g) >= 0.05);
  const total = (path: PathCpu) => groups.reduce((sum, g) => sum + per(path, g), 0);
  return (
    `CPU ms per PDF, sync | jobs: ${groups.map((g) => `${g} ${per(cpu.sync, g).toFixed(1)} | ${per(cpu.jobs, g).toFixed(1)}`).join(', ')}; ` +
    `total ${total(cpu.sync).toFixed(1)} | ${total(cpu.jobs).toFixed(1)}`
  );
}

/** Which stores to measure: JOBS_BENCH_STORES, else both with PostgreSQL, else the embedded one. */
function chosenStores(databaseUrl: string | undefined): StoreName[] {
  const raw = process.env.JOBS_BENCH_STORES;
  const stores = (raw ? raw.split(',') : databaseUrl ? ['postgres', 'embedded'] : ['embedded']).map((s) => s.trim());
  for (const s of stores) if (s !== 'postgres' && s !== 'embedded') throw new Error(`JOBS_BENCH_STORES: unknown store "${s}"`);
  return stores as StoreName[];
}

/** Runs the comparison on each chosen store and prints each one's ratio. */
export async function runJobsThroughput(databaseUrl: string | undefined, html: string, n: number): Promise<void> {
  heading('job throughput ÷ sync /v1/render throughput, one render instance with 2 render slots, per store');
  // Jobs get both slots, as sync renders do (a `render` instance that also serves interactive
  // renders keeps one for them by default); RENDER_WORKER_CONCURRENCY overrides it.
  const workerConcurrency = process.env.RENDER_WORKER_CONCURRENCY ?? '2';
  // A steady stream: at 20 a round (N/25 at N=200) a round of jobs lasted under a second, of which the
  // first job's submit and claim and the last one's upload were a fixed share no longer run than sync's.
  const count = Math.max(60, Math.round(n / 5));
  process.stdout.write(`RENDER_WORKER_CONCURRENCY ${workerConcurrency}, ${count} renders per round, 3 alternating rounds\n`);
  const asked = process.env.JOBS_BENCH_RESULTS;
  if (asked !== undefined && asked !== 'files' && asked !== 's3') throw new Error(`JOBS_BENCH_RESULTS: "${asked}" (files or s3)`);
  const summary: string[] = [];
  for (const store of chosenStores(databaseUrl)) {
    if (store === 'postgres' && !databaseUrl) {
      process.stdout.write('postgres: SKIPPED (set DATABASE_URL or run PostgreSQL on 127.0.0.1)\n');
      continue;
    }
    const results: Results = (asked as Results | undefined) ?? (store === 'postgres' ? 's3' : 'files');
    // s3rver is a process of its own but on the same two cores as the renders, which a real S3 is not.
    const label = `${store === 'postgres' ? 'PostgreSQL' : 'embedded SQLite'}, results ${results === 's3' ? 'in s3rver' : 'in files'}`;
    const d =
      store === 'postgres'
        ? await postgresDeployment(databaseUrl!, results, workerConcurrency)
        : await embeddedDeployment(results, workerConcurrency);
    try {
      const { sync, jobs, cpu } = await measure(d, html, count);
      const ratio = median(jobs) / median(sync);
      process.stdout.write(
        `${label}: medians sync ${fmt(median(sync), 2, 0)} PDF/s (rounds ${sync.map((r) => r.toFixed(2)).join(', ')}), ` +
          `jobs ${fmt(median(jobs), 2, 0)} PDF/s (rounds ${jobs.map((r) => r.toFixed(2)).join(', ')}; submit of the first to finish of the last)\n` +
          `  ${cpuLine(cpu)}\n`,
      );
      summary.push(`${label}: ${fmt(ratio, 2, 0)}× — ${verdict(ratio >= 0.97)}`);
    } finally {
      await d.close();
    }
  }
  process.stdout.write(
    `goal: job throughput ≥ 0.97 × sync, per store:\n${summary.map((s) => `  ${s}\n`).join('')}` +
      `(1-min load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores)\n`,
  );
}
