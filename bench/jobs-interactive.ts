/**
 * Interactive first under a burst: one `render` instance at its default slots (RENDER_CONCURRENCY = the
 * CPUs, so jobs get one slot fewer), 300 jobs of one account queued at once, while another account
 * sends sync renders one after another. Their p50 is compared with the same renders on the idle
 * instance, measured before and after the burst so a machine whose other load drifts shows it
 * (goal: at most 1.6×). PDFs go to files under the data dir: the bench's S3 server would run
 * in this process, on the same cores as the renders, which a real S3 does not. RENDER_WORKER_CONCURRENCY
 * passes through, to compare with jobs on every slot (the behaviour before interactive first).
 */
import os from 'node:os';
import { JobsCluster, submitJob } from '../test/scale/jobs-cluster.js';
import { pooled } from '../test/scale/jobs-scenario.js';
import { fmt, heading, quantile, verdict } from './stats.js';

const BURST = 300;
const IDLE_SAMPLES = 40;
/** Most sync renders measured during the burst (it usually ends first). */
const MAX_BUSY_SAMPLES = 400;

/** Runs the part; `html` is the document both the jobs and the sync renders print. */
export async function runInteractiveUnderBurst(databaseUrl: string, html: string): Promise<void> {
  const cpus = Math.max(1, os.availableParallelism());
  heading(`interactive first: another account's sync renders during a ${BURST}-job burst, one render instance (${cpus} slots)`);
  const workerConcurrency = process.env.RENDER_WORKER_CONCURRENCY;
  const cluster = await JobsCluster.start(databaseUrl, {
    apis: 1,
    workers: 0,
    env: {
      RENDER_CONCURRENCY: String(cpus),
      RESULT_STORE: '',
      ...(workerConcurrency ? { RENDER_WORKER_CONCURRENCY: workerConcurrency } : {}),
    },
  });
  process.stdout.write(`job slots: ${workerConcurrency ?? `${Math.max(1, cpus - 1)} (default: RENDER_CONCURRENCY - 1)`}\n`);
  try {
    const api = cluster.apis[0]!;
    const burst = await cluster.account('burst');
    const interactive = await cluster.account('interactive');
    const render = async (): Promise<number> => {
      const started = performance.now();
      const res = await fetch(`${api.url}/v1/render`, {
        method: 'POST',
        headers: { authorization: `Bearer ${interactive.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ html }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`sync render answered ${res.status}`);
      return performance.now() - started;
    };
    for (let i = 0; i < 5; i++) await render(); // warm-up
    const before: number[] = [];
    for (let i = 0; i < IDLE_SAMPLES; i++) before.push(await render());

    const ids: string[] = [];
    const submitted = performance.now();
    await pooled(Array.from({ length: BURST }), 8, async () => {
      ids.push((await submitJob(api, burst.key, { html, reference: 'burst' })).id);
    });
    let drained = false;
    const finished = cluster.waitFinal(ids, 30 * 60_000).finally(() => (drained = true));
    const busy: number[] = [];
    while (!drained && busy.length < MAX_BUSY_SAMPLES) busy.push(await render());
    await finished;
    const drainS = (performance.now() - submitted) / 1000;
    const after: number[] = [];
    for (let i = 0; i < IDLE_SAMPLES; i++) after.push(await render());
    const idle = [...before, ...after];

    const p50Idle = quantile(idle, 0.5);
    const p50Busy = quantile(busy, 0.5);
    const ratio = p50Busy / p50Idle;
    process.stdout.write(
      `idle: ${idle.length} sync renders (before the burst p50 ${fmt(quantile(before, 0.5), 0, 0)} ms, after it ` +
        `${fmt(quantile(after, 0.5), 0, 0)} ms), p50 ${fmt(p50Idle, 0, 0)} ms, p95 ${fmt(quantile(idle, 0.95), 0, 0)} ms\n` +
        `during the burst (${BURST} jobs drained in ${fmt(drainS, 1, 0)} s): ${busy.length} sync renders, ` +
        `p50 ${fmt(p50Busy, 0, 0)} ms, p95 ${fmt(quantile(busy, 0.95), 0, 0)} ms\n` +
        `goal: sync p50 during the burst ≤ 1.6 × idle: ${fmt(ratio, 2, 0)}× — ${verdict(ratio <= 1.6)}\n`,
    );
  } finally {
    await cluster.close();
  }
}
