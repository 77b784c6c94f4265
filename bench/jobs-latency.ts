/**
 * Submit-to-running on an idle queue: the time from a job's `created_at` to its `started_at` (both
 * written by the service, epoch ms in the queue of record), with Redis waking the workers and
 * without (the workers' store poll alone).
 *
 * The API runs in this process with its own job worker held (`startJobWorker: false`), so every job
 * is claimed by a separate `render-worker` process, as with API instances and workers on other
 * machines. (A `serve --services render` process also works jobs and wakes its own worker in
 * process, which would hide the cross-process path being measured.)
 */

import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { closeCore, createCore } from '../src/app/core.js';
import { buildRenderApp } from '../src/app/render-app.js';
import { loadConfig } from '../src/config.js';
import { sleep } from '../test/scale/backends.js';
import { JobsCluster } from '../test/scale/jobs-cluster.js';
import { fmt, heading, median, quantile, verdict } from './stats.js';

const SAMPLES = 25;

/** Measures one configuration; returns the submit-to-running delays in ms. */
async function measure(databaseUrl: string, redis: boolean): Promise<number[]> {
  const cluster = await JobsCluster.start(databaseUrl, { apis: 0, workers: 1, redis });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-bench-jobs-'));
  const core = await createCore(loadConfig({ ...cluster.env(), PAGEWORKS_DATA_DIR: dataDir }), pino({ level: 'warn' }));
  const app = await buildRenderApp(core, { startJobWorker: false });
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const { key } = await cluster.account(redis ? 'with-redis' : 'without-redis');
    const delays: number[] = [];
    for (let i = 0; i < SAMPLES + 2; i++) {
      // A pause of random length, so submits fall at every phase of the workers' store poll.
      await sleep(200 + Math.random() * 1000);
      const res = await fetch(`${base}/v1/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ html: '<p>idle</p>' }),
      });
      const { id } = (await res.json()) as { id: string };
      if (res.status !== 202) throw new Error(`POST /v1/jobs answered ${res.status}`);
      await cluster.waitFinal([id], 60_000);
      const [row] = await cluster.db.query<{ created_at: string; started_at: string }>(
        'select created_at, started_at from render_jobs where id = $1',
        [id],
      );
      // The first two warm the worker's page and connections.
      if (i >= 2) delays.push(Number(row!.started_at) - Number(row!.created_at));
    }
    return delays;
  } finally {
    await app.close();
    await closeCore(core);
    fs.rmSync(dataDir, { recursive: true, force: true });
    await cluster.close();
  }
}

/** Runs both configurations and prints their medians against the goals. */
export async function runSubmitToRunning(databaseUrl: string): Promise<void> {
  heading('submit-to-running on an idle queue: API in this process, 1 render-worker process');
  const withRedis = await measure(databaseUrl, true);
  const without = await measure(databaseUrl, false);
  const line = (name: string, d: number[]) =>
    `${name.padEnd(14)} p50 ${fmt(median(d), 0, 5)} ms  p95 ${fmt(quantile(d, 0.95), 0, 5)} ms  max ${fmt(Math.max(...d), 0, 5)} ms  (${d.length} jobs)\n`;
  process.stdout.write(
    line('with Redis', withRedis) +
      line('without Redis', without) +
      `goal: p50 ≤ 50 ms with Redis: ${verdict(median(withRedis) <= 50)}; ≤ 250 ms without: ${verdict(median(without) <= 250)}\n`,
  );
}
