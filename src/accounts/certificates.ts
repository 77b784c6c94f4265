/**
 * An account's signing certificates: uploaded as PKCS#12, listed, deleted, and opened to sign. The
 * private key is sealed at rest with the server's key (secrets/sealing.ts: AES-256-GCM, bound to the
 * certificate's id and account, so a sealed key copied onto another row does not open); it is never
 * returned and never logged. A server without the key refuses uploads and cannot sign.
 */
import crypto, { type KeyObject } from 'node:crypto';
import { invalid, RenderError } from '../errors.js';
import { newId } from '../ids.js';
import type { SecretBox } from '../secrets/sealing.js';
import type { CertificateStore, SigningCertificateRecord } from '../store/certificate-queries.js';
import type { ClientInfo } from './activity.js';
import { CertificateRefused, checkSigningCertificate } from './certificate-checks.js';
import { type ParsedPkcs12, Pkcs12Error } from './pkcs12.js';

/** A certificate as the API and the dashboard show it. */
export interface CertificateView {
  id: string;
  name: string | null;
  subject: string;
  issuer: string;
  notAfter: number;
  createdAt: number;
}

/** What signPdf needs, with what a caller reports: the chain (DER, signer first) and the opened key. */
export interface CertificateSigner {
  certificateChain: Buffer[];
  privateKey: KeyObject;
  subject: string;
  notAfter: Date;
}

/**
 * Reads a PKCS#12 upload with its password; a file it refuses (or whose reading overran its limits) is
 * Pkcs12Error, the message for the uploader. app/core.ts gives one that reads in a PDF worker
 * (pdf/engine.ts), off the event loop: a file can ask for billions of key-derivation iterations.
 */
export type Pkcs12Reader = (data: Buffer, password: string) => Promise<ParsedPkcs12>;

/** Who uploads or deletes (for the activity log). */
export interface CertificateActor {
  actor: 'dashboard' | 'api';
  client?: ClientInfo;
}

/** The activity log as this service writes it. */
export interface CertificateActivity {
  record(
    accountId: string,
    kind: 'certificate_uploaded' | 'certificate_deleted',
    actor: CertificateActor['actor'],
    opts: { client?: ClientInfo; detail?: string },
  ): Promise<void>;
}

/** Longest certificate name. */
export const MAX_CERTIFICATE_NAME = 100;
/** Largest PKCS#12 file accepted (a long chain fits many times over). */
export const MAX_PKCS12_BYTES = 64 * 1024;

function unavailable(): RenderError {
  return new RenderError(
    'SERVICE_UNAVAILABLE',
    'signing certificates are not enabled on this server: its operator must set SECRETS_KEY (see docs/deploy.md)',
  );
}

/** What a certificate's sealed private key is bound to: its account and id. */
export function certificateSealContext(accountId: string, id: string): string {
  return `${accountId}\n${id}`;
}

const view = (r: SigningCertificateRecord): CertificateView => ({
  id: r.id,
  name: r.name,
  subject: r.subject,
  issuer: r.issuer,
  notAfter: r.notAfter,
  createdAt: r.createdAt,
});

/** Uploads, lists, deletes and opens an account's signing certificates. */
export class CertificateService {
  constructor(
    private readonly store: CertificateStore,
    private readonly activity: CertificateActivity,
    /** The server's key, or undefined when the server has none. */
    private readonly secrets: SecretBox | undefined,
    private readonly now: () => number = Date.now,
    private readonly read: Pkcs12Reader = () => {
      throw new Error('this CertificateService was built without a PKCS#12 reader (app/core.ts gives one)');
    },
  ) {}

  /** Whether this server can take uploads and sign (it has a key). */
  get enabled(): boolean {
    return this.secrets !== undefined;
  }

  private open(record: SigningCertificateRecord, secrets: SecretBox): KeyObject {
    try {
      const der = secrets.open(record.sealedKey, certificateSealContext(record.accountId, record.id));
      return crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    } catch (error) {
      // The stored key no longer opens: the server's key changed since the upload. Only the operator can fix it.
      throw new RenderError(
        'SERVICE_UNAVAILABLE',
        `the private key of certificate ${record.id} does not open with this server's key (was SECRETS_KEY changed without SECRETS_KEY_PREVIOUS?)`,
        undefined,
        { cause: error },
      );
    }
  }

