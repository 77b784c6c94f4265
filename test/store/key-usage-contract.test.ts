import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageRecorder } from '../../src/accounts/usage.js';
import type { KeyUsageIncrement, Store } from '../../src/store/store.js';
import { storeBackends } from '../helpers/store-backends.js';

// The per-key usage and one-time key display methods, on every store backend (issue 16).

const backends = storeBackends('key_usage');

const byKeyThenBucket = (a: KeyUsageIncrement, b: KeyUsageIncrement) =>
  a.keyId.localeCompare(b.keyId) || a.bucket.localeCompare(b.bucket) || a.outcome.localeCompare(b.outcome);

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`per-key usage contract: ${backend.name}`, () => {
    let store: Store;
    const t0 = Date.parse('2026-01-02T10:30:00Z');

    beforeAll(async () => {
      store = await backend.open();
      for (const id of ['acc_a', 'acc_b'])
        await store.createAccount({ id, email: `${id}@example.com`, passwordHash: null, createdAt: t0 });
      await store.insertKey({
        id: 'key_a1',
        accountId: 'acc_a',
        service: 'render',
        keyHash: 'ha1',
        displayPrefix: 'pwr_live_a111',
        name: 'old',
        createdAt: t0,
      });
      await store.insertKey({
        id: 'key_a2',
        accountId: 'acc_a',
        service: 'render',
        keyHash: 'ha2',
        displayPrefix: 'pwr_live_a222',
        name: 'new',
        createdAt: t0,
      });
      await store.insertKey({
        id: 'key_b1',
        accountId: 'acc_b',
        service: 'metadata',
        keyHash: 'hb1',
        displayPrefix: 'pwm_live_b111',
        name: null,
        createdAt: t0,
      });
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });

    it('counts per account and per key, by day and by hour, adding up across batches and instances', async () => {
      let now = t0;
      const one = new UsageRecorder(store, 0, undefined, () => now);
      const two = new UsageRecorder(store, 0, undefined, () => now);
      for (let i = 0; i < 3; i++) one.record('acc_a', 'render', 'ok', 'key_a2');
      two.record('acc_a', 'render', 'ok', 'key_a2');
      two.record('acc_b', 'metadata', 'target_error', 'key_b1');
      now += 3_600_000; // the next hour, same day
      one.record('acc_a', 'render', 'client_error', 'key_a2');
      await Promise.all([one.flush(), two.flush()]);
      one.record('acc_a', 'render', 'ok', 'key_a2');
      await one.close();
      await two.close();

      // The per-account counters are as before: every key together.
      const daily = await store.usageSince('acc_a', '2026-01-02');
      expect(daily.sort((a, b) => a.outcome.localeCompare(b.outcome))).toEqual([
        { accountId: 'acc_a', service: 'render', day: '2026-01-02', outcome: 'client_error', count: 1 },
        { accountId: 'acc_a', service: 'render', day: '2026-01-02', outcome: 'ok', count: 5 },
      ]);
      // Only the key that was used has counts; the idle one has none.
      expect((await store.keyUsageSince('acc_a', '2026-01-01')).sort(byKeyThenBucket)).toEqual([
        { keyId: 'key_a2', accountId: 'acc_a', service: 'render', bucket: '2026-01-02', outcome: 'client_error', count: 1 },
        { keyId: 'key_a2', accountId: 'acc_a', service: 'render', bucket: '2026-01-02', outcome: 'ok', count: 5 },
      ]);
      expect((await store.keyHourlyUsageSince('acc_a', '2026-01-02T00')).sort(byKeyThenBucket)).toEqual([
        { keyId: 'key_a2', accountId: 'acc_a', service: 'render', bucket: '2026-01-02T10', outcome: 'ok', count: 4 },
        { keyId: 'key_a2', accountId: 'acc_a', service: 'render', bucket: '2026-01-02T11', outcome: 'client_error', count: 1 },
        { keyId: 'key_a2', accountId: 'acc_a', service: 'render', bucket: '2026-01-02T11', outcome: 'ok', count: 1 },
      ]);
      expect(await store.keyHourlyUsageSince('acc_a', '2026-01-02T11')).toHaveLength(2);
      expect(await store.keyUsageSince('acc_b', '2026-01-02')).toEqual([
        { keyId: 'key_b1', accountId: 'acc_b', service: 'metadata', bucket: '2026-01-02', outcome: 'target_error', count: 1 },
      ]);
      expect(await store.keyUsageSince('acc_a', '2026-01-03')).toEqual([]);
    });

    it('drops counts of keys and accounts that no longer exist instead of failing the whole batch forever', async () => {
      await store.recordUsage({
        daily: [
          { accountId: 'acc_gone', service: 'render', day: '2026-01-03', outcome: 'ok', count: 9 },
          { accountId: 'acc_b', service: 'metadata', day: '2026-01-03', outcome: 'ok', count: 2 },
        ],
        keyDaily: [
          { keyId: 'key_gone', accountId: 'acc_gone', service: 'render', bucket: '2026-01-03', outcome: 'ok', count: 9 },
          { keyId: 'key_b1', accountId: 'acc_b', service: 'metadata', bucket: '2026-01-03', outcome: 'ok', count: 2 },
        ],
        keyHourly: [
          { keyId: 'key_gone', accountId: 'acc_gone', service: 'render', bucket: '2026-01-03T01', outcome: 'ok', count: 9 },
        ],
      });
      expect(await store.usageSince('acc_b', '2026-01-03')).toEqual([
        { accountId: 'acc_b', service: 'metadata', day: '2026-01-03', outcome: 'ok', count: 2 },
      ]);
      expect((await store.keyUsageSince('acc_b', '2026-01-03')).map((r) => r.count)).toEqual([2]);
      expect(await store.usageSince('acc_gone', '2026-01-01')).toEqual([]);
    });

    // Two instances flush counters of the same keys, each in the order its requests came.
    it('adds up two flushes of the same counters at once, in opposite orders, without a deadlock', async () => {
      await store.createAccount({ id: 'acc_c', email: 'acc_c@example.com', passwordHash: null, createdAt: t0 });
      for (const id of ['key_c1', 'key_c2'])
        await store.insertKey({
          id,
          accountId: 'acc_c',
          service: 'render',
          keyHash: `h_${id}`,
          displayPrefix: 'pwr_live_cccc',
          name: null,
          createdAt: t0,
        });
      const rows = (['ok', 'rate_limited', 'server_error'] as const).flatMap((outcome) =>
        ['key_c1', 'key_c2'].map((keyId) => ({ keyId, accountId: 'acc_c', service: 'render' as const, outcome, count: 1 })),
      );
      const batch = (order: typeof rows) => ({
        daily: order
          .filter((r) => r.keyId === 'key_c1')
          .map((r) => ({
            accountId: 'acc_c',
            service: 'render' as const,
            day: '2026-03-01',
            outcome: r.outcome,
            count: 1,
          })),
        keyDaily: order.map((r) => ({ ...r, bucket: '2026-03-01' })),
        keyHourly: order.map((r) => ({ ...r, bucket: '2026-03-01T09' })),
      });
      const failures: string[] = [];
      for (let round = 0; round < 100; round++) {
        const settled = await Promise.allSettled([store.recordUsage(batch(rows)), store.recordUsage(batch(rows.toReversed()))]);
        for (const s of settled) if (s.status === 'rejected') failures.push(String(s.reason));
      }
      expect(failures).toEqual([]);
      const hourly = await store.keyHourlyUsageSince('acc_c', '2026-03-01T09');
      expect(hourly.map((r) => `${r.keyId} ${r.outcome} ${r.count}`).sort()).toEqual(
        rows.map((r) => `${r.keyId} ${r.outcome} 200`).sort(),
      );
    });

    it('prunes hourly counters older than the cut-off in the same write', async () => {
      await store.recordUsage({
        daily: [],
        keyDaily: [],
        keyHourly: [
          { keyId: 'key_b1', accountId: 'acc_b', service: 'metadata', bucket: '2026-01-04T00', outcome: 'ok', count: 1 },
        ],
        pruneHoursBefore: '2026-01-02T11',
      });
      expect((await store.keyHourlyUsageSince('acc_a', '2026-01-01T00')).map((r) => r.bucket)).toEqual([
        '2026-01-02T11',
        '2026-01-02T11',
      ]);
      expect((await store.keyHourlyUsageSince('acc_b', '2026-01-01T00')).map((r) => r.bucket)).toEqual(['2026-01-04T00']);
      // The daily counters are kept.
      expect(await store.keyUsageSince('acc_a', '2026-01-02')).toHaveLength(2);
    });

    it('the recorder drops hourly counters older than 48 hours with its next write', async () => {
      const later = t0 + 3 * 86_400_000; // 2026-01-05T10:30
      const recorder = new UsageRecorder(store, 0, undefined, () => later);
      recorder.record('acc_a', 'render', 'ok', 'key_a1');
      await recorder.close();
      expect(await store.keyHourlyUsageSince('acc_a', '2026-01-01T00')).toEqual([
        { keyId: 'key_a1', accountId: 'acc_a', service: 'render', bucket: '2026-01-05T10', outcome: 'ok', count: 1 },
      ]);
      expect((await store.keyUsageSince('acc_a', '2026-01-01')).length).toBe(3); // daily counters stay
    });

    it('writes a batch larger than one INSERT may carry', async () => {
      const many = Array.from({ length: 12_000 }, (_, i) => ({
        keyId: 'key_b1',
        accountId: 'acc_b',
        service: 'metadata' as const,
        bucket: `2027-01-01T${String(i).padStart(5, '0')}`,
        outcome: 'ok' as const,
        count: 1,
      }));
      await store.recordUsage({ daily: [], keyDaily: [], keyHourly: many });
      expect(await store.keyHourlyUsageSince('acc_b', '2027-01-01')).toHaveLength(12_000);
    });

    it('hands a held new key out once, only to its session, only while fresh', async () => {
      await store.createSession('sess_1', { accountId: 'acc_a', csrfToken: 'c', createdAt: t0, lastSeenAt: t0 });
      await store.createSession('sess_2', { accountId: 'acc_a', csrfToken: 'c', createdAt: t0, lastSeenAt: t0 });
      await store.putKeyReveal('sess_1', 'key_a2', 'sealed-1', t0);
      expect(await store.takeKeyReveal('sess_2', 'key_a2', t0)).toBeUndefined();
      expect(await store.takeKeyReveal('sess_1', 'key_a1', t0)).toBeUndefined();
      const takes = await Promise.all([store.takeKeyReveal('sess_1', 'key_a2', t0), store.takeKeyReveal('sess_1', 'key_a2', t0)]);
      expect(takes.sort()).toEqual(['sealed-1', undefined]);
      expect(await store.takeKeyReveal('sess_1', 'key_a2', t0)).toBeUndefined();

      await store.putKeyReveal('sess_1', 'key_a1', 'stale', t0 - 1);
      expect(await store.takeKeyReveal('sess_1', 'key_a1', t0)).toBeUndefined();
      expect(await store.takeKeyReveal('sess_1', 'key_a1', 0)).toBeUndefined(); // taken (and dropped) by the late read

      await store.putKeyReveal('sess_2', 'key_a1', 'first', t0);
      await store.putKeyReveal('sess_2', 'key_a1', 'second', t0 + 1);
      await store.deleteSession('sess_2');
      expect(await store.takeKeyReveal('sess_2', 'key_a1', 0)).toBeUndefined(); // ended with its session
    });
  });
}
