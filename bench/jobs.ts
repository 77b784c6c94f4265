/**
 * Render jobs bench (`npm run bench -- jobs`), on loopback with PostgreSQL (a fresh database), a
 * private redis-server and s3rver, each part bounded in count and time:
 *   1. the burst scenario: 2 API + 3 worker processes, JOBS_BENCH_N (1,000) jobs from 3 accounts
 *      (one sends 90%), the receiver down for 60 s then failing 20%, 2 SIGKILLs, a Redis restart;
 *   2. job throughput ÷ sync `/v1/render` throughput on one render instance, same document, per store
 *      (bench/jobs-throughput.ts: PostgreSQL and the embedded SQLite store; the only part without PostgreSQL);
 *   3. submit-to-running on an idle queue, with Redis and without (bench/jobs-latency.ts);
 *   4. Node RSS over JOBS_BENCH_RSS_N (10 × JOBS_BENCH_N: 10,000) jobs, sampled every tenth;
 *   5. another account's sync render p50 during a 300-job burst against idle (bench/jobs-interactive.ts).
 * JOBS_BENCH_N=100 makes a quick run; JOBS_BENCH_PARTS (scenario,throughput,latency,rss,interactive) picks parts.
 */
import { JobsCluster, submitJob } from '../test/scale/jobs-cluster.js';
import { awaitWebhooks, checkDownloads, doneAfterS, pooled, runBurst, worstWaitS } from '../test/scale/jobs-scenario.js';
import { runInteractiveUnderBurst } from './jobs-interactive.js';
import { runSubmitToRunning } from './jobs-latency.js';
import { runJobsThroughput } from './jobs-throughput.js';
import { benchDatabaseUrl } from './scale.js';
import { fmt, heading } from './stats.js';

const N = Math.max(20, Number(process.env.JOBS_BENCH_N ?? 1000));
const RSS_N = Math.max(100, Number(process.env.JOBS_BENCH_RSS_N ?? N * 10));
/** The scenario's webhook back-off runs at this share of 5 s, 5 min, 30 min, … so the bench ends. */
const RETRY_SCALE = '0.01';
const SMALL_DOC = '<!doctype html><p>receipt</p>';

/** An invoice of 40 rows, the document both paths of the throughput comparison print. */
function invoice(): string {
  const rows = Array.from({ length: 40 }, (_, i) => `<tr><td>Item ${i + 1}</td><td>${(i * 7.25).toFixed(2)} €</td></tr>`).join(
    '',
  );
  return `<!doctype html><html><head><style>body{font:12px sans-serif}td{border-bottom:1px solid #ccc;padding:4px}</style></head><body><h1>Invoice 2026-0042</h1><table>${rows}</table></body></html>`;
}

const log = (line: string) => process.stdout.write(`  ${line}\n`);

/** Part 1: the burst with every fault, and the small accounts' completion against the drain. */
async function scenario(databaseUrl: string): Promise<void> {
  heading(`render jobs: ${N} jobs, 2 API + 3 workers, receiver down 60 s then 20% 500s, 2 SIGKILLs, Redis restart`);
  const cluster = await JobsCluster.start(databaseUrl, { apis: 2, workers: 3, env: { WEBHOOK_RETRY_SCALE: RETRY_SCALE } });
  try {
    const accounts = [await cluster.account('big'), await cluster.account('small-a'), await cluster.account('small-b')];
    const result = await runBurst(cluster, {
      accounts: [accounts[0]!, accounts[1]!, accounts[2]!],
      total: N,
      bigShare: 0.9,
      html: invoice(),
      webhooks: true,
      receiverDownMs: 60_000,
      failEvery: 5,
      killsAt: [0.3, 0.65],
      redisRestartAt: 0.45,
      timeoutMs: 30 * 60_000,
      log,
    });
    const failed = result.jobs.filter((j) => j.job.status !== 'succeeded');
    const downloads = await checkDownloads(cluster, result.jobs);
    const webhooks = await awaitWebhooks(cluster, result.jobs, 10 * 60_000);
    const big = result.jobs.filter((j) => j.account.label === 'big');
    const small = result.jobs.filter((j) => j.account.label !== 'big');
    const drain = doneAfterS(result, big);
    const smallDone = doneAfterS(result, small);
    const smallFrom = (Math.min(...small.map((j) => Date.parse(j.job.created_at))) - result.startedAt) / 1000;
    const lastHook = Math.max(...cluster.receiver.deliveries.map((d) => d.at));
    process.stdout.write(
      `jobs: ${result.jobs.length - failed.length}/${N} succeeded${failed.length ? ` (NOT: ${failed.length})` : ''}, ` +
        `${result.jobs.filter((j) => j.job.attempts > 1).length} taken again after a SIGKILL, Chromium orphans ${result.orphans.length}\n` +
        `downloads from both API instances: ${downloads.length === 0 ? 'all ok' : `${downloads.length} problems, e.g. ${downloads[0]}`}\n` +
        `webhooks: ${webhooks.delivered}/${N} delivered and verified, ${webhooks.unverified} unverified, ` +
        `${webhooks.attempts} attempts (${webhooks.failedAnswers} answered 500), ${webhooks.duplicates} jobs delivered twice, ` +
        `${webhooks.idMismatches.length} with differing webhook-ids; last delivery at t+${fmt((lastHook - result.startedAt) / 1000, 1, 0)} s ` +
        `(retry schedule × ${RETRY_SCALE})\n` +
        `small accounts' ${small.length} jobs (submitted from t+${fmt(smallFrom, 1, 0)} s, behind the ${big.length}) all done at ` +
        `t+${fmt(smallDone, 1, 0)} s; the burst drained at t+${fmt(drain, 1, 0)} s (${fmt((smallDone / drain) * 100, 1, 0)}% of the drain)\n` +
        `longest submit-to-finished wait: small accounts ${fmt(worstWaitS(small), 1, 0)} s, big account ${fmt(worstWaitS(big), 1, 0)} s\n` +
        `throughput over the burst: ${fmt(N / drain, 2, 0)} jobs/s\n`,
    );
  } finally {
    await cluster.close();
  }
}

