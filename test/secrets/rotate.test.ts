/**
 * Rotating the server's key: a value sealed with the old key still opens while it is in
 * SECRETS_KEY_PREVIOUS, `pageworks secrets rotate` seals every stored secret again with the new key
 * (certificates' private keys, queued jobs' passwords, webhook signing secrets, and the passwords and
 * webhook secrets an older version left in clear), on both stores, and on the embedded store without
 * SECRETS_KEY it makes the new key file itself.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CertificateService } from '../../src/accounts/certificates.js';
import { parsePkcs12 } from '../../src/accounts/pkcs12.js';
import { closeCore, createCore } from '../../src/app/core.js';
import { resealSecrets, secretsRotate } from '../../src/cli-secrets.js';
import { loadConfig } from '../../src/config.js';
import { newTimeOrderedId } from '../../src/ids.js';
import { openProtect } from '../../src/jobs/job-secrets.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { FileResultStore } from '../../src/jobs/results/file-results.js';
import { SECRET_OVERLAP_MS, WebhookSecrets } from '../../src/jobs/webhook-secrets.js';
import { newWebhookSecret } from '../../src/jobs/webhook-signing.js';
import { SecretBox } from '../../src/secrets/sealing.js';
import { KEY_FILE, NEXT_KEY_FILE } from '../../src/secrets/server-key.js';
import type { Store } from '../../src/store/store.js';
import { makeTestCertificates } from '../helpers/certificates.js';
import { createTestCore } from '../helpers/core.js';
import { storeBackends } from '../helpers/store-backends.js';

const certs = makeTestCertificates();
const PROTECT = { user_password: 'rotate-user-5c1e', owner_password: 'rotate-owner-9a2b' };
const activity = { record: async () => {} };

/**
 * An account with one certificate and one queued protected job, sealed with `box`; a job an older version
 * queued in clear, and webhook secrets it kept in clear (the current one and the one its rotation replaced).
 */
async function seedSecrets(store: Store, box: SecretBox, dir: string) {
  const account = await store.createAccount({
    id: `acc_${crypto.randomBytes(8).toString('hex')}`,
    email: `${crypto.randomUUID()}@example.com`,
    passwordHash: null,
    createdAt: Date.now(),
  });
  // The PKCS#12 is read in process here (the service reads it in a PDF worker): this test is about the sealing.
  const readInProcess = async (data: Buffer, password: string) => parsePkcs12(data, password);
  const cert = await new CertificateService(store, activity, box, Date.now, readInProcess).upload(
    account.id,
    { pkcs12: certs.ec, password: certs.password },
    { actor: 'api' },
  );
  const queue = new JobQueue({ store, results: new FileResultStore(dir), maxQueuedPerAccount: 100, secrets: box });
  const request = { parts: [{ html: '<p>x</p>' }], protect: PROTECT };
  const { row } = await queue.submit(account.id, { request, reference: null, webhookUrl: null, idempotencyKey: null });
  const clearId = newTimeOrderedId('job', Date.now());
  await store.insertJob({
    id: clearId,
    accountId: account.id,
    request: JSON.stringify({ kind: 'assemble', ...request }),
    reference: null,
    idempotencyKey: null,
    requestHash: null,
    webhookUrl: null,
    createdAt: Date.now(),
  });
  const webhook = [newWebhookSecret(), newWebhookSecret()];
  await store.ensureWebhookSecret(account.id, webhook[1], Date.now());
  await store.rotateWebhookSecret(account.id, webhook[0], Date.now(), Date.now() + SECRET_OVERLAP_MS);
  return { accountId: account.id, certId: cert.id, jobId: row.id, clearId, webhook };
}

/** The account's webhook secrets as the store holds them: each must be sealed, neither in clear. */
async function expectWebhookSecretsSealed(store: Store, accountId: string, clear: string[]) {
  const stored = await store.findWebhookSecrets(accountId);
  for (const value of [stored?.secret, stored?.previousSecret]) {
    expect(value).toMatch(/^v1\./);
    for (const secret of clear) expect(value).not.toContain(secret.slice('whsec_'.length));
  }
}

async function storedProtect(store: Store, accountId: string, jobId: string) {
  const row = await store.findJob(jobId, accountId);
  return JSON.parse(row?.request ?? '{}').protect;
}

