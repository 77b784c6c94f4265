import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { storeBackends } from '../helpers/store-backends.js';

const backends = storeBackends('store');

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`store contract: ${backend.name}`, () => {
    let store: Store;
    const t0 = 1_700_000_000_000;

    beforeAll(async () => {
      store = await backend.open();
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });

    it('creates accounts with case-insensitive unique emails', async () => {
      const a = await store.createAccount({ id: 'acc_a', email: 'Alice@Example.com', passwordHash: null, createdAt: t0 });
      expect(a).toMatchObject({ id: 'acc_a', email: 'Alice@Example.com', limits: { render: null, metadata: null } });
      expect((await store.findAccountByEmail('alice@example.COM'))?.id).toBe('acc_a');
      await expect(
        store.createAccount({ id: 'acc_b', email: 'ALICE@example.com', passwordHash: null, createdAt: t0 }),
      ).rejects.toThrow();
      expect(await store.countAccounts()).toBe(1);
    });

    it('reopens an existing database without re-running migrations', async () => {
      const again = await backend.open();
      expect(await again.countAccounts()).toBe(1);
      await again.close();
    });

    it('stores per-account limit overrides and returns them with a key lookup', async () => {
      await store.setAccountLimit('acc_a', 'render', 7);
      await store.insertKey({
        id: 'key_1',
        accountId: 'acc_a',
        service: 'render',
        keyHash: 'h1',
        displayPrefix: 'pwr_live_abcd',
        name: 'ci',
        createdAt: t0,
      });
      const found = await store.findKeyByHash('h1');
      expect(found).toMatchObject({
        id: 'key_1',
        accountId: 'acc_a',
        service: 'render',
        limitOverride: 7,
        lastUsedAt: null,
        revokedAt: null,
        createdAt: t0,
      });
      await store.setAccountLimit('acc_a', 'render', null);
      expect((await store.findKeyByHash('h1'))?.limitOverride).toBeNull();
      expect(await store.findKeyByHash('nope')).toBeUndefined();
    });

    it('lists keys newest first, filtered by service', async () => {
      await store.insertKey({
        id: 'key_2',
        accountId: 'acc_a',
        service: 'metadata',
        keyHash: 'h2',
        displayPrefix: 'pwm_live_0123',
        name: null,
        createdAt: t0 + 10,
      });
      expect((await store.listKeys('acc_a')).map((k) => k.id)).toEqual(['key_2', 'key_1']);
      expect((await store.listKeys('acc_a', 'render')).map((k) => k.id)).toEqual(['key_1']);
      expect((await store.findKeysByDisplayPrefix('pwm_live_0123')).map((k) => k.id)).toEqual(['key_2']);
    });

    it('moves last_used_at only forward', async () => {
      await store.touchKeys([{ keyId: 'key_1', at: t0 + 500 }]);
      await store.touchKeys([{ keyId: 'key_1', at: t0 + 100 }]);
      expect((await store.findKeyByHash('h1'))?.lastUsedAt).toBe(t0 + 500);
      await store.touchKeys([
        { keyId: 'key_1', at: t0 + 900 },
        { keyId: 'key_2', at: t0 + 50 },
      ]);
      expect((await store.findKeyByHash('h1'))?.lastUsedAt).toBe(t0 + 900);
      expect((await store.findKeyByHash('h2'))?.lastUsedAt).toBe(t0 + 50);
    });

    // Two instances flush the same keys, each in the order its requests came: the store takes the rows
    // in one order, so neither flush is ever broken as a deadlock.
    it('touches the same keys from two flushes at once, in opposite orders, without a deadlock', async () => {
      const keyIds = Array.from({ length: 8 }, (_, i) => `key_touch_${i}`);
      for (const id of keyIds)
        await store.insertKey({
          id,
          accountId: 'acc_a',
          service: 'render',
          keyHash: `h_${id}`,
          displayPrefix: 'pwr_live_tttt',
          name: null,
          createdAt: t0,
        });
      const failures: string[] = [];
      for (let round = 1; round <= 100; round++) {
        const at = t0 + 2 * round;
        const settled = await Promise.allSettled([
          store.touchKeys(keyIds.map((keyId) => ({ keyId, at }))),
          store.touchKeys(keyIds.toReversed().map((keyId) => ({ keyId, at: at + 1 }))),
        ]);
        for (const s of settled) if (s.status === 'rejected') failures.push(String(s.reason));
      }
      expect(failures).toEqual([]);
      for (const id of keyIds) expect((await store.findKeyByHash(`h_${id}`))?.lastUsedAt).toBe(t0 + 201);
    });

    it('revokes a key once, only for its own account', async () => {
      expect(await store.revokeKey('key_2', t0 + 1000, 'acc_other')).toBe(false);
      expect(await store.revokeKey('key_2', t0 + 1000, 'acc_a')).toBe(true);
      expect(await store.revokeKey('key_2', t0 + 2000)).toBe(false);
      expect((await store.findKeyByHash('h2'))?.revokedAt).toBe(t0 + 1000);
    });

    it('adds usage counters from several batches', async () => {
      await store.recordUsage({
        daily: [
          { accountId: 'acc_a', service: 'render', day: '2026-01-02', outcome: 'ok', count: 3 },
          { accountId: 'acc_a', service: 'render', day: '2026-01-02', outcome: 'rate_limited', count: 1 },
        ],
        keyDaily: [],
        keyHourly: [],
      });
      await store.recordUsage({
        daily: [{ accountId: 'acc_a', service: 'render', day: '2026-01-02', outcome: 'ok', count: 4 }],
        keyDaily: [],
        keyHourly: [],
      });
      await store.recordUsage({
        daily: [{ accountId: 'acc_a', service: 'metadata', day: '2026-01-01', outcome: 'client_error', count: 2 }],
        keyDaily: [],
        keyHourly: [],
      });
      const rows = await store.usageSince('acc_a', '2026-01-02');
      expect(rows.sort((a, b) => a.outcome.localeCompare(b.outcome))).toEqual([
        { accountId: 'acc_a', service: 'render', day: '2026-01-02', outcome: 'ok', count: 7 },
        { accountId: 'acc_a', service: 'render', day: '2026-01-02', outcome: 'rate_limited', count: 1 },
      ]);
    });

    it('keeps sessions and deletes them per account', async () => {
      await store.createAccount({ id: 'acc_c', email: 'c@example.com', passwordHash: 'x', createdAt: t0 });
      for (const id of ['s1', 's2', 's3']) {
        await store.createSession(id, { accountId: 'acc_c', csrfToken: `csrf-${id}`, createdAt: t0, lastSeenAt: t0 });
      }
      await store.touchSession('s1', t0 + 60);
      expect(await store.findSession('s1')).toEqual({
        accountId: 'acc_c',
        csrfToken: 'csrf-s1',
        createdAt: t0,
        lastSeenAt: t0 + 60,
      });
      await store.deleteSessionsOf('acc_c', 's1');
      expect(await store.findSession('s2')).toBeUndefined();
      expect(await store.findSession('s1')).toBeDefined();
      await store.deleteSession('s1');
      expect(await store.findSession('s1')).toBeUndefined();
    });

    it('deletes sessions past the idle or the absolute timeout', async () => {
      await store.createSession('old-idle', { accountId: 'acc_c', csrfToken: 'c1', createdAt: t0, lastSeenAt: t0 });
      await store.createSession('old-created', {
        accountId: 'acc_c',
        csrfToken: 'c2',
        createdAt: t0 - 5000,
        lastSeenAt: t0 + 900,
      });
      await store.createSession('live', { accountId: 'acc_c', csrfToken: 'c3', createdAt: t0, lastSeenAt: t0 + 900 });
      expect(await store.deleteExpiredSessions(t0 + 500, t0 - 1000)).toBe(2);
      expect(await store.findSession('old-idle')).toBeUndefined();
      expect(await store.findSession('old-created')).toBeUndefined();
      expect(await store.findSession('live')).toBeDefined();
      await store.deleteSession('live');
    });

    it('stores a password hash', async () => {
      await store.setPasswordHash('acc_c', 'scrypt$new');
      expect((await store.findAccountById('acc_c'))?.passwordHash).toBe('scrypt$new');
      await store.ping();
    });
  });
}
