import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NewRenderJob, Store } from '../../src/store/store.js';
import { storeBackends } from '../helpers/store-backends.js';

// The render job queue's store contract, run against both adapters like store-contract.test.ts.

const backends = storeBackends('jobs');
const t0 = 1_700_000_000_000;
let seq = 0;

function job(accountId: string, createdAt: number, extra: Partial<NewRenderJob> = {}): NewRenderJob {
  seq += 1;
  return {
    id: `job_${String(seq).padStart(32, '0')}`,
    accountId,
    request: '{"html":"<p>x</p>"}',
    reference: null,
    idempotencyKey: null,
    requestHash: null,
    webhookUrl: null,
    createdAt,
    ...extra,
  };
}

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`render job store contract: ${backend.name}`, () => {
    let store: Store;
    // Each test uses accounts of its own: the queue is shared by the whole table.
    let accountSeq = 0;
    const account = async () => {
      const id = `acc_job${++accountSeq}`;
      await store.createAccount({ id, email: `${id}@example.com`, passwordHash: null, createdAt: t0 });
      return id;
    };
    // Claims take from the whole table: drain what earlier tests left so each test sees only its own jobs.
    const drain = async () => {
      for (;;) {
        const row = await store.claimJob('drain', t0, { leaseMs: 1_000_000_000, maxAttempts: 100 });
        if (!row) return;
        await store.finishJob(row.id, 'drain', t0, { error: { code: 'RENDER_FAILED', message: 'drained' } });
      }
    };

    beforeAll(async () => {
      store = await backend.open();
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });

    it('inserts a job once per idempotency key, also under 20 concurrent inserts', async () => {
      const a = await account();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.insertJob(job(a, t0 + i, { idempotencyKey: 'k1', requestHash: 'h' }))),
      );
      expect(results.filter((r) => r.inserted)).toHaveLength(1);
      expect(new Set(results.map((r) => r.row.id)).size).toBe(1);
      expect(await store.countQueuedJobs(a)).toBe(1);
      // Another account may use the same key; no key at all never conflicts.
      const b = await account();
      expect((await store.insertJob(job(b, t0, { idempotencyKey: 'k1' }))).inserted).toBe(true);
      expect((await store.insertJob(job(b, t0))).inserted).toBe(true);
      expect((await store.insertJob(job(b, t0))).inserted).toBe(true);
      expect(await store.countQueuedJobs(b)).toBe(3);
      // A released key can be taken again.
      await store.releaseIdempotencyKey(results[0].row.id);
      expect((await store.insertJob(job(a, t0 + 100, { idempotencyKey: 'k1' }))).inserted).toBe(true);
      await drain();
    });

    it('submits within the queued caps exactly under concurrency, counting the job’s own bytes; a taken key gives its job back at the cap', async () => {
      const caps = { jobs: 5, htmlBytes: 1000 };
      const a = await account();
      const out = await Promise.all(
        Array.from({ length: 30 }, (_, i) => store.insertJobWithinCaps(job(a, t0 + i, { htmlBytes: 10 }), caps)),
      );
      const inserted = out.flatMap((o) => ('inserted' in o && o.inserted ? [o.row] : []));
      expect(inserted).toHaveLength(5);
      expect(out.filter((o) => 'refused' in o)).toEqual(Array(25).fill({ refused: 'jobs', queuedJobs: 5, queuedHtmlBytes: 50 }));
      expect(await store.countQueuedJobs(a)).toBe(5);
      // The row stored is the one the submit answered with.
      for (const row of inserted)
        expect(await store.findJob(row.id)).toMatchObject({
          id: row.id,
          account_id: a,
          status: 'queued',
          html_bytes: 10,
          attempts: 0,
          created_at: row.created_at,
        });

      // Bytes: up to the cap exactly, this job's bytes included; 2 of 6 concurrent 9s fit in 20.
      const b = await account();
      const bytes = { jobs: 100, htmlBytes: 100 };
      expect(await store.insertJobWithinCaps(job(b, t0, { htmlBytes: 60 }), bytes)).toMatchObject({ inserted: true });
      expect(await store.insertJobWithinCaps(job(b, t0, { htmlBytes: 40 }), bytes)).toMatchObject({ inserted: true });
      expect(await store.insertJobWithinCaps(job(b, t0, { htmlBytes: 1 }), bytes)).toEqual({
        refused: 'html_bytes',
        queuedJobs: 2,
        queuedHtmlBytes: 100,
      });
      const c = await account();
      const nines = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          store.insertJobWithinCaps(job(c, t0 + i, { htmlBytes: 9 }), { jobs: 100, htmlBytes: 20 }),
        ),
      );
      expect(nines.filter((o) => 'inserted' in o && o.inserted)).toHaveLength(2);

      // An Idempotency-Key already taken: its job, not a refusal, though the account is at its cap.
      const d = await account();
      const one = { jobs: 1, htmlBytes: 1000 };
      const first = await store.insertJobWithinCaps(job(d, t0, { idempotencyKey: 'k', requestHash: 'h' }), one);
      const again = await store.insertJobWithinCaps(job(d, t0 + 1, { idempotencyKey: 'k', requestHash: 'h' }), one);
      expect(again).toEqual({ inserted: false, row: (first as { row: unknown }).row });
      await drain();
    });

    it('claims with a lease, renews it, and makes the job final with its webhook due in one statement', async () => {
      const a = await account();
      const { row } = await store.insertJob(job(a, t0, { webhookUrl: 'https://hooks.example/x', reference: 'inv-1' }));
      const claimed = await store.claimJob('w1', t0 + 10, { leaseMs: 30_000, maxAttempts: 3 });
      expect(claimed).toMatchObject({
        id: row.id,
        status: 'running',
        attempts: 1,
        lease_owner: 'w1',
        lease_expires_at: t0 + 30_010,
      });
      expect(await store.claimJob('w2', t0 + 20, { leaseMs: 30_000, maxAttempts: 3 })).toBeUndefined();
      expect(await store.renewJobLease(row.id, 'w1', t0 + 60_000)).toBe(true);
      expect(await store.renewJobLease(row.id, 'w2', t0 + 60_000)).toBe(false);
      const pdf = { key: `${a}/${row.id}.pdf`, bytes: 1234, pages: 2, expiresAt: t0 + 86_400_000, store: 'files:a' };
      expect(await store.finishJob(row.id, 'w2', t0 + 100, { pdf })).toBe(false);
      expect(await store.finishJob(row.id, 'w1', t0 + 100, { pdf })).toBe(true);
      expect(await store.findJob(row.id)).toMatchObject({
        status: 'succeeded',
        finished_at: t0 + 100,
        lease_owner: null,
        request: '',
        pdf_key: pdf.key,
        pdf_bytes: 1234,
        pdf_pages: 2,
        pdf_expires_at: pdf.expiresAt,
        webhook_state: 'pending',
        webhook_next_at: t0 + 100,
        webhook_attempts: 0,
      });
      // No webhook URL: nothing due.
      const { row: quiet } = await store.insertJob(job(a, t0));
      await store.claimJob('w1', t0, { leaseMs: 30_000, maxAttempts: 3 });
      await store.finishJob(quiet.id, 'w1', t0, { error: { code: 'RENDER_TIMEOUT', message: 'slow' } });
      expect(await store.findJob(quiet.id)).toMatchObject({
        status: 'failed',
        error_code: 'RENDER_TIMEOUT',
        webhook_state: null,
      });
    });

    it('takes a job again once its lease lapsed, and fails it after the last attempt', async () => {
      const a = await account();
      const { row } = await store.insertJob(job(a, t0, { webhookUrl: 'https://hooks.example/y' }));
      expect((await store.claimJob('dead1', t0, { leaseMs: 1000, maxAttempts: 2 }))?.id).toBe(row.id);
      // Lease still valid: nobody else gets it.
      expect(await store.claimJob('w', t0 + 999, { leaseMs: 1000, maxAttempts: 2 })).toBeUndefined();
      const again = await store.claimJob('dead2', t0 + 1001, { leaseMs: 1000, maxAttempts: 2 });
      expect(again).toMatchObject({ id: row.id, attempts: 2, lease_owner: 'dead2' });
      // The first owner lost it: its renewal and its result are refused.
      expect(await store.renewJobLease(row.id, 'dead1', t0 + 5000)).toBe(false);
      expect(await store.claimJob('w', t0 + 2002, { leaseMs: 1000, maxAttempts: 2 })).toBeUndefined();
      expect(await store.findJob(row.id)).toMatchObject({
        status: 'failed',
        error_code: 'INTERNAL_ERROR',
        attempts: 2,
        webhook_state: 'pending',
        webhook_next_at: t0 + 2002,
      });
    });

    it('leaves lapsed leases to a later claim when asked to, and takes them first when not', async () => {
      const a = await account();
      const { row: lapsed } = await store.insertJob(job(a, t0));
      await store.claimJob('dead', t0, { leaseMs: 1000, maxAttempts: 3 });
      const { row: queued } = await store.insertJob(job(a, t0 + 1));
      // A claim that skips the lapsed-lease look takes the queued job, and the lapsed one stays as it was.
      expect((await store.claimJob('w1', t0 + 2000, { leaseMs: 30_000, maxAttempts: 3, lapsed: false }))?.id).toBe(queued.id);
      expect(await store.findJob(lapsed.id)).toMatchObject({ status: 'running', lease_owner: 'dead', attempts: 1 });
      expect(await store.claimJob('w1', t0 + 2001, { leaseMs: 30_000, maxAttempts: 3, lapsed: false })).toBeUndefined();
      // The next claim that looks takes it.
      expect(await store.claimJob('w2', t0 + 2002, { leaseMs: 30_000, maxAttempts: 3 })).toMatchObject({
        id: lapsed.id,
        attempts: 2,
        lease_owner: 'w2',
      });
    });

    it('hands each job to exactly one of several concurrent claimers', async () => {
      const accounts = [await account(), await account(), await account()];
      const ids = new Set<string>();
      for (let i = 0; i < 30; i++) ids.add((await store.insertJob(job(accounts[i % 3], t0 + i))).row.id);
      const claimed: string[] = [];
      const owners = new Map<string, string>();
      await Promise.all(
        Array.from({ length: 6 }, async (_, w) => {
          for (;;) {
            const row = await store.claimJob(`w${w}`, t0 + 100, { leaseMs: 30_000, maxAttempts: 3 });
            if (!row) return;
            claimed.push(row.id);
            owners.set(row.id, `w${w}`);
          }
        }),
      );
      expect(claimed.length).toBe(30);
      expect(new Set(claimed)).toEqual(ids);
      for (const [id, owner] of owners) await store.finishJob(id, owner, t0, { error: { code: 'RENDER_FAILED', message: 'x' } });
    });

    it('requeues after a transient failure and releases without counting the attempt', async () => {
      const a = await account();
      const { row } = await store.insertJob(job(a, t0));
      await store.claimJob('w', t0, { leaseMs: 30_000, maxAttempts: 3 });
      expect(await store.requeueJob(row.id, 'w', { code: 'RENDER_FAILED', message: 'crashed' })).toBe(true);
      expect(await store.findJob(row.id)).toMatchObject({
        status: 'queued',
        attempts: 1,
        lease_owner: null,
        error_code: 'RENDER_FAILED',
      });
      await store.claimJob('w', t0, { leaseMs: 30_000, maxAttempts: 3 });
      expect(await store.releaseJob(row.id, 'w')).toBe(true);
      expect(await store.findJob(row.id)).toMatchObject({ status: 'queued', attempts: 1, lease_expires_at: null });
      await drain();
    });

    it('tells a worker which of its running jobs it still holds: a canceled one is not', async () => {
      const a = await account();
      const first = (await store.insertJob(job(a, t0))).row;
      const second = (await store.insertJob(job(a, t0 + 1))).row;
      await store.claimJob('w', t0 + 10, { leaseMs: 30_000, maxAttempts: 3 });
      await store.claimJob('w', t0 + 10, { leaseMs: 30_000, maxAttempts: 3 });
      expect((await store.heldJobs('w', [first.id, second.id])).sort()).toEqual([first.id, second.id].sort());
      expect(await store.heldJobs('other', [first.id, second.id])).toEqual([]);
      await store.cancelJob(first.id, a, t0 + 20);
      expect(await store.heldJobs('w', [first.id, second.id])).toEqual([second.id]);
      expect(await store.heldJobs('w', [])).toEqual([]);
      await store.releaseJob(second.id, 'w');
      await drain();
    });

    it('is fair across accounts: a later single job goes before a big backlog drains', async () => {
      const big = await account();
      const small = await account();
      for (let i = 0; i < 50; i++) await store.insertJob(job(big, t0 + i));
      const smallJob = (await store.insertJob(job(small, t0 + 100))).row;
      const order: string[] = [];
      for (let i = 0; i < 5; i++) {
        const row = await store.claimJob('w', t0 + 1000 + i, { leaseMs: 30_000, maxAttempts: 3 });
        if (!row) break;
        order.push(row.account_id);
        await store.finishJob(row.id, 'w', t0 + 1000 + i, { error: { code: 'RENDER_FAILED', message: 'x' } });
      }
      // One claim of the backlog's account at most before the small account's job.
      expect(order.slice(0, 2)).toContain(small);
      expect((await store.findJob(smallJob.id))?.status).toBe('failed');
      await drain();
    });

    it('cancels, lists newest first with a cursor, expires PDFs and clears an account', async () => {
      const a = await account();
      const rows = [];
      for (let i = 0; i < 5; i++) rows.push((await store.insertJob(job(a, t0 + i * 10))).row);
      const canceled = await store.cancelJob(rows[0].id, a, t0 + 100);
      expect(canceled).toMatchObject({ status: 'canceled', finished_at: t0 + 100, request: '' });
      const other = await account();
      expect(await store.cancelJob(rows[1].id, other, t0)).toBeUndefined();
      expect(await store.findJob(rows[1].id, other)).toBeUndefined();

      const first = await store.listJobs(a, { limit: 2 });
      expect(first.rows.map((r) => r.id)).toEqual([rows[4].id, rows[3].id]);
      expect(first.next).toEqual({ createdAt: t0 + 30, id: rows[3].id });
      const second = await store.listJobs(a, { limit: 2, cursor: first.next ?? undefined });
      expect(second.rows.map((r) => r.id)).toEqual([rows[2].id, rows[1].id]);
      const third = await store.listJobs(a, { limit: 2, cursor: second.next ?? undefined });
      expect(third.rows.map((r) => r.id)).toEqual([rows[0].id]);
      expect(third.next).toBeNull();
      expect((await store.listJobs(a, { limit: 10, status: 'canceled' })).rows.map((r) => r.id)).toEqual([rows[0].id]);

      const stats = await store.jobQueueStats();
      expect(stats.queued).toBeGreaterThanOrEqual(4);
      expect(stats.oldestCreatedAt).toBeLessThanOrEqual(t0 + 10);

      // Two succeed with PDFs: one expires, one is cleared by its owner.
      const done = [];
      for (let i = 0; i < 4; i++) {
        const row = await store.claimJob('w', t0 + 200, { leaseMs: 30_000, maxAttempts: 3 });
        if (row?.account_id !== a) throw new Error('expected this account');
        done.push(row);
      }
      await store.finishJob(done[0].id, 'w', t0 + 300, {
        pdf: { key: 'k/0.pdf', bytes: 1, pages: 1, expiresAt: t0 + 1000, store: 'files:a' },
      });
      await store.finishJob(done[1].id, 'w', t0 + 300, {
        pdf: { key: 'k/1.pdf', bytes: 1, pages: 1, expiresAt: t0 + 5000, store: 'files:a' },
      });
      expect(await store.expiredPdfs(t0 + 999, 10, 'files:a')).toEqual([]);
      // Only the store that holds a PDF is handed it to sweep.
      expect(await store.expiredPdfs(t0 + 1000, 10, 'files:b')).toEqual([]);
      expect(await store.expiredPdfs(t0 + 1000, 10, 'files:a')).toEqual([
        { id: done[0].id, pdfKey: 'k/0.pdf', pdfStore: 'files:a' },
      ]);
      await store.clearExpiredPdf(done[0].id, 'k/0.pdf');
      expect((await store.findJob(done[0].id))?.pdf_key).toBeNull();
      expect(await store.clearJobPdf(done[1].id, other)).toBeNull();
      expect(await store.clearJobPdf(done[1].id, a)).toBe('k/1.pdf');
      expect(await store.clearJobPdf(done[1].id, a)).toBeNull();
      // A deleted PDF loses its expiry too, an expired one keeps it: the Jobs page tells them apart.
      expect((await store.findJob(done[1].id))?.pdf_expires_at).toBeNull();
      expect(Number((await store.findJob(done[0].id))?.pdf_expires_at)).toBe(t0 + 1000);

      // Account deletion: the unfinished jobs end canceled and every stored key is handed back.
      await store.finishJob(done[2].id, 'w', t0 + 300, {
        pdf: { key: 'k/2.pdf', bytes: 1, pages: 1, expiresAt: t0 + 5000, store: 'files:a' },
      });
      expect(await store.cancelAccountJobs(a, t0 + 400)).toEqual(['k/2.pdf']);
      expect((await store.findJob(done[3].id))?.status).toBe('canceled');
      expect((await store.findJob(done[2].id))?.pdf_key).toBeNull();
      expect(await store.countQueuedJobs(a)).toBe(0);
    });
    it('keeps a job strict flag, its key and the render report of its end (0007b_job_report)', async () => {
      const a = await account();
      await drain();
      const { row } = await store.insertJob(job(a, t0, { strict: true, keyId: 'key_strict' }));
      expect(row).toMatchObject({ strict: 1, key_id: 'key_strict', warnings: null });
      expect((await store.insertJob(job(a, t0 + 1))).row).toMatchObject({ strict: 0, key_id: null, warnings: null });
      const warnings = JSON.stringify([
        { kind: 'script_error', text: 'Error: x', message: 'A script in the document failed: Error: x' },
      ]);
      const first = await store.claimJob('w1', t0 + 10, { leaseMs: 30_000, maxAttempts: 3 });
      expect(first?.id).toBe(row.id);
      const error = { code: 'RENDER_INCOMPLETE', message: 'the document could not get everything' };
      expect(await store.finishJob(row.id, 'w1', t0 + 20, { error, warnings })).toBe(true);
      expect(await store.findJob(row.id)).toMatchObject({
        status: 'failed',
        error_code: 'RENDER_INCOMPLETE',
        warnings,
        strict: 1,
      });
      const second = await store.claimJob('w1', t0 + 30, { leaseMs: 30_000, maxAttempts: 3 });
      const pdf = { key: `${a}/${second?.id}.pdf`, bytes: 10, pages: 1, expiresAt: t0 + 86_400_000, store: 'files:test' };
      expect(await store.finishJob(second?.id as string, 'w1', t0 + 40, { pdf, warnings: '[]' })).toBe(true);
      expect(await store.findJob(second?.id as string)).toMatchObject({ status: 'succeeded', warnings: '[]' });
    });
  });
}
