/**
 * The job queue over both store backends (SQLite always, PostgreSQL when DATABASE_URL is set):
 * idempotency races, the 24-hour key window, the per-account cap, account deletion.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/accounts/accounts.js';
import { RenderError } from '../../src/errors.js';
import { deleteJobsWithAccount } from '../../src/jobs/account-deletion.js';
import { IDEMPOTENCY_WINDOW_MS } from '../../src/jobs/idempotency-key.js';
import { JobQueue, pdfKey } from '../../src/jobs/queue.js';
import { FileResultStore } from '../../src/jobs/results/file-results.js';
import type { ActivityEntry, Store } from '../../src/store/store.js';
import { storeBackends } from '../helpers/store-backends.js';

const backends = storeBackends('jobqueue');
const submission = (html: string, idempotencyKey: string | null = null) => ({
  request: { html },
  reference: null,
  webhookUrl: null,
  idempotencyKey,
});

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`job queue: ${backend.name}`, () => {
    let store: Store;
    let results: FileResultStore;
    let dir: string;
    let clock = Date.now();
    let queue: JobQueue;
    let n = 0;
    const account = async () => {
      const id = `acc_q${++n}_${process.pid}`;
      await store.createAccount({ id, email: `${id}@example.com`, passwordHash: null, createdAt: clock });
      return id;
    };

    /** A worker renders the job now: its PDF is stored and kept `keepMs` (earlier tests' jobs, claimed first, end failed). */
    const succeed = async (id: string, keepMs: number) => {
      for (;;) {
        const row = await store.claimJob('w', clock, { leaseMs: 30_000, maxAttempts: 3 });
        if (!row) throw new Error(`job ${id} was not claimed`);
        if (row.id !== id) {
          await store.finishJob(row.id, 'w', clock, { error: { code: 'RENDER_FAILED', message: 'left over' } });
          continue;
        }
        await results.put(pdfKey(row), Buffer.from('%PDF-1.4'));
        const pdf = { key: pdfKey(row), bytes: 8, pages: 1, expiresAt: clock + keepMs, store: results.id };
        await store.finishJob(row.id, 'w', clock, { pdf });
        return;
      }
    };

    beforeAll(async () => {
      store = await backend.open();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-jobq-'));
      results = new FileResultStore(dir);
      queue = new JobQueue({ store, results, maxQueuedPerAccount: 3, now: () => clock });
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('20 concurrent submits with one Idempotency-Key give one job', async () => {
      const a = await account();
      const out = await Promise.all(Array.from({ length: 20 }, () => queue.submit(a, submission('<p>x</p>', 'race-1'))));
      expect(new Set(out.map((o) => o.row.id)).size).toBe(1);
      expect(out.filter((o) => !o.replayed)).toHaveLength(1);
      expect(await store.countQueuedJobs(a)).toBe(1);
    });

    it('refuses the key with another body, and frees it after 24 hours', async () => {
      const a = await account();
      const first = await queue.submit(a, submission('<p>1</p>', 'k'));
      const refused = await queue.submit(a, submission('<p>2</p>', 'k')).catch((e: RenderError) => e);
      expect(refused).toBeInstanceOf(RenderError);
      expect((refused as RenderError).code).toBe('IDEMPOTENCY_KEY_REUSED');
      clock += IDEMPOTENCY_WINDOW_MS - 1;
      expect((await queue.submit(a, submission('<p>1</p>', 'k'))).row.id).toBe(first.row.id);
      clock += 1;
      const later = await queue.submit(a, submission('<p>2</p>', 'k'));
      expect(later.replayed).toBe(false);
      expect(later.row.id).not.toBe(first.row.id);
    });

    it('caps queued jobs per account', async () => {
      const a = await account();
      for (let i = 0; i < 3; i++) await queue.submit(a, submission(`<p>${i}</p>`));
      const refused = await queue.submit(a, submission('<p>4</p>')).catch((e: RenderError) => e);
      expect((refused as RenderError).code).toBe('RATE_LIMITED');
      expect((refused as RenderError).status).toBe(429);
    });

    it('30 concurrent submits against a cap of 5 queue exactly 5; the others are 429 naming the cap', async () => {
      const a = await account();
      const capped = new JobQueue({ store, results, maxQueuedPerAccount: 5, now: () => clock });
      const out = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => capped.submit(a, submission(`<p>${i}</p>`))));
      expect(out.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
      const refusals = out.flatMap((o) => (o.status === 'rejected' ? [o.reason as RenderError] : []));
      expect(refusals).toHaveLength(25);
      for (const r of refusals) {
        expect(r.code).toBe('RATE_LIMITED');
        expect(r.message).toBe('5 render jobs of this account are queued already (at most 5); submit more as these finish');
      }
      expect(await store.countQueuedJobs(a)).toBe(5);
    });

    it('queued HTML is capped in bytes, exactly under concurrency: 2 of 6 concurrent 9 MiB jobs fit in 20 MiB', async () => {
      const a = await account();
      const mib = 1024 * 1024;
      const capped = new JobQueue({ store, results, maxQueuedPerAccount: 100, maxQueuedHtmlBytes: 20 * mib, now: () => clock });
      const nine = (i: number) => submission(`<p>${i}</p>${'x'.repeat(9 * mib - 8)}`);
      const out = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => capped.submit(a, nine(i))));
      expect(out.filter((o) => o.status === 'fulfilled')).toHaveLength(2);
      const refused = out.find((o) => o.status === 'rejected')?.reason as RenderError;
      expect(refused.status).toBe(429);
      expect(refused.message).toBe(
        "queued HTML limit: this account's queued render jobs hold 18.0 MiB of HTML, and this job's 9.0 MiB would pass the limit of 20 MiB; submit more as these finish",
      );
      // Small jobs still fit beside them, and a canceled job's bytes no longer count.
      await capped.submit(a, submission('<p>small</p>'));
      const first = out.find((o) => o.status === 'fulfilled') as PromiseFulfilledResult<{ row: { id: string } }>;
      await capped.cancel(a, first.value.row.id);
      expect((await capped.submit(a, nine(7))).replayed).toBe(false);
    });

    it('a finished job row is deleted RENDER_JOB_RETENTION_H + 7 days after it finished, not before', async () => {
      const a = await account();
      const retentionMs = 24 * 3600_000;
      const aging = new JobQueue({ store, results, maxQueuedPerAccount: 100, retentionMs, now: () => clock });
      const done = (await aging.submit(a, submission('<p>aged</p>', 'aged-key'))).row;
      await succeed(done.id, retentionMs);
      const finishedAt = clock;
      const waiting = (await aging.submit(a, submission('<p>still queued</p>'))).row;
      const keptUntil = finishedAt + retentionMs + 7 * 24 * 3600_000;
      try {
        clock = keptUntil - 60_000;
        expect(await aging.sweepExpired()).toBeGreaterThanOrEqual(1);
        expect(await aging.sweepFinishedRows()).toBe(0);
        expect((await aging.get(a, done.id)).pdf_key).toBeNull();
        clock = keptUntil;
        expect(await aging.sweepFinishedRows()).toBeGreaterThanOrEqual(1);
        await expect(aging.get(a, done.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
        // A job still waiting is never an aged row, however old.
        expect((await aging.get(a, waiting.id)).status).toBe('queued');
      } finally {
        clock = finishedAt;
      }
    });

    it('account deletion cancels its jobs and deletes its PDFs', async () => {
      const a = await account();
      const done = (await queue.submit(a, submission('<p>d</p>'))).row;
      await succeed(done.id, 1000);
      const queued = (await queue.submit(a, submission('<p>q</p>'))).row;
      const stored = await results.get(pdfKey(done));
      expect(stored).toBeDefined();
      // Closed again: a file handle left to the garbage collector is a DeprecationWarning on stderr.
      stored?.body.destroy();
      const accounts = new AccountService(store, { now: () => clock });
      deleteJobsWithAccount(accounts, { store, results });
      const tombstone: ActivityEntry = {
        id: `act_${a}`,
        accountId: a,
        at: clock,
        kind: 'account_deleted',
        actor: 'cli',
        ip: null,
        userAgent: null,
        detail: null,
      };
      expect(await accounts.delete(a, tombstone)).toBe(true);
      expect(await results.get(pdfKey(done))).toBeUndefined();
      expect(await store.findJob(queued.id)).toBeUndefined();
      expect(await store.findJob(done.id)).toBeUndefined();
    });
  });
}