describe.each(storeBackends('secrets_rotate'))('rotation on $name', (backend) => {
  let store: Store | undefined;
  afterAll(async () => {
    await store?.close();
    await backend.cleanup();
  });

  it.runIf(backend.enabled)('opens with SECRETS_KEY_PREVIOUS until rotated, then with the new key alone', async () => {
    store = await backend.open();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-rotate-'));
    const [oldKey, newKey] = [crypto.randomBytes(32), crypto.randomBytes(32)];
    const seeded = await seedSecrets(store, new SecretBox(oldKey), dir);
    const newAlone = new SecretBox(newKey);
    const during = new SecretBox(newKey, [oldKey]);
    // The old key in SECRETS_KEY_PREVIOUS still opens what it sealed.
    await expect(
      new CertificateService(store, activity, during).signerFor(seeded.accountId, seeded.certId),
    ).resolves.toMatchObject({});
    await expect(
      new CertificateService(store, activity, newAlone).signerFor(seeded.accountId, seeded.certId),
    ).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    const sealedBefore = await storedProtect(store, seeded.accountId, seeded.jobId);
    expect(() => openProtect(sealedBefore, newAlone, seeded.accountId, seeded.jobId)).toThrow(/SECRETS_KEY_PREVIOUS/);

    // Until then, the webhook secrets an older version kept in clear sign as they did.
    expect(await new WebhookSecrets(store, newAlone).signing(seeded.accountId)).toEqual(seeded.webhook);

    const result = await resealSecrets(store, during);
    expect(result).toEqual({ certificates: 1, jobs: 2, webhookSecrets: 1, unopened: [] });
    await expectWebhookSecretsSealed(store, seeded.accountId, seeded.webhook);
    // Sealed, they are the same secrets: receivers change nothing.
    expect(await new WebhookSecrets(store, newAlone).signing(seeded.accountId)).toEqual(seeded.webhook);
    const signer = await new CertificateService(store, activity, newAlone).signerFor(seeded.accountId, seeded.certId);
    expect(signer.privateKey.asymmetricKeyType).toBe('ec');
    for (const id of [seeded.jobId, seeded.clearId]) {
      const sealed = await storedProtect(store, seeded.accountId, id);
      expect(JSON.stringify(sealed)).not.toContain(PROTECT.user_password);
      expect(openProtect(sealed, newAlone, seeded.accountId, id)).toEqual(PROTECT);
    }
    // A second run has nothing left to do; a key that opens nothing is named, not skipped in silence.
    expect(await resealSecrets(store, during)).toEqual({ certificates: 0, jobs: 0, webhookSecrets: 0, unopened: [] });
    const stranger = await resealSecrets(store, new SecretBox(crypto.randomBytes(32)));
    expect(stranger.unopened).toEqual(expect.arrayContaining([seeded.certId, seeded.jobId, seeded.clearId, seeded.accountId]));
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('pageworks secrets rotate on the embedded store', () => {
  it('makes a new key file, seals everything with it, and the server opens it after a restart', async () => {
    const core = await createTestCore();
    const dir = core.config.dataDir;
    const keyFile = path.join(dir, KEY_FILE);
    const oldKey = fs.readFileSync(keyFile, 'utf8');
    const seeded = await seedSecrets(core.store, core.secrets!.box, dir);
    await closeCore(core);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const config = loadConfig({ PAGEWORKS_DATA_DIR: dir, LOG_LEVEL: 'silent' });
    try {
      expect(await secretsRotate(config)).toBe(0);
      expect(log.mock.calls.flat().join('\n')).toContain(
        `sealed 1 certificate key(s), 2 queued job(s)' passwords and 1 account(s)' webhook secrets again with the new key; ${keyFile} holds the new key`,
      );
    } finally {
      log.mockRestore();
    }
    const newKey = fs.readFileSync(keyFile, 'utf8');
    expect(newKey).toMatch(/^[0-9a-f]{64}\n$/);
    expect(newKey).not.toBe(oldKey);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(fs.existsSync(path.join(dir, NEXT_KEY_FILE))).toBe(false);
    const restarted = await createCore(config);
    try {
      const signer = await restarted.certificates.signerFor(seeded.accountId, seeded.certId);
      expect(signer.privateKey.asymmetricKeyType).toBe('ec');
      const sealed = await storedProtect(restarted.store, seeded.accountId, seeded.jobId);
      expect(openProtect(sealed, new SecretBox(Buffer.from(newKey.trim(), 'hex')), seeded.accountId, seeded.jobId)).toEqual(
        PROTECT,
      );
      expect(() =>
        openProtect(sealed, new SecretBox(Buffer.from(oldKey.trim(), 'hex')), seeded.accountId, seeded.jobId),
      ).toThrow();
      await expectWebhookSecretsSealed(restarted.store, seeded.accountId, seeded.webhook);
      expect(await new WebhookSecrets(restarted.store, restarted.secrets?.box).signing(seeded.accountId)).toEqual(seeded.webhook);
    } finally {
      await closeCore(restarted);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
