/** The store's signing certificate queries: an account's certificates, their chains and sealed private keys. */
import type { SigningCertificatesTable } from './schema.js';
import { bindQueries, type StoreContext } from './store-context.js';

/** A signing certificate as stored: the chain as DER, the private key only sealed (certificates.ts). */
export interface SigningCertificateRecord {
  id: string;
  accountId: string;
  name: string | null;
  subject: string;
  issuer: string;
  notAfter: number;
  /** DER certificates, the signer's own first. */
  chain: Buffer[];
  /** The private key sealed with the server's key (SECRETS_KEY); opened only to sign. */
  sealedKey: string;
  createdAt: number;
}

/** The signing certificate part of the store. */
export interface CertificateStore {
  insertCertificate(record: SigningCertificateRecord): Promise<void>;
  /** The account's certificates, newest first. */
  listCertificates(accountId: string): Promise<SigningCertificateRecord[]>;
  /** The certificate when it is the account's (another account's is not found). */
  findCertificate(accountId: string, id: string): Promise<SigningCertificateRecord | undefined>;
  /** Deletes the account's certificate; false when it has no such certificate. */
  deleteCertificate(accountId: string, id: string): Promise<boolean>;
}

function toRecord(row: SigningCertificatesTable): SigningCertificateRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    subject: row.subject,
    issuer: row.issuer,
    notAfter: Number(row.not_after),
    chain: row.chain.split(',').map((c) => Buffer.from(c, 'base64')),
    sealedKey: row.sealed_key,
    createdAt: Number(row.created_at),
  };
}

/** See CertificateStore.insertCertificate. */
async function insertCertificate({ db }: StoreContext, r: SigningCertificateRecord) {
  await db
    .insertInto('signing_certificates')
    .values({
      id: r.id,
      account_id: r.accountId,
      name: r.name,
      subject: r.subject,
      issuer: r.issuer,
      not_after: r.notAfter,
      chain: r.chain.map((c) => c.toString('base64')).join(','),
      sealed_key: r.sealedKey,
      created_at: r.createdAt,
    })
    .execute();
}

/** See CertificateStore.listCertificates. */
async function listCertificates({ db }: StoreContext, accountId: string) {
  const rows = await db
    .selectFrom('signing_certificates')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(toRecord);
}

/** See CertificateStore.findCertificate. */
async function findCertificate({ db }: StoreContext, accountId: string, id: string) {
  const row = await db
    .selectFrom('signing_certificates')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row ? toRecord(row) : undefined;
}

/** See CertificateStore.deleteCertificate. */
async function deleteCertificate({ db }: StoreContext, accountId: string, id: string) {
  const result = await db
    .deleteFrom('signing_certificates')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The signing certificate queries over one store context. */
export function certificateQueries(ctx: StoreContext): CertificateStore {
  return bindQueries(ctx, { insertCertificate, listCertificates, findCertificate, deleteCertificate });
}
