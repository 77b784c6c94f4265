/**
 * The burst scenario of the render-jobs scale suite and bench: one account sends most of a burst,
 * two small accounts send the rest right after it; meanwhile workers are SIGKILLed mid-render,
 * Redis restarts, and the webhook receiver is down, then fails a share of deliveries. The result
 * holds every job's final object and the figures; the checks below read them as a user would.
 */
import { sleep } from './backends.js';
import {
  downloadPdf,
  getJob,
  type JobObject,
  type JobsAccount,
  type JobsCluster,
  statusCounts,
  submitJob,
} from './jobs-cluster.js';

/** What happens during the burst. */
export interface BurstOptions {
  /** The account sending `bigShare` of the jobs, then the two small ones. */
  accounts: [JobsAccount, JobsAccount, JobsAccount];
  total: number;
  bigShare: number;
  html: string;
  /** Ask for a webhook per job (to the cluster's receiver). */
  webhooks: boolean;
  /** The receiver's port stays closed this long after the burst starts. */
  receiverDownMs: number;
  /** Once up, every n-th delivery is answered 500 (5: 20%). */
  failEvery: number;
  /** Shares of finished jobs at which a worker is SIGKILLed (and restarted). */
  killsAt: number[];
  /** Share of finished jobs at which Redis is stopped for a second and started again. */
  redisRestartAt?: number;
  /** Cap on the whole burst. */
  timeoutMs: number;
  /** Progress lines. */
  log: (line: string) => void;
}

/** One submitted job, final. */
export interface BurstJob {
  account: JobsAccount;
  job: JobObject;
}

/** What came out of a burst. */
export interface BurstResult {
  jobs: BurstJob[];
  /** Date.now() when the first job was submitted. */
  startedAt: number;
  /** Whether every job reached a final status before the cap. */
  settled: boolean;
  /** Chromium processes that outlived a SIGKILLed worker (killed by the harness). */
  orphans: number[];
  /** SIGKILLs that hit a worker with a render in flight. */
  killedMidRender: number;
  /** Faults that never ran because the jobs were all done first. */
  faultsLeft: number;
  /** The timeline of the faults, "t+12.3 s SIGKILL worker 0". */
  events: string[];
}

