/**
 * Webhook signing secrets at rest: what `pageworks webhooks secret` shows and what its `--rotate` replaces
 * is kept only sealed with the server's key, so a copy of the database (a backup, a dump) cannot sign a
 * webhook that verifies. Read as an operator would (`select secret, previous_secret from webhook_secrets`),
 * on the embedded store with its key file and on PostgreSQL with SECRETS_KEY. During an upgrade the
 * secrets an older version stored in clear sign as before, beside sealed ones, in either column.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resealSecrets } from '../../src/cli-secrets.js';
import { SECRET_OVERLAP_MS, WebhookSecrets } from '../../src/jobs/webhook-secrets.js';
import { newWebhookSecret } from '../../src/jobs/webhook-signing.js';
import { SecretBox } from '../../src/secrets/sealing.js';
import { openSqliteFile } from '../../src/store/sqlite-driver.js';
import type { Store } from '../../src/store/store.js';
import { DATABASE_URL } from '../helpers/backends.js';
import { runPageworks } from '../helpers/cli.js';
import { storeBackends } from '../helpers/store-backends.js';
import { storeAccount } from '../helpers/webhook-jobs.js';
import { type FreshDatabase, freshDatabase } from '../scale/backends.js';
import { runCli } from '../scale/instances.js';

interface SecretRow {
  secret: string;
  previous_secret: string | null;
}
type Cli = (args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>;

interface Backend {
  name: string;
  enabled: boolean;
  /** The CLI on this store, and the webhook_secrets rows as they sit in it. */
  open(dataDir: string): Promise<{ cli: Cli; rows(): Promise<SecretRow[]>; close(): Promise<void> }>;
}

const SELECT = 'select secret, previous_secret from webhook_secrets';

const backends: Backend[] = [
  {
    name: 'the embedded store (its key file)',
    enabled: true,
    open: async (dataDir) => ({
      cli: async (args) => runPageworks(dataDir, args),
      rows: async () => {
        const file = openSqliteFile(path.join(dataDir, 'pageworks.sqlite'), { readonly: true });
        try {
          return file.prepare(SELECT).all([]) as SecretRow[];
        } finally {
          file.close();
        }
      },
      close: async () => {},
    }),
  },
  {
    name: 'PostgreSQL (SECRETS_KEY)',
    enabled: Boolean(DATABASE_URL),
    open: async (dataDir) => {
      const db: FreshDatabase = await freshDatabase(DATABASE_URL as string, 'pw_hooksecret');
      return {
        // runCli gives the process the deployment's SECRETS_KEY, as every instance at scale has it.
        cli: (args) => runCli(args, { DATABASE_URL: db.url, PAGEWORKS_DATA_DIR: dataDir, LOG_LEVEL: 'warn' }),
        rows: async () => (await db.query(SELECT)) as SecretRow[],
        close: () => db.drop(),
      };
    },
  },
];

/** Whether `stored` holds `secret` or its key bytes in any readable form. */
function holds(stored: string | null, secret: string): boolean {
  if (stored === null) return false;
  const key = secret.slice('whsec_'.length);
  return stored.includes(secret) || stored.includes(key) || stored.includes(Buffer.from(key, 'base64').toString('hex'));
}

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`webhook secrets at rest on ${backend.name}`, () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-hooksecret-'));
    let store: Awaited<ReturnType<Backend['open']>>;
    const email = 'sealed-hooks@example.com';

    beforeAll(async () => {
      store = await backend.open(dataDir);
      const created = await store.cli(['accounts', 'create', '--email', email]);
      expect(created.code, created.stderr).toBe(0);
    }, 60_000);
    afterAll(async () => {
      await store?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('the secret shown and the one a rotation replaced are stored sealed, never in clear; the CLI shows them opened', async () => {
      const shown = await store.cli(['webhooks', 'secret', '--email', email]);
      expect(shown.code, shown.stderr).toBe(0);
      const first = shown.stdout.trim();
      expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const [row] = await store.rows();
      expect(row.secret).toMatch(/^v1\./);
      expect(holds(row.secret, first), 'the secret in clear in the store').toBe(false);
      expect(row.previous_secret).toBeNull();

      const rotated = await store.cli(['webhooks', 'secret', '--email', email, '--rotate']);
      expect(rotated.code, rotated.stderr).toBe(0);
      const second = rotated.stdout.trim();
      expect(second).toMatch(/^whsec_/);
      const [after] = await store.rows();
      for (const value of [after.secret, after.previous_secret]) {
        expect(value).toMatch(/^v1\./);
        expect(holds(value, first) || holds(value, second), 'a secret in clear in the store').toBe(false);
      }
      expect((await store.cli(['webhooks', 'secret', '--email', email])).stdout.trim()).toBe(second);
    }, 60_000);
  });
}

