/**
 * What a render job costs beyond its render (`npm run bench -- jobs-overhead`), measured so that a loaded
 * machine blurs it little: CPU time per PDF of every process involved (the service and its Chromium, the
 * S3 server, Redis, this database's PostgreSQL backends, this driver), and how busy the render slots were
 * kept (Σ render time ÷ slots × wall time, from the service's own histogram), for sync renders and for
 * jobs of the same invoice, on one render instance with 2 slots. JOBS_OVERHEAD_N PDFs per round (60),
 * JOBS_OVERHEAD_ROUNDS rounds (3); JOBS_OVERHEAD_ONLY=sync|jobs runs one path.
 */
import fs from 'node:fs';
import pg from 'pg';
import { descendants } from '../test/scale/instances.js';
import { JobsCluster, submitJob } from '../test/scale/jobs-cluster.js';
import { pooled } from '../test/scale/jobs-scenario.js';
import { benchDatabaseUrl } from './scale.js';
import { fmt, heading, median } from './stats.js';

const TICK_MS = 1000 / 100;

/** CPU ms (user + system) a process has used, 0 once it is gone (/proc/<pid>/stat, 100 ticks a second). */
function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** The process's command name. */
function comm(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

type Sample = Record<string, number>;

/** CPU of each process of the deployment and the service's render histogram, now. */
async function sample(cluster: JobsCluster, admin: pg.Client, dbName: string, mine: number): Promise<Sample> {
  const api = cluster.apis[0]!;
  const chromium = descendants(api.pid);
  const own = descendants(process.pid).filter((p) => p !== api.pid && !chromium.includes(p));
  const s3 = own.filter((p) => /node/.test(comm(p)) && !descendants(api.pid).includes(p));
  const redis = own.filter((p) => /redis/.test(comm(p)));
  const backends = (await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [dbName])).rows
    .map((r) => r.pid)
    .filter((p) => p !== mine);
  const metrics = await (await fetch(`${api.url}/metrics`)).text();
  const m = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1] ?? 0);
  const per = (pids: number[]) => Object.fromEntries(pids.map((p) => [p, cpuMs(p)]));
  return {
    at: Date.now(),
    node: cpuMs(api.pid),
    chromium: chromium.reduce((a, p) => a + cpuMs(p), 0),
    s3: s3.reduce((a, p) => a + cpuMs(p), 0),
    redis: redis.reduce((a, p) => a + cpuMs(p), 0),
    ...Object.fromEntries(Object.entries(per(backends)).map(([p, v]) => [`pg${p}`, v])),
    renderSum: m('pageworks_render_duration_seconds_sum') * 1000,
    renderCount: m('pageworks_render_duration_seconds_count'),
    self: cpuMs(process.pid),
  };
}

/** Per PDF between two samples. */
function diff(a: Sample, b: Sample, n: number) {
  const pg = Object.keys(b)
    .filter((k) => k.startsWith('pg'))
    .reduce((acc, k) => acc + (b[k]! - (a[k] ?? 0)), 0);
  const wall = b.at! - a.at!;
  return {
    wallPerPdf: wall / n,
    node: (b.node! - a.node!) / n,
    chromium: (b.chromium! - a.chromium!) / n,
    s3: (b.s3! - a.s3!) / n,
    redis: (b.redis! - a.redis!) / n,
    pg: pg / n,
    renderMs: (b.renderSum! - a.renderSum!) / Math.max(1, b.renderCount! - a.renderCount!),
    self: (b.self! - a.self!) / n,
    busy: (b.renderSum! - a.renderSum!) / (2 * wall),
  };
}

