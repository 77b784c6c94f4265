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
import { IDEMPOTENCY_WINDOW_MS, JobQueue, pdfKey } from '../../src/jobs/queue.js';
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

    it('account deletion cancels its jobs and deletes its PDFs', async () => {
      const a = await account();
      const done = (await queue.submit(a, submission('<p>d</p>'))).row;
      // A worker finishes it (earlier tests' jobs, claimed first, end failed).
      for (;;) {
        const row = await store.claimJob('w', clock, 30_000, 3);
        if (!row) throw new Error('the job was not claimed');
        if (row.id !== done.id) {
          await store.finishJob(row.id, 'w', clock, { error: { code: 'RENDER_FAILED', message: 'left over' } });
          continue;
        }
        await results.put(pdfKey(row), Buffer.from('%PDF-1.4'));
        await store.finishJob(row.id, 'w', clock, { pdf: { key: pdfKey(row), bytes: 8, pages: 1, expiresAt: clock + 1000 } });
        break;
      }
      const queued = (await queue.submit(a, submission('<p>q</p>'))).row;
      expect(await results.get(pdfKey(done))).toBeDefined();
      const accounts = new AccountService(store, () => clock, results);
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
