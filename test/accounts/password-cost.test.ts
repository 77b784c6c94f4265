/**
 * PASSWORD_HASH_COST: new hashes carry N = 2^cost, hashes of another cost still verify, an unknown email's
 * log-in checks a hash of the same cost, and the setting keeps to 14..20 (17 unset).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/accounts/accounts.js';
import { hashPassword, verifyPassword } from '../../src/accounts/password.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-cost-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
const config = (env: Record<string, string>) => loadConfig({ PAGEWORKS_DATA_DIR: dataDir, ...env });

describe('password hash cost', () => {
  it('is 17 unset, and anything outside 14..20 is refused', () => {
    expect(config({}).passwordHashCost).toBe(17);
    expect(config({ PASSWORD_HASH_COST: '14' }).passwordHashCost).toBe(14);
    expect(() => config({ PASSWORD_HASH_COST: '13' })).toThrow(/PASSWORD_HASH_COST/);
    expect(() => config({ PASSWORD_HASH_COST: '21' })).toThrow(/PASSWORD_HASH_COST/);
  });

  it('writes N = 2^cost into the hash, and a hash of another cost still verifies', async () => {
    const cheap = await hashPassword('correct horse battery', 14);
    expect(cheap.split('$').slice(0, 4)).toEqual(['scrypt', '16384', '8', '1']);
    const full = await hashPassword('correct horse battery');
    expect(full.split('$').slice(0, 4)).toEqual(['scrypt', '131072', '8', '1']);
    expect(await verifyPassword('correct horse battery', full)).toBe(true);
    expect(await verifyPassword('correct horse batterY', cheap)).toBe(false);
  });

  it('an account service hashes at its cost and logs in across costs', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-cost-store-'));
    const store = await openStore(loadConfig({ PAGEWORKS_DATA_DIR: dir }));
    try {
      const accounts = new AccountService(store, { passwordHashCost: 14 });
      const account = await accounts.create('cost@example.com', 'a long enough passphrase');
      expect((await store.findAccountById(account.id))?.passwordHash?.split('$')[1]).toBe('16384');
      // Raised later: the old hash still logs in; the next password is written at the new cost.
      const raised = new AccountService(store, { passwordHashCost: 15 });
      expect((await raised.authenticate('cost@example.com', 'a long enough passphrase'))?.id).toBe(account.id);
      await raised.changePassword(account.id, 'another long passphrase');
      expect((await store.findAccountById(account.id))?.passwordHash?.split('$')[1]).toBe('32768');
      expect(await raised.authenticate('nobody@example.com', 'a long enough passphrase')).toBeUndefined();
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
