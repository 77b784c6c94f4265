/**
 * One run of bench/jobs-rows.ts in a fresh process: JOBS_ROWS_N job lifecycles on a new embedded store
 * (the statements the service runs per job: capped insert, claim, finish with a PDF, webhook claimed,
 * settled and logged), no Chromium. `keep` leaves the rows as the service does for 7 days; `delete`
 * runs the retention sweeps as if that time had passed, every sample. Prints one JSON line per sample.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JobQueue } from '../src/jobs/queue.js';
import { FileResultStore } from '../src/jobs/results/file-results.js';
import { openSqliteStore } from '../src/store/sqlite.js';

const mode = process.argv[2] === 'delete' ? 'delete' : 'keep';
const total = Number(process.argv[3] ?? 20_000);
const every = Math.max(1, Math.round(total / 20));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-jobs-rows-'));
const store = await openSqliteStore(dir);
const results = new FileResultStore(path.join(dir, 'results'));
const later = new JobQueue({ store, results, maxQueuedPerAccount: 10, now: () => Date.now() + 40 * 24 * 3600_000 });
const accountId = 'acc_rows';
await store.createAccount({ id: accountId, email: 'rows@example.com', passwordHash: null, createdAt: Date.now() });
const gc = (globalThis as { gc?: () => void }).gc;
const sample = (jobs: number) => {
  gc?.();
  const size = (f: string) => fs.statSync(path.join(dir, f), { throwIfNoEntry: false })?.size ?? 0;
  const { rss, heapUsed } = process.memoryUsage();
  process.stdout.write(
    `${JSON.stringify({ jobs, rssMb: rss / 1048576, heapMb: heapUsed / 1048576, dbMb: (size('pageworks.sqlite') + size('pageworks.sqlite-wal')) / 1048576 })}\n`,
  );
};
sample(0);
for (let i = 1; i <= total; i++) {
  const now = Date.now();
  const id = `job_${i.toString(16).padStart(32, '0')}`;
  const html = `<!doctype html><p>soak job ${i}</p>`;
  await store.insertJobWithinCaps(
    {
      id,
      accountId,
      request: JSON.stringify({ html, output: 'pdf', options: {} }),
      reference: `ref-${i}`,
      idempotencyKey: `key-${i}`,
      requestHash: 'h'.repeat(64),
      webhookUrl: 'http://127.0.0.1:9/hook/soak',
      createdAt: now,
      htmlBytes: html.length,
    },
    { jobs: 10, htmlBytes: 1 << 30 },
  );
  const row = await store.claimJob('w', now, { leaseMs: 30_000, maxAttempts: 3 });
  if (row?.id !== id) throw new Error(`claimed ${row?.id}, expected ${id}`);
  await store.finishJob(id, 'w', now, {
    pdf: { key: `${accountId}/${id}.pdf`, bytes: 9000, pages: 1, expiresAt: now + 1, store: results.id },
  });
  const due = await store.claimDueWebhooks(now, now + 10_000, 10, 10);
  for (const job of due) {
    await store.insertWebhookDelivery({
      id: `whd_${job.id.slice(4)}`,
      jobId: job.id,
      accountId,
      webhookId: `msg_${job.id.slice(4)}`,
      attempt: 1,
      statusCode: 204,
      error: null,
      durationMs: 3,
      createdAt: now,
    });
    await store.settleWebhook(job.id, { state: 'delivered', attempts: 1, nextAt: null }, now);
  }
  if (i % every === 0) {
    if (mode === 'delete') {
      await later.sweepExpired();
      await later.sweepFinishedRows();
      await store.purgeWebhookDeliveries(Date.now() + 1);
    }
    sample(i);
  }
}
await store.close();
fs.rmSync(dir, { recursive: true, force: true });
