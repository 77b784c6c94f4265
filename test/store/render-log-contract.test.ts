import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderRecord } from '../../src/report/report.js';
import type { Store } from '../../src/store/store.js';
import { storeBackends } from '../helpers/store-backends.js';

// The render log's store contract, run against both adapters like store-contract.test.ts.

const backends = storeBackends('renderlog');
const t0 = 1_700_000_000_000;
let seq = 0;

function record(accountId: string, createdAt: number, extra: Partial<RenderRecord> = {}): RenderRecord {
  seq += 1;
  return {
    id: `rnd_${String(seq).padStart(24, '0')}`,
    accountId,
    keyId: null,
    createdAt,
    durationMs: 412.6,
    source: 'api',
    jobId: null,
    status: 'succeeded',
    error: null,
    pages: 2,
    bytes: 23_456,
    warnings: [],
    claims: [],
    ...extra,
  };
}

const blocked = {
  kind: 'resource_blocked' as const,
  url: 'http://10.0.0.7/brand.css',
  reason: 'private_address' as const,
  message: 'brand.css was not loaded: its address is on a private network (EGRESS_ALLOW lets an operator allow it)',
};

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`render log store contract: ${backend.name}`, () => {
    let store: Store;
    let accountSeq = 0;
    const account = async () => {
      const id = `acc_rl${++accountSeq}`;
      await store.createAccount({ id, email: `${id}@example.com`, passwordHash: null, createdAt: t0 });
      return id;
    };

    beforeAll(async () => {
      store = await backend.open();
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });

    it('keeps a record with its warnings, and finds it only for its own account', async () => {
      const a = await account();
      const b = await account();
      const failed = record(a, t0 + 5, {
        source: 'job',
        jobId: 'job_0123456789abcdef0123456789abcdef',
        status: 'failed',
        error: { code: 'RENDER_TIMEOUT', message: 'render exceeded 30000 ms' },
        pages: null,
        bytes: null,
        warnings: [
          blocked,
          { kind: 'script_error', text: 'boom is not defined', message: 'A script failed: boom is not defined' },
        ],
      });
      await store.insertRenderRecords([failed]);
      // Duration is kept in whole milliseconds; everything else as given.
      expect(await store.findRenderRecord(failed.id, a)).toEqual({ ...failed, durationMs: 413 });
      expect(await store.findRenderRecord(failed.id, b)).toBeUndefined();
      expect(await store.findRenderRecord('rnd_nothing', a)).toBeUndefined();
    });

    it('keeps what the PDF claims with its warnings; a record without claims reads as claiming nothing', async () => {
      const a = await account();
      const archived = record(a, t0 + 7, {
        warnings: [
          { kind: 'conformance', profile: 'PDF/UA-1', clause: '7.1', element: 'img', message: 'An image has no alt text' },
        ],
        claims: ['PDF/A-3b', 'Factur-X'],
      });
      // Stored as records were before claims existed: the entries alone.
      const plain = record(a, t0 + 8, { warnings: [blocked] });
      await store.insertRenderRecords([archived, plain]);
      expect(await store.findRenderRecord(archived.id, a)).toEqual({ ...archived, durationMs: 413 });
      expect((await store.findRenderRecord(plain.id, a))?.claims).toEqual([]);
      expect((await store.findRenderRecord(plain.id, a))?.warnings).toEqual([blocked]);
      const listed = await store.listRenderRecords(a, { limit: 10 });
      expect(listed.rows.map((r) => [r.id, r.warningCount])).toEqual([
        [plain.id, 1],
        [archived.id, 1],
      ]);
    });

    it('keeps a title and a reference, lists them with the claims, and searches and filters by them', async () => {
      const a = await account();
      const b = await account();
      const invoice = record(a, t0 + 1, { claims: ['PDF/A-3b'], title: 'Rechnung 2026-0042 – Müller & Söhne' });
      // Control characters become U+FFFD and a 4,096-character title keeps 300, as a report keeps document text.
      const long = record(a, t0 + 2, { title: `Quarterly\u0007statement ${'x'.repeat(4_000)}` });
      const job = record(a, t0 + 3, { source: 'job', reference: 'INV-7731_a', title: 'Delivery note', claims: [] });
      // LIKE's wildcards and the JSON's quotes and backslashes are matched as themselves.
      const odd = record(a, t0 + 4, { title: '100% "quoted" back\\slash' });
      const untitled = record(a, t0 + 5, { warnings: [blocked] });
      const elsewhere = record(b, t0 + 6, { title: 'Rechnung 2026-0042 of another account', claims: ['PDF/A-3b'] });
      await store.insertRenderRecords([invoice, long, job, odd, untitled, elsewhere]);
      expect(await store.findRenderRecord(invoice.id, a)).toEqual({ ...invoice, durationMs: 413 });
      const listed = (await store.listRenderRecords(a, { limit: 10 })).rows;
      expect(listed.map((r) => [r.id, r.title, r.reference, r.claims])).toEqual([
        [untitled.id, null, null, []],
        [odd.id, '100% "quoted" back\\slash', null, []],
        [job.id, 'Delivery note', 'INV-7731_a', []],
        [long.id, `Quarterly\ufffdstatement ${'x'.repeat(300 - 20)}`, null, []],
        [invoice.id, 'Rechnung 2026-0042 – Müller & Söhne', null, ['PDF/A-3b']],
      ]);
      const found = async (search: string, more: { claimedOnly?: boolean; problemsOnly?: boolean } = {}) =>
        (await store.listRenderRecords(a, { limit: 10, search, ...more })).rows.map((r) => r.id);
      expect(await found('rechnung 2026')).toEqual([invoice.id]);
      expect(await found('Müller & Söhne')).toEqual([invoice.id]);
      expect(await found('inv-7731')).toEqual([job.id]);
      expect(await found('INV-7731_')).toEqual([job.id]);
      expect(await found('7731%')).toEqual([]);
      expect(await found('INV_7731')).toEqual([]);
      expect(await found('100%')).toEqual([odd.id]);
      expect(await found('"quoted"')).toEqual([odd.id]);
      expect(await found('back\\slash')).toEqual([odd.id]);
      expect(await found('e')).toEqual([odd.id, job.id, long.id, invoice.id]);
      // Not the entries' text, not the claims, not the other account's.
      expect(await found('brand.css')).toEqual([]);
      expect(await found('PDF/A')).toEqual([]);
      expect(await found('another account')).toEqual([]);
      expect(await found('', { claimedOnly: true })).toEqual([invoice.id]);
      expect(await found('delivery', { claimedOnly: true })).toEqual([]);
      expect((await store.listRenderRecords(a, { limit: 10, claimedOnly: true })).rows.map((r) => r.id)).toEqual([invoice.id]);
    });

    it('inserts a batch again without duplicating or failing (a retried write)', async () => {
      const a = await account();
      const batch = Array.from({ length: 3 }, (_, i) => record(a, t0 + i));
      await store.insertRenderRecords(batch);
      await store.insertRenderRecords([...batch, record(a, t0 + 10)]);
      const page = await store.listRenderRecords(a, { limit: 100 });
      expect(page.rows).toHaveLength(4);
    });

    it('inserts more records at once than one statement holds', async () => {
      const a = await account();
      const many = Array.from({ length: 1_201 }, (_, i) => record(a, t0 + i));
      await store.insertRenderRecords(many);
      const page = await store.listRenderRecords(a, { limit: 100 });
      expect(page.rows[0]?.id).toBe(many.at(-1)?.id);
      expect(page.next).not.toBeNull();
    });

    it('lists newest first with the key name, pages with a cursor, and filters failed or warned renders', async () => {
      const a = await account();
      await store.insertKey({
        id: 'key_rl1',
        accountId: a,
        service: 'render',
        keyHash: `hash-${a}`,
        displayPrefix: 'pwr_live_ab12',
        name: 'invoices',
        createdAt: t0,
      });
      // Two renders in the same millisecond: the id breaks the tie, so paging neither skips nor repeats one.
      const rows = [
        record(a, t0 + 1, { keyId: 'key_rl1' }),
        record(a, t0 + 2, { keyId: 'key_rl1', warnings: [blocked] }),
        record(a, t0 + 3, { status: 'failed', error: { code: 'RENDER_FAILED', message: 'x' }, pages: null, bytes: null }),
        record(a, t0 + 3),
        record(a, t0 + 4, { keyId: 'key_gone' }),
      ];
      await store.insertRenderRecords(rows);
      const first = await store.listRenderRecords(a, { limit: 2 });
      expect(first.rows.map((r) => r.id)).toEqual([rows[4].id, rows[3].id]);
      expect(first.rows[0]).toMatchObject({ keyId: 'key_gone', keyName: null, keyPrefix: null, warningCount: 0 });
      const second = await store.listRenderRecords(a, { limit: 2, cursor: first.next ?? undefined });
      expect(second.rows.map((r) => r.id)).toEqual([rows[2].id, rows[1].id]);
      expect(second.rows[1]).toMatchObject({ keyName: 'invoices', keyPrefix: 'pwr_live_ab12', warningCount: 1, durationMs: 413 });
      const third = await store.listRenderRecords(a, { limit: 2, cursor: second.next ?? undefined });
      expect(third.rows.map((r) => r.id)).toEqual([rows[0].id]);
      expect(third.next).toBeNull();

      const problems = await store.listRenderRecords(a, { limit: 10, problemsOnly: true });
      expect(problems.rows.map((r) => [r.id, r.status, r.warningCount])).toEqual([
        [rows[2].id, 'failed', 0],
        [rows[1].id, 'succeeded', 1],
      ]);
      expect(problems.rows[0]?.error).toEqual({ code: 'RENDER_FAILED', message: 'x' });
    });

    it('counts a truncated report as X-Render-Warnings does: the entries left out too', async () => {
      const a = await account();
      const many = record(a, t0, {
        warnings: [blocked, { kind: 'truncated', dropped: 9_900, message: '9900 more warnings were left out' }],
      });
      await store.insertRenderRecords([many]);
      const [row] = (await store.listRenderRecords(a, { limit: 1, problemsOnly: true })).rows;
      expect(row).toMatchObject({ id: many.id, warningCount: 9_901 });
    });

    it('purges records older than the cut-off only', async () => {
      const a = await account();
      const old = record(a, t0 - 8 * 86_400_000);
      const kept = record(a, t0 - 86_400_000);
      await store.insertRenderRecords([old, kept]);
      expect(await store.purgeRenderRecords(t0 - 7 * 86_400_000)).toBeGreaterThanOrEqual(1);
      expect(await store.findRenderRecord(old.id, a)).toBeUndefined();
      expect(await store.findRenderRecord(kept.id, a)).toBeDefined();
    });

    it('deletes an account’s records with the account', async () => {
      const a = await account();
      const mine = record(a, t0);
      await store.insertRenderRecords([mine]);
      const tombstone = {
        id: `act_${a}`,
        accountId: a,
        at: t0,
        kind: 'account_deleted' as const,
        actor: 'cli' as const,
        ip: null,
        userAgent: null,
        detail: null,
      };
      expect(await store.deleteAccount(a, tombstone)).toBe(true);
      expect(await store.findRenderRecord(mine.id, a)).toBeUndefined();
    });
  });
}
