import { renderServiceExchange } from './render-exchange.js';
import { type CallOptions, type ClientOptions, jsonOf } from './transport.js';

/** A signing certificate as the API shows it (never its private key). */
export interface Certificate {
  /** `crt_…`: what `sign.certificate` of an assembly names. */
  id: string;
  name: string | null;
  /** e.g. `CN=Acme Ltd, O=Acme, C=GB`. */
  subject: string;
  issuer: string;
  /** ISO 8601; the certificate cannot sign after it. */
  not_after: string;
  created_at: string;
}

/** What upload sends: the PKCS#12 file's bytes, its password, and an optional label. */
export interface CertificateUpload {
  pkcs12: Uint8Array;
  password: string;
  name?: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Base64 of bytes in Node and in browsers alike. */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Calls /v1/certificates of one Pageworks render service with a render key. */
export class CertificatesClient {
  constructor(private readonly options: ClientOptions) {}

  /** Uploads a PKCS#12 file; resolves with the stored certificate (a wrong password: INVALID_REQUEST; expired: CERTIFICATE_EXPIRED). */
  async upload(input: CertificateUpload, call: CallOptions = {}): Promise<Certificate> {
    const body = JSON.stringify({
      pkcs12: base64(input.pkcs12),
      password: input.password,
      ...(input.name ? { name: input.name } : {}),
    });
    return jsonOf<Certificate>(
      await this.exchange('POST', '/v1/certificates', call, { headers: { 'content-type': 'application/json' }, body }),
    );
  }

  /** The account's certificates, newest first. */
  async list(call: CallOptions = {}): Promise<Certificate[]> {
    return (await jsonOf<{ data: Certificate[] }>(await this.exchange('GET', '/v1/certificates', call, {}))).data;
  }

  /** Deletes a certificate and its private key (another account's, or an unknown id: NOT_FOUND). */
  async delete(id: string, call: CallOptions = {}): Promise<void> {
    const answer = await this.exchange('DELETE', `/v1/certificates/${encodeURIComponent(id)}`, call, {});
    answer.settle();
    await answer.response.body?.cancel();
  }

  private exchange(method: string, path: string, call: CallOptions, init: RequestInit) {
    const headers = { accept: 'application/json', ...(init.headers as Record<string, string>) };
    return renderServiceExchange(this.options, path, { ...init, method, headers }, call, DEFAULT_TIMEOUT_MS);
  }
}
