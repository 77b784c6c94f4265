import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry, Store } from '../../src/store/store.js';
import { storeBackends } from '../helpers/store-backends.js';

// The store contract of issue 16's account recovery, activity log, sessions list and deletion,
// run against both adapters like store-contract.test.ts.

const backends = storeBackends('recovery');

const t0 = 1_700_000_000_000;

function entry(accountId: string, at: number, id: string, extra: Partial<ActivityEntry> = {}): ActivityEntry {
  return {
    id,
    accountId,
    at,
    kind: 'sign_in',
    actor: 'dashboard',
    ip: '203.0.113.9',
    userAgent: 'Test/1.0',
    detail: null,
    ...extra,
  };
}

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`recovery store contract: ${backend.name}`, () => {
    let store: Store;

    beforeAll(async () => {
      store = await backend.open();
      for (const id of ['acc_r', 'acc_s', 'acc_d']) {
        await store.createAccount({ id, email: `${id}@example.com`, passwordHash: 'x', createdAt: t0 });
      }
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });

    it('a reset token is usable until it expires, and is consumed exactly once', async () => {
      await store.insertResetToken({ tokenHash: 'th1', accountId: 'acc_r', createdAt: t0, expiresAt: t0 + 1000 });
      expect(await store.findUsableResetToken('th1', t0 + 999)).toBe('acc_r');
      expect(await store.findUsableResetToken('th1', t0 + 1000)).toBeUndefined();
      expect(await store.consumeResetToken('th1', t0 + 1000)).toBeUndefined();
      // Two consumers at once: one wins.
      const both = await Promise.all([store.consumeResetToken('th1', t0 + 10), store.consumeResetToken('th1', t0 + 10)]);
      expect(both.sort()).toEqual(['acc_r', undefined].sort());
      expect(await store.findUsableResetToken('th1', t0 + 20)).toBeUndefined();
      expect(await store.consumeResetToken('unknown', t0)).toBeUndefined();
    });

    it("deletes an account's reset tokens, and expired ones", async () => {
      await store.insertResetToken({ tokenHash: 'th2', accountId: 'acc_r', createdAt: t0, expiresAt: t0 + 1000 });
      await store.insertResetToken({ tokenHash: 'th3', accountId: 'acc_s', createdAt: t0, expiresAt: t0 + 1000 });
      await store.deleteResetTokensOf('acc_r');
      expect(await store.findUsableResetToken('th2', t0)).toBeUndefined();
      expect(await store.findUsableResetToken('th3', t0)).toBe('acc_s');
      expect(await store.deleteExpiredResetTokens(t0 + 1001)).toBe(1);
      expect(await store.findUsableResetToken('th3', t0)).toBeUndefined();
    });

    it('lists activity newest first, paginated, and prunes old entries', async () => {
      for (let i = 0; i < 5; i++) await store.addActivity(entry('acc_r', t0 + i * 1000, `act_${i}`, { detail: `n${i}` }));
      await store.addActivity(entry('acc_s', t0 + 99_000, 'act_other'));
      const first = await store.listActivity('acc_r', 2, 0);
      expect(first.map((e) => e.id)).toEqual(['act_4', 'act_3']);
      expect(first[0]).toEqual({
        id: 'act_4',
        accountId: 'acc_r',
        at: t0 + 4000,
        kind: 'sign_in',
        actor: 'dashboard',
        ip: '203.0.113.9',
        userAgent: 'Test/1.0',
        detail: 'n4',
      });
      expect((await store.listActivity('acc_r', 2, 2)).map((e) => e.id)).toEqual(['act_2', 'act_1']);
      expect((await store.listActivity('acc_r', 2, 4)).map((e) => e.id)).toEqual(['act_0']);
      expect(await store.pruneActivity(t0 + 2000)).toBe(2);
      expect((await store.listActivity('acc_r', 10, 0)).map((e) => e.id)).toEqual(['act_4', 'act_3', 'act_2']);
    });

    it('lists sessions with client details and ends one by public id, only for its own account', async () => {
      await store.createSession('hash_1', {
        accountId: 'acc_s',
        csrfToken: 'c',
        createdAt: t0,
        lastSeenAt: t0 + 5,
        publicId: 'pub_1',
        ip: '198.51.100.1',
        userAgent: 'UA one',
      });
      await store.createSession('hash_2', {
        accountId: 'acc_s',
        csrfToken: 'c',
        createdAt: t0 + 1,
        lastSeenAt: t0 + 6,
        publicId: 'pub_2',
        ip: null,
        userAgent: null,
      });
      expect(await store.listSessions('acc_s')).toEqual([
        { publicId: 'pub_2', idHash: 'hash_2', createdAt: t0 + 1, lastSeenAt: t0 + 6, ip: null, userAgent: null },
        { publicId: 'pub_1', idHash: 'hash_1', createdAt: t0, lastSeenAt: t0 + 5, ip: '198.51.100.1', userAgent: 'UA one' },
      ]);
      expect(await store.deleteSessionByPublicId('acc_r', 'pub_1')).toBe(false);
      expect(await store.deleteSessionByPublicId('acc_s', 'pub_1')).toBe(true);
      expect(await store.findSession('hash_1')).toBeUndefined();
      expect(await store.findSession('hash_2')).toBeDefined();
    });

    it('deletes an account with its keys, sessions, tokens, usage and activity, leaving a tombstone', async () => {
      await store.insertKey({
        id: 'key_d',
        accountId: 'acc_d',
        service: 'metadata',
        keyHash: 'kh_d',
        displayPrefix: 'pwm_live_dddd',
        name: null,
        createdAt: t0,
      });
      expect((await store.findKeyByHash('kh_d'))?.accountId).toBe('acc_d');
      await store.createSession('hash_d', {
        accountId: 'acc_d',
        csrfToken: 'c',
        createdAt: t0,
        lastSeenAt: t0,
        publicId: 'pub_d',
      });
      await store.insertResetToken({ tokenHash: 'th_d', accountId: 'acc_d', createdAt: t0, expiresAt: t0 + 1000 });
      await store.recordUsage({
        daily: [{ accountId: 'acc_d', service: 'metadata', day: '2026-01-02', outcome: 'ok', count: 3 }],
        keyDaily: [],
        keyHourly: [],
      });
      await store.addActivity(entry('acc_d', t0, 'act_d1'));

      const tombstone = entry('acc_d', t0 + 50, 'act_tomb', { kind: 'account_deleted', actor: 'cli', ip: null, userAgent: null });
      expect(await store.deleteAccount('acc_d', tombstone)).toBe(true);
      expect(await store.findAccountById('acc_d')).toBeUndefined();
      expect(await store.findAccountByEmail('acc_d@example.com')).toBeUndefined();
      expect(await store.findKeyByHash('kh_d')).toBeUndefined();
      expect(await store.findSession('hash_d')).toBeUndefined();
      expect(await store.findUsableResetToken('th_d', t0)).toBeUndefined();
      expect(await store.usageSince('acc_d', '2000-01-01')).toEqual([]);
      expect(await store.listActivity('acc_d', 10, 0)).toEqual([tombstone]);
      expect(JSON.stringify(await store.listActivity('acc_d', 10, 0))).not.toContain('@');
      expect(await store.deleteAccount('acc_d', { ...tombstone, id: 'act_tomb2' })).toBe(false);
      expect((await store.listActivity('acc_d', 10, 0)).map((e) => e.id)).toEqual(['act_tomb']);
    });

    it('drops usage counts of a deleted account instead of failing the whole batch', async () => {
      await store.recordUsage({
        daily: [
          { accountId: 'acc_d', service: 'metadata', day: '2026-01-03', outcome: 'ok', count: 2 },
          { accountId: 'acc_s', service: 'metadata', day: '2026-01-03', outcome: 'ok', count: 5 },
        ],
        keyDaily: [],
        keyHourly: [],
      });
      expect(await store.usageSince('acc_s', '2026-01-03')).toEqual([
        { accountId: 'acc_s', service: 'metadata', day: '2026-01-03', outcome: 'ok', count: 5 },
      ]);
      expect(await store.usageSince('acc_d', '2000-01-01')).toEqual([]);
    });

    // Each account is deleted while, at the same moment, its usage is flushed and its password changed:
    // the three write the account's rows in one transaction each, and none may fail. Before the deletion
    // locked the account row first, PostgreSQL broke a deadlock about once in 300 such races.
    it('deletes accounts while their usage is flushed and their password changed, without a deadlock', async () => {
      const failures: string[] = [];
      for (let round = 0; round < 100; round++) {
        const ids = [0, 1, 2].map((n) => `acc_race_${round}_${n}`);
        for (const id of ids) {
          await store.createAccount({ id, email: `${id}@example.com`, passwordHash: 'x', createdAt: t0 });
          await store.insertKey({
            id: `key_${id}`,
            accountId: id,
            service: 'render',
            keyHash: `kh_${id}`,
            displayPrefix: 'pwr_live_race',
            name: null,
            createdAt: t0,
          });
          await store.createSession(`hash_${id}`, {
            accountId: id,
            csrfToken: 'c',
            createdAt: t0,
            lastSeenAt: t0,
            publicId: `pub_${id}`,
          });
        }
        const counted = (id: string, bucket: string) => ({
          keyId: `key_${id}`,
          accountId: id,
          service: 'render' as const,
          bucket,
          outcome: 'ok' as const,
          count: 1,
        });
        const settled = await Promise.allSettled([
          store.recordUsage({
            daily: ids.map((id) => ({
              accountId: id,
              service: 'render' as const,
              day: '2026-01-02',
              outcome: 'ok' as const,
              count: 1,
            })),
            keyDaily: ids.map((id) => counted(id, '2026-01-02')),
            keyHourly: ids.map((id) => counted(id, '2026-01-02T10')),
          }),
          ...ids.map((id) => store.setPasswordHash(id, 'y')),
          ...ids.map((id, n) => store.deleteAccount(id, entry(id, t0, `act_race_${round}_${n}`, { kind: 'account_deleted' }))),
        ]);
        for (const s of settled) if (s.status === 'rejected') failures.push(String(s.reason));
        expect(failures).toEqual([]);
        expect(settled.slice(-ids.length).map((s) => s.status === 'fulfilled' && s.value)).toEqual([true, true, true]);
        for (const id of ids) {
          expect(await store.usageSince(id, '2000-01-01')).toEqual([]);
          expect(await store.keyUsageSince(id, '2000-01-01')).toEqual([]);
        }
      }
    });
  });
}
