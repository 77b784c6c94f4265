/**
 * The store's sealed secrets, across accounts, for a key rotation (cli-secrets.ts): certificates' sealed
 * private keys, the requests of jobs that may still hold `protect` passwords, and accounts' webhook signing
 * secrets. Each rewrite is conditional on the values read, so a row changed meanwhile (a job finished, a
 * certificate deleted, a webhook secret rotated) is left as it now is.
 */
import { bindQueries, type StoreContext } from './store-context.js';

/** One sealed value and what it belongs to. */
export interface SealedRow {
  id: string;
  accountId: string;
  value: string;
}

/** An account's webhook signing secrets as stored: the current one and the one its last rotation replaced (signing until `previousUntil`). */
export interface StoredWebhookSecrets {
  accountId: string;
  secret: string;
  previousSecret: string | null;
  previousUntil: number | null;
}

/** Store methods of a rotation of the server's key. */
export interface SealedSecretStore {
  /** Certificates after `afterId` (by id), `limit` at a time, with their sealed keys. */
  sealedCertificateKeys(afterId: string, limit: number): Promise<SealedRow[]>;
  /** Replaces a certificate's sealed key when it is still `was`; false when it changed or went. */
  replaceCertificateKey(id: string, was: string, sealed: string): Promise<boolean>;
  /** Queued and running jobs after `afterId` whose request has a `protect`, `limit` at a time. */
  protectedJobRequests(afterId: string, limit: number): Promise<SealedRow[]>;
  /** Replaces a job's request when it is still `was` and the job not final; false otherwise. */
  replaceJobRequest(id: string, was: string, request: string): Promise<boolean>;
  /** Accounts after `afterAccountId` (by id) with webhook secrets, `limit` at a time. */
  webhookSecretRows(afterAccountId: string, limit: number): Promise<StoredWebhookSecrets[]>;
  /** Replaces an account's two webhook secrets when both are still as `was`; false when either changed or went. */
  replaceWebhookSecrets(was: StoredWebhookSecrets, secret: string, previousSecret: string | null): Promise<boolean>;
}

/** See SealedSecretStore.sealedCertificateKeys. */
async function sealedCertificateKeys({ db }: StoreContext, afterId: string, limit: number) {
  const rows = await db
    .selectFrom('signing_certificates')
    .select(['id', 'account_id', 'sealed_key'])
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, accountId: r.account_id, value: r.sealed_key }));
}

/** See SealedSecretStore.replaceCertificateKey. */
async function replaceCertificateKey({ db }: StoreContext, id: string, was: string, sealed: string) {
  const result = await db
    .updateTable('signing_certificates')
    .set({ sealed_key: sealed })
    .where('id', '=', id)
    .where('sealed_key', '=', was)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** See SealedSecretStore.protectedJobRequests. */
async function protectedJobRequests({ db }: StoreContext, afterId: string, limit: number) {
  const rows = await db
    .selectFrom('render_jobs')
    .select(['id', 'account_id', 'request'])
    .where('status', 'in', ['queued', 'running'])
    .where('id', '>', afterId)
    .where('request', 'like', '%"protect":%')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, accountId: r.account_id, value: r.request }));
}

/** See SealedSecretStore.replaceJobRequest. */
async function replaceJobRequest({ db }: StoreContext, id: string, was: string, request: string) {
  const result = await db
    .updateTable('render_jobs')
    .set({ request })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .where('request', '=', was)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** See SealedSecretStore.webhookSecretRows. */
async function webhookSecretRows({ db }: StoreContext, afterAccountId: string, limit: number) {
  const rows = await db
    .selectFrom('webhook_secrets')
    .select(['account_id', 'secret', 'previous_secret', 'previous_until'])
    .where('account_id', '>', afterAccountId)
    .orderBy('account_id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    accountId: r.account_id,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousUntil: r.previous_until === null ? null : Number(r.previous_until),
  }));
}

/** See SealedSecretStore.replaceWebhookSecrets. */
async function replaceWebhookSecrets(
  { db }: StoreContext,
  was: StoredWebhookSecrets,
  secret: string,
  previousSecret: string | null,
) {
  const result = await db
    .updateTable('webhook_secrets')
    .set({ secret, previous_secret: previousSecret })
    .where('account_id', '=', was.accountId)
    .where('secret', '=', was.secret)
    .where((eb) =>
      was.previousSecret === null ? eb('previous_secret', 'is', null) : eb('previous_secret', '=', was.previousSecret),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The sealed secret queries over one store context. */
export function sealedSecretQueries(ctx: StoreContext): SealedSecretStore {
  return bindQueries(ctx, {
    sealedCertificateKeys,
    replaceCertificateKey,
    protectedJobRequests,
    replaceJobRequest,
    webhookSecretRows,
    replaceWebhookSecrets,
  });
}