/** Part 4: RSS of each Node process after every tenth of the jobs, and its slope. */
async function rss(databaseUrl: string): Promise<void> {
  const wave = Math.round(RSS_N / 10);
  const total = wave * 10;
  heading(`Node RSS over ${total} jobs (a one-line document, webhooks on), 1 API + 2 workers`);
  const cluster = await JobsCluster.start(databaseUrl, { apis: 1, workers: 2 });
  try {
    await cluster.receiver.up(0);
    const account = await cluster.account('rss');
    const names = ['api', 'worker 1', 'worker 2'];
    const samples: number[][] = [cluster.instances.map((i) => i.rssMb())];
    const started = Date.now();
    for (let w = 0; w < 10; w++) {
      const ids: string[] = [];
      await pooled(Array.from({ length: wave }), 8, async () => {
        const job = await submitJob(cluster.apis[0]!, account.key, {
          html: SMALL_DOC,
          webhook: { url: cluster.receiver.url('rss') },
        });
        ids.push(job.id);
      });
      await cluster.waitFinal(ids, 20 * 60_000);
      samples.push(cluster.instances.map((i) => i.rssMb()));
      log(
        `${(w + 1) * wave} jobs after ${fmt((Date.now() - started) / 1000, 0, 0)} s: RSS ${samples
          .at(-1)!
          .map((m) => `${m.toFixed(0)} MB`)
          .join(' / ')}`,
      );
    }
    process.stdout.write(
      `RSS in MB at 0, ${wave}, … ${total} jobs; slope over the last 9 samples (after warm-up), MB per 1,000 jobs\n`,
    );
    for (const [p, name] of names.entries()) {
      const series = samples.map((s) => s[p]!);
      const slope = leastSquaresSlope(series.slice(2)) * (1000 / wave);
      process.stdout.write(
        `${name.padEnd(9)} ${series.map((m) => m.toFixed(0)).join(' ')}  slope ${fmt(slope, 2, 0)} MB/1000 jobs\n`,
      );
    }
    process.stdout.write(`webhooks delivered: ${cluster.receiver.deliveries.filter((d) => d.status < 300).length}\n`);
  } finally {
    await cluster.close();
  }
}

/** The slope of a least-squares line through equally spaced values. */
function leastSquaresSlope(values: number[]): number {
  const n = values.length;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of values.entries()) {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Runs the jobs bench; without PostgreSQL, only the throughput on the embedded store (the rest skipped, loudly). */
export async function runJobsBench(): Promise<void> {
  const databaseUrl = await benchDatabaseUrl();
  const parts = (process.env.JOBS_BENCH_PARTS ?? 'scenario,throughput,latency,rss,interactive').split(',');
  if (!databaseUrl) {
    if (parts.includes('throughput')) await runJobsThroughput(undefined, invoice(), N);
    heading('render jobs');
    process.stdout.write('SKIPPED: set DATABASE_URL (or run PostgreSQL on 127.0.0.1) for the other parts of the jobs bench\n');
    return;
  }
  if (parts.includes('scenario')) await scenario(databaseUrl);
  if (parts.includes('throughput')) await runJobsThroughput(databaseUrl, invoice(), N);
  if (parts.includes('latency')) await runSubmitToRunning(databaseUrl);
  if (parts.includes('rss')) await rss(databaseUrl);
  if (parts.includes('interactive')) await runInteractiveUnderBurst(databaseUrl, invoice());
}