/** Runs `tasks` with at most `limit` at a time. */
export async function pooled<T>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      await task(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** Submits the burst, drives the faults by progress, and returns every job's final object. */
export async function runBurst(cluster: JobsCluster, o: BurstOptions): Promise<BurstResult> {
  const [big, ...small] = o.accounts;
  const bigCount = Math.round(o.total * o.bigShare);
  const plan: JobsAccount[] = [
    ...Array.from({ length: bigCount }, () => big),
    ...Array.from({ length: o.total - bigCount }, (_, i) => small[i % small.length]!),
  ];
  const events: string[] = [];
  const startedAt = Date.now();
  const note = (what: string) => {
    const line = `t+${((Date.now() - startedAt) / 1000).toFixed(1)} s ${what}`;
    events.push(line);
    o.log(line);
  };
  const receiverUp = setTimeout(() => {
    cluster.receiver.up(o.failEvery).then(
      () => note(`webhook receiver up (every ${o.failEvery}th delivery answered 500)`),
      (err: Error) => note(`webhook receiver could not start: ${err.message}`),
    );
  }, o.receiverDownMs);

  const submitted: Array<{ account: JobsAccount; id: string }> = [];
  // The big account's jobs first (in submission order), then the small accounts' right behind them.
  await pooled(plan, 8, async (account, i) => {
    const api = cluster.apis[i % cluster.apis.length]!;
    const job = await submitJob(api, account.key, {
      html: o.html,
      reference: `${account.label}-${i}`,
      ...(o.webhooks ? { webhook: { url: cluster.receiver.url(account.label) } } : {}),
    });
    submitted[i] = { account, id: job.id };
  });
  note(`${o.total} jobs submitted (${bigCount} from ${big.label})`);

  const orphans: number[] = [];
  let killedMidRender = 0;
  const pending = [
    ...o.killsAt.map((at, n) => ({
      at,
      run: async () => {
        const index = n % cluster.workers.length;
        note(`SIGKILL worker ${index} (when it has a render in flight)`);
        const kill = await cluster.killWorker(index);
        orphans.push(...kill.orphans);
        if (kill.midRender) killedMidRender++;
        note(`worker ${index} restarted (it was ${kill.midRender ? '' : 'NOT '}rendering when killed)`);
      },
    })),
    ...(o.redisRestartAt === undefined || !cluster.redis
      ? []
      : [
          {
            at: o.redisRestartAt,
            run: async () => {
              note('Redis stopped');
              await cluster.redis!.stop();
              await sleep(1000);
              await cluster.redis!.resume();
              note('Redis started again');
            },
          },
        ]),
  ].sort((a, b) => a.at - b.at);

  // Faults run beside the progress loop (a worker restart takes seconds), and are all awaited before the end.
  const running: Array<Promise<void>> = [];
  let settled = false;
  while (Date.now() - startedAt < o.timeoutMs) {
    const counts = await statusCounts(cluster.db).catch(() => ({}) as Record<string, number>);
    const final = (counts.succeeded ?? 0) + (counts.failed ?? 0) + (counts.canceled ?? 0);
    if (final >= o.total) {
      settled = true;
      break;
    }
    while (pending[0] && final >= pending[0].at * o.total) running.push(pending.shift()!.run());
    await sleep(250);
  }
  note(settled ? 'every job final' : `timed out with jobs still open: ${JSON.stringify(await statusCounts(cluster.db))}`);
  await Promise.all(running);
  clearTimeout(receiverUp);
  if (o.webhooks) await cluster.receiver.up(o.failEvery);

  const jobs: BurstJob[] = [];
  await pooled(submitted, 8, async ({ account, id }, i) => {
    jobs[i] = { account, job: await getJob(cluster.apis[i % cluster.apis.length]!, account.key, id) };
  });
  return { jobs, startedAt, settled, orphans, killedMidRender, faultsLeft: pending.length, events };
}

/** Seconds from the burst's start until the last of `jobs` finished. */
export function doneAfterS(result: BurstResult, jobs: BurstJob[]): number {
  const last = Math.max(...jobs.map((j) => Date.parse(j.job.finished_at ?? 'invalid')));
  return (last - result.startedAt) / 1000;
}

/** The longest any of `jobs` took from its submission (created_at) to finished_at, in seconds. */
export function worstWaitS(jobs: BurstJob[]): number {
  return Math.max(...jobs.map((j) => Date.parse(j.job.finished_at ?? 'invalid') - Date.parse(j.job.created_at))) / 1000;
}

/**
 * Downloads every job's PDF from every API instance; returns what went wrong (empty: each answered
 * 200 application/pdf with the job's byte count, the same bytes from each).
 */
export async function checkDownloads(cluster: JobsCluster, jobs: BurstJob[]): Promise<string[]> {
  const problems: string[] = [];
  await pooled(jobs, 8, async ({ account, job }) => {
    const copies: Buffer[] = [];
    for (const api of cluster.apis) {
      const pdf = await downloadPdf(api, account.key, job.id);
      copies.push(pdf.bytes);
      const ok = pdf.status === 200 && pdf.type === 'application/pdf' && pdf.bytes.subarray(0, 5).toString() === '%PDF-';
      if (!ok || pdf.bytes.length !== job.pdf?.bytes) {
        problems.push(
          `${job.id} from ${api.url}: ${pdf.status} ${pdf.type} ${pdf.bytes.length} bytes (job says ${job.pdf?.bytes})`,
        );
      }
    }
    if (copies.some((c) => !c.equals(copies[0]!))) problems.push(`${job.id}: the instances served different bytes`);
  });
  return problems;
}

/** What the receiver saw of the burst's webhooks. */
export interface WebhookReport {
  /** Jobs with a 2xx-answered, verified `job.succeeded` delivery about them. */
  delivered: number;
  /** Jobs with none (yet). */
  missing: string[];
  /** Deliveries whose signature did not verify with the account's secret. */
  unverified: number;
  /** Jobs whose deliveries carried more than one `webhook-id`. */
  idMismatches: string[];
  /** Deliveries in all, answered 500, and jobs delivered (2xx) more than once. */
  attempts: number;
  failedAnswers: number;
  duplicates: number;
}

/** Reads the receiver's log against the jobs. */
export function webhookReport(cluster: JobsCluster, jobs: BurstJob[]): WebhookReport {
  const byJob = new Map<string, typeof cluster.receiver.deliveries>();
  for (const d of cluster.receiver.deliveries) {
    const id = d.event?.data.id;
    if (id) byJob.set(id, [...(byJob.get(id) ?? []), d]);
  }
  const report: WebhookReport = {
    delivered: 0,
    missing: [],
    unverified: cluster.receiver.deliveries.filter((d) => d.event === null).length,
    idMismatches: [],
    attempts: cluster.receiver.deliveries.length,
    failedAnswers: cluster.receiver.deliveries.filter((d) => d.status >= 500).length,
    duplicates: 0,
  };
  for (const { account, job } of jobs) {
    const seen = byJob.get(job.id) ?? [];
    const ok = seen.filter((d) => d.status < 300 && d.label === account.label && d.event?.type === 'job.succeeded');
    if (ok.length === 0) report.missing.push(job.id);
    else report.delivered++;
    if (ok.length > 1) report.duplicates++;
    if (new Set(seen.map((d) => d.webhookId)).size > 1) report.idMismatches.push(job.id);
  }
  return report;
}

/** Waits until every job's webhook was delivered or `timeoutMs` passes; returns the last report. */
export async function awaitWebhooks(cluster: JobsCluster, jobs: BurstJob[], timeoutMs: number): Promise<WebhookReport> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const report = webhookReport(cluster, jobs);
    if (report.missing.length === 0 || Date.now() > until) return report;
    await sleep(500);
  }
}

/** For a failure message: the outbox columns and the receiver's log of jobs whose webhook is missing. */
export async function webhookDiagnosis(cluster: JobsCluster, ids: string[]): Promise<unknown[]> {
  const rows = await cluster.db.query(
    `select id, finished_at, webhook_state, webhook_attempts, webhook_next_at, webhook_lease_expires_at
       from render_jobs where id = any($1)`,
    [ids],
  );
  return rows.map((row) => ({
    ...row,
    now: Date.now(),
    seen: cluster.receiver.deliveries
      .filter((d) => d.event?.data.id === row.id)
      .map((d) => ({ at: d.at, status: d.status, id: d.webhookId })),
  }));
}