for (const backend of storeBackends('hooksealed')) {
  describe.skipIf(!backend.enabled)(`clear and sealed webhook secrets side by side on ${backend.name}`, () => {
    let store: Store;
    const box = new SecretBox(crypto.randomBytes(32));
    beforeAll(async () => {
      store = await backend.open();
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });

    it("a secret an older version stored in clear signs as it did; that version's rotation over a sealed one keeps both signing", async () => {
      const id = await storeAccount(store);
      const now = Date.now();
      const secrets = new WebhookSecrets(store, box, () => now);
      const clear = newWebhookSecret();
      // As the older version wrote it on its first delivery.
      await store.ensureWebhookSecret(id, clear, now);
      expect(await secrets.get(id)).toBe(clear);
      expect(await secrets.signing(id)).toEqual([clear]);
      // Rotated here: the new one sealed, the clear one signs beside it for the overlap, moved as it was.
      const rotated = await secrets.rotate(id);
      expect(await store.findWebhookSecrets(id)).toMatchObject({ secret: expect.stringMatching(/^v1\./), previousSecret: clear });
      expect(await secrets.signing(id)).toEqual([rotated.secret, clear]);
      // An instance of the older version rotates meanwhile: its clear secret, and the sealed one it replaced.
      const older = newWebhookSecret();
      await store.rotateWebhookSecret(id, older, now, now + SECRET_OVERLAP_MS);
      expect(await store.findWebhookSecrets(id)).toMatchObject({ secret: older, previousSecret: expect.stringMatching(/^v1\./) });
      expect(await secrets.signing(id)).toEqual([older, rotated.secret]);
    });

    it("a sealed secret opens only for its account and with the server's key; without a key none is made", async () => {
      const [a, b] = [await storeAccount(store), await storeAccount(store)];
      const secret = await new WebhookSecrets(store, box).get(a);
      const sealed = await store.findWebhookSecret(a);
      await store.ensureWebhookSecret(b, sealed ?? '', Date.now());
      await expect(new WebhookSecrets(store, box).get(b)).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        message: expect.stringContaining('SECRETS_KEY_PREVIOUS'),
      });
      const lostBox = new SecretBox(crypto.randomBytes(32));
      const lostKey = new WebhookSecrets(store, lostBox);
      await expect(lostKey.get(a)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(await new WebhookSecrets(store, box).get(a)).toBe(secret);
      // The key lost, a rotation makes a secret that signs alone: the one it replaced opens no more.
      const d = await storeAccount(store);
      await new WebhookSecrets(store, box).get(d);
      const fresh = await lostKey.rotate(d);
      expect(await lostKey.signing(d)).toEqual([fresh.secret]);
      // `secrets rotate` names that account while the replaced secret's day lasts, and drops it after.
      expect((await resealSecrets(store, lostBox)).unopened).toContain(d);
      expect((await resealSecrets(store, lostBox, Date.now() + SECRET_OVERLAP_MS + 1000)).unopened).not.toContain(d);
      expect(await store.findWebhookSecrets(d)).toMatchObject({ previousSecret: null });
      expect(await lostKey.signing(d)).toEqual([fresh.secret]);
      const c = await storeAccount(store);
      await expect(new WebhookSecrets(store, undefined).get(c)).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        message: expect.stringContaining('must set SECRETS_KEY'),
      });
      expect(await store.findWebhookSecret(c)).toBeUndefined();
    });
  });
}
