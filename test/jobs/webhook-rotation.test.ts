/**
 * Secret rotation with overlap: after `pageworks webhooks secret --rotate`, every delivery for 24 h carries
 * two signatures (`v1,<new> v1,<old>`), each of which verifies alone with the `standardwebhooks` package
 * receivers use; a day later (fake clock) only the new secret verifies. Reveal and rotate from the CLI are
 * in the account's activity log. The store part runs on SQLite and, when DATABASE_URL is set, PostgreSQL.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startWebhookDispatcher, type WebhookDispatcher } from '../../src/jobs/webhook-dispatcher.js';
import { SECRET_OVERLAP_MS, WebhookSecrets } from '../../src/jobs/webhook-secrets.js';
import { createPinnedAgent } from '../../src/net/pinned-agent.js';
import { createEgressPolicy } from '../../src/net/policy.js';
import { SecretBox } from '../../src/secrets/sealing.js';
import { loadServerKey } from '../../src/secrets/server-key.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import { runPageworks } from '../helpers/cli.js';
import { noDns } from '../helpers/render.js';
import { storeBackends } from '../helpers/store-backends.js';
import { finishedJob, storeAccount, until } from '../helpers/webhook-jobs.js';
import { type Delivery, startWebhookSink, type WebhookSink } from '../helpers/webhook-sink.js';

const agent = createPinnedAgent();
const policy = createEgressPolicy({ allow: ['127.0.0.1/32'], lookup: noDns });
const DAY_AND_A_MINUTE = SECRET_OVERLAP_MS + 60_000;

/** Whether the delivery verifies with `secret` alone (the receiver's own check, timestamp included). */
function verifiesWith(secret: string, d: Delivery): boolean {
  try {
    new Webhook(secret).verify(d.body, d.headers);
    return true;
  } catch (err) {
    if (err instanceof WebhookVerificationError) return false;
    throw err;
  }
}

afterAll(() => agent.close());
afterEach(() => {
  vi.useRealTimers();
});

describe('pageworks webhooks secret --rotate, then deliveries', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-rotate-'));
  const got: Delivery[] = [];
  let sink: WebhookSink;
  let store: Store;
  let dispatcher: WebhookDispatcher | undefined;

  beforeAll(async () => {
    sink = await startWebhookSink(got);
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await store?.close();
    await sink.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const startDispatcher = () => {
    dispatcher = startWebhookDispatcher({
      store,
      // The key the CLI sealed the secrets with: the data directory's key file, as `serve` reads it.
      secrets: loadServerKey({ dataDir, databaseUrl: undefined, secretsKey: undefined, secretsKeyPrevious: [] })?.box,
      policy,
      agent,
      publicBaseUrl: 'http://render.test',
      log: { warn: () => {} },
      pollMs: 50,
    });
  };

  it('the next delivery verifies with the new secret and with the old one; a day later only with the new one', async () => {
    const email = 'rotate@example.com';
    expect(runPageworks(dataDir, ['accounts', 'create', '--email', email]).code).toBe(0);
    const old = runPageworks(dataDir, ['webhooks', 'secret', '--email', email]).stdout.trim();
    const rotatedAt = Date.now();
    const rotated = runPageworks(dataDir, ['webhooks', 'secret', '--email', email, '--rotate']);
    expect(rotated.code).toBe(0);
    const fresh = rotated.stdout.trim();
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(old);
    // It says until when the old secret still signs: a day from the rotation.
    const until24h = /with the old one too until (\S+Z) \(24 h\)/.exec(rotated.stderr)?.[1];
    expect(until24h, rotated.stderr).toBeDefined();
    expect(Math.abs(Date.parse(until24h as string) - (rotatedAt + SECRET_OVERLAP_MS))).toBeLessThan(60_000);

    store = await openSqliteStore(dataDir);
    const account = await store.findAccountByEmail(email);
    if (!account) throw new Error('account missing');
    const jobId = await finishedJob(store, account.id, sink.url, 'failed');
    startDispatcher();
    await until(() => got.length === 1, 'the delivery after the rotation');
    const first = got[0] as Delivery;
    expect(first.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    expect(verifiesWith(fresh, first)).toBe(true);
    expect(verifiesWith(old, first)).toBe(true);

    // A day and a minute later (Date only: timers and the store run as usual), the event is redelivered.
    await dispatcher?.stop();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(rotatedAt + DAY_AND_A_MINUTE);
    startDispatcher();
    expect(await store.redeliverWebhook(account.id, jobId, Date.now(), 60_000)).toEqual({ kind: 'queued' });
    await until(() => got.length === 2, 'the delivery a day later');
    const later = got[1] as Delivery;
    expect(later.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifiesWith(fresh, later)).toBe(true);
    expect(verifiesWith(old, later)).toBe(false);
  });

  it('the activity log shows the reveal and the rotation, by the CLI', async () => {
    const account = await store.findAccountByEmail('rotate@example.com');
    const entries = await store.listActivity(account?.id ?? '', 10, 0);
    const byKind = (kind: string) => entries.find((e) => e.kind === kind);
    expect(byKind('webhook_secret_revealed')).toMatchObject({ actor: 'cli', detail: 'printed by the CLI' });
    expect(byKind('webhook_secret_rotated')).toMatchObject({ actor: 'cli' });
    expect(byKind('webhook_secret_rotated')?.detail).toMatch(/^the old secret signs too until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

for (const backend of storeBackends('hookrot')) {
  describe.skipIf(!backend.enabled)(`rotation in the store on ${backend.name}`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await backend.open();
    });
    afterAll(async () => {
      await store?.close();
      await backend.cleanup();
    });

    it('signs with the new and the replaced secret for 24 h, then with the new one; a second rotation replaces the pair', async () => {
      const id = await storeAccount(store);
      let now = Date.UTC(2026, 10, 25, 12);
      const secrets = new WebhookSecrets(store, new SecretBox(crypto.randomBytes(32)), () => now);
      // Never had one: a rotation has nothing to overlap with.
      const first = await secrets.rotate(id);
      expect(first.previousUntil).toBeNull();
      expect(await secrets.signing(id)).toEqual([first.secret]);
      const second = await secrets.rotate(id);
      expect(second.previousUntil).toBe(now + SECRET_OVERLAP_MS);
      expect(await secrets.signing(id)).toEqual([second.secret, first.secret]);
      expect(await secrets.get(id)).toBe(second.secret);
      now += SECRET_OVERLAP_MS - 1;
      expect(await secrets.signing(id)).toEqual([second.secret, first.secret]);
      now += 1;
      expect(await secrets.signing(id)).toEqual([second.secret]);
      const third = await secrets.rotate(id);
      expect(await secrets.signing(id)).toEqual([third.secret, second.secret]);
    });
  });
}
