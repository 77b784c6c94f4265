/**
 * The store's sealed secrets, across accounts, for a key rotation (secrets/reseal.ts): certificates'
 * sealed private keys and the requests of jobs that may still hold `protect` passwords. Each rewrite is
 * conditional on the value read, so a row changed meanwhile (a job finished, a certificate deleted) is
 * left as it now is.
 */
import { bindQueries, type StoreContext } from './store-context.js';

/** One sealed value and what it belongs to. */
export interface SealedRow {
  id: string;
  accountId: string;
  value: string;
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

/** The sealed secret queries over one store context. */
export function sealedSecretQueries(ctx: StoreContext): SealedSecretStore {
  return bindQueries(ctx, { sealedCertificateKeys, replaceCertificateKey, protectedJobRequests, replaceJobRequest });
}
