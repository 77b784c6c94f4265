/**
 * `pageworks secrets rotate`: every secret the store keeps sealed (certificates' private keys, queued
 * jobs' `protect` passwords, accounts' webhook signing secrets) opened with the key it was sealed with and
 * sealed again with the current one; what an older version stored in clear is sealed at last. With
 * SECRETS_KEY set, the current key is SECRETS_KEY and the old ones are in SECRETS_KEY_PREVIOUS; on the
 * embedded store without it, the command makes the data directory's new key itself and puts it in
 * place once everything is sealed with it (a rotation cut short is taken up again by the next run).
 */
import fs from 'node:fs';
import path from 'node:path';
import { certificateSealContext } from './accounts/certificates.js';
import { UsageError } from './cli-errors.js';
import type { Config } from './config.js';
import { resealJobRequest } from './jobs/job-secrets.js';
import { resealWebhookSecret } from './jobs/webhook-secret-sealing.js';
import type { SecretBox } from './secrets/sealing.js';
import { KEY_FILE, loadServerKey, NEXT_KEY_FILE, readKeyFile, readOrCreateKeyFile } from './secrets/server-key.js';
import { openStore } from './store/open-store.js';
import type { SealedSecretStore, StoredWebhookSecrets } from './store/store.js';

/** What a rotation did: values sealed again (webhook secrets: accounts), and the rows none of the keys opens (listed by id). */
export interface ResealResult {
  certificates: number;
  jobs: number;
  webhookSecrets: number;
  unopened: string[];
}

const BATCH = 200;

/**
 * Seals every stored secret that the current key did not seal with it; values no key opens are listed. A
 * webhook secret a rotation replaced whose day of signing is over (before `now`) is dropped, not sealed again.
 */
export async function resealSecrets(store: SealedSecretStore, box: SecretBox, now = Date.now()): Promise<ResealResult> {
  const result: ResealResult = { certificates: 0, jobs: 0, webhookSecrets: 0, unopened: [] };
  for (let after = ''; ; ) {
    const rows = await store.sealedCertificateKeys(after, BATCH);
    for (const row of rows) {
      const context = certificateSealContext(row.accountId, row.id);
      try {
        if (box.sealedWithCurrent(row.value, context)) continue;
        const sealed = box.seal(box.open(row.value, context), context);
        if (await store.replaceCertificateKey(row.id, row.value, sealed)) result.certificates += 1;
      } catch {
        result.unopened.push(row.id);
      }
    }
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1].id;
  }
  for (let after = ''; ; ) {
    const rows = await store.protectedJobRequests(after, BATCH);
    for (const row of rows) {
      try {
        const request = resealJobRequest(row.value, box, row.accountId, row.id);
        if (request !== undefined && (await store.replaceJobRequest(row.id, row.value, request))) result.jobs += 1;
      } catch {
        result.unopened.push(row.id);
      }
    }
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1].id;
  }
  for (let after = ''; ; ) {
    const rows = await store.webhookSecretRows(after, BATCH);
    for (const row of rows) {
      try {
        if (await resealWebhookSecrets(store, box, row, now)) result.webhookSecrets += 1;
      } catch {
        result.unopened.push(row.accountId);
      }
    }
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1].accountId;
  }
  return result;
}

/** Seals an account's webhook secrets again (or at last); whether the row was rewritten. */
async function resealWebhookSecrets(
  store: SealedSecretStore,
  box: SecretBox,
  row: StoredWebhookSecrets,
  now: number,
): Promise<boolean> {
  const secret = resealWebhookSecret(row.secret, box, row.accountId);
  // A replaced secret that signs no more is of no use to keep, and after a lost key it opens with none:
  // sealing it would fail the rotation for ever.
  const expired = row.previousSecret !== null && (row.previousUntil === null || row.previousUntil <= now);
  const previous =
    row.previousSecret === null || expired ? undefined : resealWebhookSecret(row.previousSecret, box, row.accountId);
  if (secret === undefined && previous === undefined && !expired) return false;
  return store.replaceWebhookSecrets(row, secret ?? row.secret, expired ? null : (previous ?? row.previousSecret));
}

/** The key the embedded store's rotation moves to: the file a cut-short rotation left, else a new one. */
function embeddedRotation(config: Config): { box: SecretBox; finish: () => void } {
  const file = path.join(config.dataDir, KEY_FILE);
  if (!fs.existsSync(file)) throw new UsageError(`no key to rotate: ${file} does not exist (serve makes it on its first start)`);
  const old = readKeyFile(file);
  const next = path.join(config.dataDir, NEXT_KEY_FILE);
  readOrCreateKeyFile(next);
  const key = loadServerKey({
    ...config,
    secretsKey: readKeyFile(next),
    secretsKeyPrevious: [old, ...config.secretsKeyPrevious],
  });
  if (!key) throw new Error('unreachable: a key was given');
  return { box: key.box, finish: () => fs.renameSync(next, file) };
}

/** Runs `pageworks secrets rotate`; 1 when a sealed value opened with none of the keys. */
export async function secretsRotate(config: Config): Promise<number> {
  const embedded = !config.secretsKey && !config.databaseUrl;
  if (!embedded && !config.secretsKey) {
    throw new UsageError('SECRETS_KEY: set it to the new key, with the old one in SECRETS_KEY_PREVIOUS, then rotate');
  }
  const rotation = embedded ? embeddedRotation(config) : undefined;
  const box = rotation?.box ?? loadServerKey(config)?.box;
  if (!box) throw new Error('unreachable: SECRETS_KEY is set');
  const store = await openStore(config);
  let result: ResealResult;
  try {
    result = await resealSecrets(store, box);
  } finally {
    await store.close();
  }
  const done =
    `sealed ${result.certificates} certificate key(s), ${result.jobs} queued job(s)' passwords and ` +
    `${result.webhookSecrets} account(s)' webhook secrets again with the new key`;
  if (result.unopened.length > 0) {
    console.error(
      `${done}; ${result.unopened.length} opened with none of the keys (${result.unopened.slice(0, 10).join(', ')}): ` +
        'give the key they were sealed with in SECRETS_KEY_PREVIOUS and run again',
    );
    return 1;
  }
  rotation?.finish();
  console.log(
    embedded
      ? `${done}; ${path.join(config.dataDir, KEY_FILE)} holds the new key (start serve again)`
      : `${done}; SECRETS_KEY_PREVIOUS can go once every instance runs with SECRETS_KEY`,
  );
  return 0;
}
