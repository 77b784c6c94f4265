import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { storeBackends } from '../helpers/store-backends.js';

// The store side of password changes (credential version, sessions and reset tokens ended in the same
// transaction) and of the purge of sealed new keys, against both adapters.

const backends = storeBackends('credential');
const t0 = 1_700_000_000_000;

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`credential store contract: ${backend.name}`, () => {
    let store: Store;

    beforeAll(async () => {
      store = await backend.open();
      for (const id of ['acc_v', 'acc_w']) {
        await store.createAccount({ id, email: `${id}@example.com`, passwordHash: 'old', createdAt: t0 });
      }
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });

    it('a password change bumps the version and ends the sessions and reset tokens of that account only', async () => {
      expect((await store.findAccountById('acc_v'))?.credentialVersion).toBe(0);
      const session = { csrfToken: 'c', createdAt: t0, lastSeenAt: t0 };
      await store.createSession('v_before', { ...session, accountId: 'acc_v', credentialVersion: 0 });
      await store.createSession('w_keeps', { ...session, accountId: 'acc_w', credentialVersion: 0 });
      await store.insertResetToken({ tokenHash: 'tok_v', accountId: 'acc_v', createdAt: t0, expiresAt: t0 + 60_000 });

      expect(await store.setPasswordHash('acc_v', 'new')).toBe(1);
      const account = await store.findAccountById('acc_v');
      expect(account).toMatchObject({ passwordHash: 'new', credentialVersion: 1 });
      expect(await store.findSession('v_before')).toBeUndefined();
      expect(await store.findUsableResetToken('tok_v', t0)).toBeUndefined();
      expect(await store.findSession('w_keeps')).toMatchObject({ accountId: 'acc_w' });
      expect(await store.setPasswordHash('acc_v', 'newer')).toBe(2);
    });

    it('refuses, lists not and purges a session minted under an older version', async () => {
      // As a log-in that checked the old hash would write it after the change had committed.
      const session = { accountId: 'acc_v', csrfToken: 'c', createdAt: t0, lastSeenAt: t0 };
      await store.createSession('v_stale', { ...session, credentialVersion: 1 });
      await store.createSession('v_current', { ...session, credentialVersion: 2 });
      expect(await store.findSession('v_stale')).toBeUndefined();
      expect(await store.findSession('v_current')).toMatchObject({ accountId: 'acc_v' });
      expect((await store.listSessions('acc_v')).map((s) => s.idHash)).toEqual(['v_current']);
      expect(await store.deleteExpiredSessions(t0 - 1, t0 - 1)).toBe(1);
      expect(await store.findSession('v_current')).toBeDefined();
    });

    it('deletes sealed new keys put before a time', async () => {
      await store.insertKey({
        id: 'key_v',
        accountId: 'acc_v',
        service: 'render',
        keyHash: 'a'.repeat(64),
        displayPrefix: 'pwr_live_aaaa',
        name: null,
        createdAt: t0,
      });
      await store.putKeyReveal('v_current', 'key_v', 'sealed-old', t0);
      await store.createSession('v_other', {
        accountId: 'acc_v',
        csrfToken: 'c',
        createdAt: t0,
        lastSeenAt: t0,
        credentialVersion: 2,
      });
      await store.putKeyReveal('v_other', 'key_v', 'sealed-young', t0 + 600_000);
      expect(await store.deleteKeyRevealsBefore(t0 + 1)).toBe(1);
      expect(await store.takeKeyReveal('v_current', 'key_v', 0)).toBeUndefined();
      expect(await store.takeKeyReveal('v_other', 'key_v', 0)).toBe('sealed-young');
    });
  });
}
