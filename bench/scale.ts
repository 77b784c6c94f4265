/**
 * Scale-out bench: throughput of one metadata instance against two, on the CI's PostgreSQL and
 * Redis (a fresh database), driven by autocannon. Two workloads: cached (one URL, every answer from
 * the shared Redis cache: auth + rate limit + cache, the API tier alone) and uncached (every request
 * fetches a loopback page). Rounds are interleaved and the median kept; bounded in time (about a
 * minute) and in count (`maxOverallRequests` caps each run).
 */
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import { type FreshDatabase, freshDatabase } from '../test/scale/backends.js';
import { Seeder, startTargetPage } from '../test/scale/cluster.js';
import { Instance } from '../test/scale/instances.js';
import { fmt, heading, median } from './stats.js';

const SECONDS = 5;
const ROUNDS = 2;
const CONNECTIONS = 16;
const MAX_REQUESTS_PER_RUN = 200_000;

/** The part of autocannon's result this bench reads. */
interface AutocannonResult {
  /** Seconds the run took (less than asked when the request cap ended it). */
  duration: number;
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  maxOverallRequests: number;
  headers: Record<string, string>;
  requests?: Array<{ setupRequest: (req: { path: string }) => { path: string } }>;
}) => Promise<AutocannonResult>;

// autocannon ships no type declarations; the interface above names the part used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

interface Run {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
}

let sequence = 0;

/** Loads every instance at once (connections split between them) and sums their throughput. */
async function load(instances: Instance[], path: string | (() => string), key: string): Promise<Run> {
  const per = Math.max(1, Math.floor(CONNECTIONS / instances.length));
  const results = await Promise.all(
    instances.map((i) =>
      autocannon({
        url: `${i.url}${typeof path === 'string' ? path : path()}`,
        connections: per,
        duration: SECONDS,
        maxOverallRequests: Math.floor(MAX_REQUESTS_PER_RUN / instances.length),
        headers: { 'x-api-key': key },
        ...(typeof path === 'string'
          ? {}
          : { requests: [{ setupRequest: (req: { path: string }) => ({ ...req, path: path() }) }] }),
      }),
    ),
  );
  return {
    rps: results.reduce((sum, r) => sum + r.requests.total / r.duration, 0),
    p50: median(results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    failed: results.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
  };
}

/** Without DATABASE_URL/REDIS_URL, the servers CI uses, when something listens on their ports. */
const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';
const LOCAL_REDIS = 'redis://127.0.0.1:6379';

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port, timeout: 500 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** DATABASE_URL, or CI's PostgreSQL when something listens on its port. */
export async function benchDatabaseUrl(): Promise<string | undefined> {
  return process.env.DATABASE_URL ?? ((await listening(5432)) ? LOCAL_POSTGRES : undefined);
}

/** Runs the scale-out bench and prints its table (skipped, loudly, without DATABASE_URL and REDIS_URL). */
export async function runScaleBench(): Promise<void> {
  heading('scale-out: one vs two metadata instances (PostgreSQL + Redis, autocannon)');
  const DATABASE_URL = await benchDatabaseUrl();
  const REDIS_URL = process.env.REDIS_URL ?? ((await listening(6379)) ? LOCAL_REDIS : undefined);
  if (!DATABASE_URL || !REDIS_URL) {
    process.stdout.write(
      'SKIPPED: set DATABASE_URL and REDIS_URL (or run PostgreSQL and Redis on 127.0.0.1) for the scale-out bench\n',
    );
    return;
  }
  process.stdout.write(`PostgreSQL ${DATABASE_URL} (a fresh database per run), Redis ${REDIS_URL}\n`);
  let db: FreshDatabase | undefined;
  const target = await startTargetPage();
  const instances: Instance[] = [];
  try {
    db = await freshDatabase(DATABASE_URL, 'pw_bench');
    const env = { DATABASE_URL: db.url, REDIS_URL, EGRESS_ALLOW: '127.0.0.1/32', LOG_LEVEL: 'warn' };
    instances.push(...(await Promise.all([Instance.start('metadata', env), Instance.start('metadata', env)])));
    const seeder = await Seeder.open(db.url);
    const { key } = await seeder.key('metadata', 1_000_000);
    await seeder.close();

    const cachedPath = `/v1/fetch?url=${encodeURIComponent(target.url)}`;
    // A query string the target ignores makes every URL distinct: no cache hit, a real fetch each time.
    const uncachedPath = () => `/v1/fetch?url=${encodeURIComponent(`${target.url}?n=${++sequence}`)}`;
    const workloads = [
      { name: 'cached (Redis cache hit)', path: cachedPath },
      { name: 'uncached (loopback fetch)', path: uncachedPath },
    ];
    await load(instances, cachedPath, key); // warm-up: JIT, pools, the cache entry
    const rows: string[] = [];
    for (const w of workloads) {
      const one: Run[] = [];
      const two: Run[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        one.push(await load(instances.slice(0, 1), w.path, key));
        two.push(await load(instances, w.path, key));
      }
      const a = median(one.map((r) => r.rps));
      const b = median(two.map((r) => r.rps));
      const failed = [...one, ...two].reduce((s, r) => s + r.failed, 0);
      rows.push(
        `${w.name.padEnd(27)} ${fmt(a, 0)} ${fmt(b, 0)} ${fmt(b / a, 2, 7)}  ` +
          `${fmt(median(one.map((r) => r.p50)), 0, 5)}/${fmt(median(two.map((r) => r.p50)), 0, 4)}  ${failed}`,
      );
    }
    process.stdout.write(
      `${CONNECTIONS} connections in all, ${SECONDS} s per run, ${ROUNDS} interleaved rounds, medians\n` +
        `${'workload'.padEnd(27)} ${'1 inst/s'.padStart(9)} ${'2 inst/s'.padStart(9)} ${'ratio'.padStart(7)}  p50 ms 1/2  non-2xx\n` +
        `${rows.join('\n')}\n` +
        `NOTE: this machine has ${os.availableParallelism()} cores (1-min load average ${os.loadavg()[0]!.toFixed(1)} at the end), shared by\n` +
        'both instances, PostgreSQL, Redis, the target page and the load generator: the ratio shows how far\n' +
        'two instances get on the same cores, not the scaling on separate machines (there each instance\n' +
        'brings its own cores; see docs/deploy.md).\n',
    );
  } finally {
    await Promise.all(instances.map((i) => i.stop()));
    await target.close();
    await db?.drop();
  }
}