/** Runs the overhead measurement. */
export async function runJobsOverheadBench(): Promise<void> {
  const databaseUrl = await benchDatabaseUrl();
  if (!databaseUrl) throw new Error('no database');
  const per = Number(process.env.JOBS_OVERHEAD_N ?? 60);
  const only = process.env.JOBS_OVERHEAD_ONLY;
  const rounds = Number(process.env.JOBS_OVERHEAD_ROUNDS ?? 3);
  heading(`job overhead: ${per} PDFs per round, ${rounds} rounds, 2 slots`);
  const cluster = await JobsCluster.start(databaseUrl, {
    apis: 1,
    workers: 0,
    env: {
      RENDER_CONCURRENCY: '2',
      RENDER_WORKER_CONCURRENCY: '2',
    },
  });
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const dbName = cluster.db.name;
  const own = new pg.Client({ connectionString: cluster.db.url });
  await own.connect();
  const mine = (await own.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  const rows = Array.from({ length: 40 }, (_, i) => `<tr><td>Item ${i + 1}</td><td>${(i * 7.25).toFixed(2)} €</td></tr>`).join(
    '',
  );
  const html = `<!doctype html><html><head><style>body{font:12px sans-serif}td{border-bottom:1px solid #ccc;padding:4px}</style></head><body><h1>Invoice 2026-0042</h1><table>${rows}</table></body></html>`;
  try {
    const { key } = await cluster.account('ovh');
    const api = cluster.apis[0]!;
    const render = async () => {
      const res = await fetch(`${api.url}/v1/render`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ html }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`sync ${res.status}`);
    };
    // Warm-up of both paths (the first job compiles its answer's serializer and the S3 client's middleware).
    await pooled([1, 2, 3, 4], 2, render);
    for (const _ of [1, 2, 3, 4]) await submitJob(api, key, { html, reference: 'warm-up' });
    await new Promise((res) => setTimeout(res, 3000));
    const results: Record<'sync' | 'jobs', ReturnType<typeof diff>[]> = { sync: [], jobs: [] };
    const spans: number[][] = [];
    for (let r = 0; r < rounds; r++) {
      let a = await sample(cluster, admin, dbName, mine);
      if (only !== 'jobs') {
        await pooled(Array.from({ length: per }), 4, render);
        results.sync.push(diff(a, await sample(cluster, admin, dbName, mine), per));
        await new Promise((res) => setTimeout(res, 2000));
      }
      if (only === 'sync') continue;
      a = await sample(cluster, admin, dbName, mine);
      const ids: string[] = [];
      await pooled(Array.from({ length: per }), 8, async () => {
        ids.push((await submitJob(api, key, { html, reference: `ovh-${r}` })).id);
      });
      let last = 0;
      for (;;) {
        const { rows: jr } = await own.query<{ open: string; last: string }>(
          `select count(*) filter (where status in ('queued', 'running')) as open, max(finished_at) as last from render_jobs where id = any($1)`,
          [ids],
        );
        if (Number(jr[0]!.open) === 0) {
          last = Number(jr[0]!.last);
          break;
        }
        await new Promise((res) => setTimeout(res, 50));
      }
      const b = await sample(cluster, admin, dbName, mine);
      // The last job's end, read from its row (the poll above comes up to 50 ms later).
      b.at = last;
      const d = diff(a, b, per);
      const { rows: tl } = await own.query<{ created_at: string; started_at: string; finished_at: string }>(
        'select created_at, started_at, finished_at from render_jobs where id = any($1)',
        [ids],
      );
      spans.push(tl.map((t) => Number(t.started_at) - Number(t.created_at)));
      results.jobs.push(d);
      await new Promise((res) => setTimeout(res, 2000));
    }
    for (const kind of ['sync', 'jobs'] as const) {
      const list = results[kind];
      if (list.length === 0) continue;
      const med = (k: keyof ReturnType<typeof diff>) => median(list.map((x) => x[k]));
      process.stdout.write(
        `${kind}: per PDF CPU ms node ${fmt(med('node'), 1, 0)}, chromium ${fmt(med('chromium'), 1, 0)}, s3 ${fmt(med('s3'), 1, 0)}, ` +
          `redis ${fmt(med('redis'), 1, 0)}, driver ${fmt(med('self'), 1, 0)}, pg ${fmt(med('pg'), 1, 0)}; render ${fmt(med('renderMs'), 1, 0)} ms, slots busy ${fmt(med('busy') * 100, 1, 0)}% ` +
          `(rounds ${list.map((x) => (x.busy * 100).toFixed(0)).join(', ')}), wall/PDF ${fmt(med('wallPerPdf'), 1, 0)} ms\n`,
      );
    }
    process.stdout.write(`jobs: submit→claimed median ${fmt(median(spans.flat().length ? spans.flat() : [0]), 0, 0)} ms\n`);
    process.stdout.write(`load ${fs.readFileSync('/proc/loadavg', 'utf8')}`);
  } finally {
    await admin.end();
    await own.end();
    await cluster.close();
  }
}