  /**
   * Reads a PKCS#12 upload and stores it; 400 INVALID_REQUEST for a wrong password, no private key or not
   * a PKCS#12 file, for one that asks too many iterations, and for a certificate that cannot sign
   * (certificate-checks.ts: not yet valid, a key usage without signing, a weak key or curve), 422
   * CERTIFICATE_EXPIRED when it is past its not-after date, 503 without a server key.
   */
  async upload(
    accountId: string,
    input: { pkcs12: Buffer; password: string; name?: string | null },
    by: CertificateActor,
  ): Promise<CertificateView> {
    const secrets = this.secrets;
    if (!secrets) throw unavailable();
    if (input.pkcs12.length === 0) throw invalid('pkcs12: empty (give the .p12/.pfx file, base64-encoded)');
    if (input.pkcs12.length > MAX_PKCS12_BYTES) {
      throw invalid(`pkcs12: larger than ${MAX_PKCS12_BYTES / 1024} KiB`);
    }
    let parsed: ParsedPkcs12;
    try {
      parsed = await this.read(input.pkcs12, input.password);
    } catch (error) {
      if (error instanceof Pkcs12Error) throw invalid(error.message);
      throw error;
    }
    const at = this.now();
    if (parsed.notAfter.getTime() <= at) {
      throw new RenderError('CERTIFICATE_EXPIRED', `pkcs12: the certificate expired on ${parsed.notAfter.toISOString()}`);
    }
    try {
      checkSigningCertificate(parsed.chain[0], at);
    } catch (error) {
      if (error instanceof CertificateRefused) throw invalid(error.message);
      throw error;
    }
    const id = newId('crt');
    const record: SigningCertificateRecord = {
      id,
      accountId,
      name: input.name?.trim() || null,
      subject: parsed.subject,
      issuer: parsed.issuer,
      notAfter: parsed.notAfter.getTime(),
      chain: parsed.chain,
      sealedKey: secrets.seal(parsed.privateKeyDer, certificateSealContext(accountId, id)),
      createdAt: at,
    };
    parsed.privateKeyDer.fill(0);
    await this.store.insertCertificate(record);
    await this.activity.record(accountId, 'certificate_uploaded', by.actor, {
      client: by.client,
      detail: `${id} · ${record.subject}`,
    });
    return view(record);
  }

  /** The account's certificates, newest first. */
  async list(accountId: string): Promise<CertificateView[]> {
    return (await this.store.listCertificates(accountId)).map(view);
  }

  /** Deletes the account's certificate; 404 NOT_FOUND when the account has none with this id. */
  async delete(accountId: string, id: string, by: CertificateActor): Promise<void> {
    const found = await this.store.findCertificate(accountId, id);
    if (!found || !(await this.store.deleteCertificate(accountId, id))) {
      throw new RenderError('NOT_FOUND', `no certificate ${id}`);
    }
    await this.activity.record(accountId, 'certificate_deleted', by.actor, {
      client: by.client,
      detail: `${id} · ${found.subject}`,
    });
  }

  /**
   * The signer of the account's certificate `id`, for signPdf. Errors name `sign.certificate`: 400
   * INVALID_REQUEST when the account has no such certificate (another account's included), 422
   * CERTIFICATE_EXPIRED when it is past its not-after date, 503 without a server key.
   */
  async signerFor(accountId: string, id: string): Promise<CertificateSigner> {
    const secrets = this.secrets;
    if (!secrets) throw unavailable();
    const record = await this.store.findCertificate(accountId, id);
    if (!record) throw invalid(`sign.certificate: this account has no certificate ${id}`);
    if (record.notAfter <= this.now()) {
      throw new RenderError(
        'CERTIFICATE_EXPIRED',
        `sign.certificate: certificate ${id} expired on ${new Date(record.notAfter).toISOString()}`,
      );
    }
    return {
      certificateChain: record.chain,
      privateKey: this.open(record, secrets),
      subject: record.subject,
      notAfter: new Date(record.notAfter),
    };
  }
}
