/**
 * The render jobs of the soak (bench/soak.ts): JOBS_C callers each submit a job with a webhook and
 * wait for its `job.succeeded` event before the next, so jobs run beside the sync renders for the
 * whole soak. Every delivery is verified on receipt with `standardwebhooks` (the account's secret from
 * `pageworks webhooks secret`, as an operator gets it). SOAK_JOB_ROWS=delete deletes the final job rows
 * (and their delivery log) every sample, to tell a leak from the jobs table growing.
 */

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { Pool } from 'undici';
import { openSqliteFile } from '../src/store/sqlite-driver.js';
import { WebhookReceiver } from '../test/scale/webhook-receiver.js';

/** How long a job may take from submit to its verified webhook before it counts as lost. */
export const JOB_WAIT_S = 120;

/** What the job callers have seen so far. */
export interface JobTally {
  submitted: number;
  /** Final `succeeded`, announced by a webhook that verified. */
  succeeded: number;
  /** Final, but not `succeeded` (the event's job object says why). */
  failed: number;
  /** Refused at submit (status other than 202). */
  refused: number;
  /** No verified webhook within the wait (JOB_WAIT_S unless the load was started with another). */
  lost: number;
  /** Deliveries whose signature did not verify. */
  unverified: number;
  /** Rows deleted by SOAK_JOB_ROWS=delete. */
  rowsDeleted: number;
}

/** The running job load: `tally` moves as jobs finish; `prune()` runs once per sample; `close()` when done. */
export interface JobLoad {
  tally: JobTally;
  callers: Array<Promise<void>>;
  prune(): void;
  close(): Promise<void>;
}

/** The one-line document the jobs print: the job path's costs, not Chromium's, are what this part soaks. */
const jobDocument = (n: number) => `<!doctype html><p style="font:14px sans-serif">soak job ${n}</p>`;

/** Starts `concurrency` job callers against the service until `deadline`. */
export async function startJobLoad(opts: {
  root: string;
  dataDir: string;
  pool: Pool;
  renderKey: string;
  concurrency: number;
  deadline: number;
  /** The account whose key `renderKey` is (its webhook secret signs the deliveries); default the first-start one. */
  email?: string;
  /** Stop submitting once this returns true (a bound on the run's size besides the deadline). */
  enough?: () => boolean;
  /** How long a job may take to its webhook before it counts as lost (default JOB_WAIT_S). */
  waitS?: number;
}): Promise<JobLoad> {
  const waitMs = (opts.waitS ?? JOB_WAIT_S) * 1000;
  const secret = spawnSync(
    process.execPath,
    [path.join(opts.root, 'dist/cli.js'), 'webhooks', 'secret', '--email', opts.email ?? 'local@pageworks.localhost'],
    {
      env: { ...process.env, PAGEWORKS_DATA_DIR: opts.dataDir, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    },
  ).stdout.trim();
  if (!secret.startsWith('whsec_')) throw new Error('pageworks webhooks secret printed no whsec_ secret');
  const receiver = await WebhookReceiver.create();
  receiver.trust('soak', secret);
  await receiver.up(0);
  const tally: JobTally = { submitted: 0, succeeded: 0, failed: 0, refused: 0, lost: 0, unverified: 0, rowsDeleted: 0 };
  const waiting = new Map<string, (status: string) => void>();
  let seen = 0;
  // Settles the callers' waits from the receiver's log of deliveries.
  const settle = setInterval(() => {
    for (; seen < receiver.deliveries.length; seen++) {
      const d = receiver.deliveries[seen]!;
      if (!d.event) {
        tally.unverified += 1;
        continue;
      }
      waiting.get(d.event.data.id)?.(d.event.data.status);
    }
    // The receiver keeps every delivery; the soak only needs the ones it has not read.
    receiver.deliveries.splice(0, seen);
    seen = 0;
  }, 50);
  let n = 0;
  const caller = async () => {
    while (Date.now() < opts.deadline && !opts.enough?.()) {
      const res = await opts.pool.request({
        method: 'POST',
        path: '/v1/jobs',
        headers: { authorization: `Bearer ${opts.renderKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ html: jobDocument(n++), webhook: { url: receiver.url('soak') } }),
      });
      const body = await res.body.text();
      if (res.statusCode !== 202) {
        tally.refused += 1;
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      tally.submitted += 1;
      const id = (JSON.parse(body) as { id: string }).id;
      const status = await new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve('lost'), waitMs);
        waiting.set(id, (s) => {
          clearTimeout(timer);
          resolve(s);
        });
      });
      waiting.delete(id);
      if (status === 'succeeded') tally.succeeded += 1;
      else if (status === 'lost') tally.lost += 1;
      else tally.failed += 1;
    }
  };
  const db = process.env.SOAK_JOB_ROWS === 'delete' ? openSqliteFile(path.join(opts.dataDir, 'pageworks.sqlite')) : undefined;
  db?.exec('pragma busy_timeout = 5000');
  return {
    tally,
    callers: Array.from({ length: opts.concurrency }, caller),
    prune() {
      if (!db) return;
      const jobs = db
        .prepare(`delete from render_jobs where status in ('succeeded', 'failed', 'canceled') and webhook_state = 'delivered'`)
        .run([]);
      const deliveries = db.prepare(`delete from webhook_deliveries where job_id not in (select id from render_jobs)`).run([]);
      tally.rowsDeleted += Number(jobs.changes) + Number(deliveries.changes);
    },
    async close() {
      clearInterval(settle);
      db?.close();
      await receiver.down();
    },
  };
}
