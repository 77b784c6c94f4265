/**
 * Signing certificates through the render service: POST/GET/DELETE /v1/certificates with a render key,
 * per account (another account's is 404), the answers to a wrong password, a file without its key, an
 * expired certificate and a server without a key, the activity log, account deletion, and
 * what never leaves the service: the private key and the password appear in no answer, no log line
 * and not in the clear in the store.
 */
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CertificateService } from '../../src/accounts/certificates.js';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { CertificatesClient, RenderApiError } from '../../src/client/index.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/config-env.js';
import { RenderError } from '../../src/errors.js';
import { SecretBox } from '../../src/secrets/sealing.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/certificates.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';

const SERVER_KEY = crypto.randomBytes(32).toString('hex');
let core: CoreDeps;
let app: FastifyInstance;
let certs: TestCertificates;
let alice: { accountId: string; key: string };
let bob: { accountId: string; key: string };
const logs: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  certs = makeTestCertificates();
  core = await createTestCore({ CERTIFICATE_KEY: SERVER_KEY, LOG_LEVEL: 'debug' }, logs);
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  alice = await createKey(core, 'render');
  bob = await createKey(core, 'render');
});
afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

function upload(key: string, body: unknown) {
  return app.inject({
    method: 'POST',
    url: '/v1/certificates',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'user-agent': 'cert-test/1' },
    payload: JSON.stringify(body),
  });
}
const list = (key: string) => app.inject({ method: 'GET', url: '/v1/certificates', headers: { authorization: `Bearer ${key}` } });
const remove = (key: string, id: string) =>
  app.inject({ method: 'DELETE', url: `/v1/certificates/${id}`, headers: { authorization: `Bearer ${key}` } });

describe('POST /v1/certificates', () => {
  it('stores a PKCS#12 chain and answers 201 with its subject, issuer and expiry, never its key', async () => {
    const res = await upload(alice.key, {
      pkcs12: certs.rsaChain.toString('base64'),
      password: certs.password,
      name: 'Invoices',
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['created_at', 'id', 'issuer', 'name', 'not_after', 'subject']);
    expect(body.id).toMatch(/^crt_[0-9a-f]{32}$/);
    expect(body.name).toBe('Invoices');
    expect(body.subject).toBe('CN=Acme Signing Ltd, O=Acme, C=GB');
    expect(body.issuer).toBe('CN=Test CA, O=Acme');
    const days = (Date.parse(body.not_after) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29);
    expect(days).toBeLessThan(31);

    const listed = (await list(alice.key)).json();
    expect(listed.data).toEqual([body]);
    const signer = await core.certificates.signerFor(alice.accountId, body.id);
    expect(signer.certificateChain).toHaveLength(2);
    expect(new crypto.X509Certificate(signer.certificateChain[0]).subject).toContain('CN=Acme Signing Ltd');
    expect(signer.privateKey.export({ type: 'pkcs8', format: 'pem' })).toBe(certs.rsaKeyPem);

    // Neither the answer, the logs nor the stored row hold the password or the key in the clear.
    const keyDer = crypto.createPrivateKey(certs.rsaKeyPem).export({ type: 'pkcs8', format: 'der' });
    const logged = JSON.stringify(logs);
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of [
      certs.password,
      keyDer.toString('base64').slice(0, 40),
      keyDer.toString('hex').slice(0, 40),
      SERVER_KEY,
    ]) {
      expect(logged).not.toContain(secret);
      expect(res.body).not.toContain(secret);
    }
    expect(logged).not.toContain(certs.rsaChain.toString('base64').slice(0, 60));
    const row = await core.store.findCertificate(alice.accountId, body.id);
    expect(row?.sealedKey.startsWith('v1.')).toBe(true);
    expect(Buffer.from(row!.sealedKey.slice(3), 'base64').includes(keyDer.subarray(40, 80))).toBe(false);
  });

  it('takes an EC key too', async () => {
    const res = await upload(alice.key, { pkcs12: certs.ec.toString('base64'), password: certs.password });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ subject: 'CN=EC Signer', name: null });
  });

  it.each([
    [
      'a wrong password',
      () => ({ pkcs12: certs.rsaChain.toString('base64'), password: 'wrong' }),
      400,
      'INVALID_REQUEST',
      'pkcs12: wrong password',
    ],
    [
      'a file without its private key',
      () => ({ pkcs12: certs.noKey.toString('base64'), password: certs.password }),
      400,
      'INVALID_REQUEST',
      'no private key',
    ],
    [
      'bytes that are not PKCS#12',
      () => ({ pkcs12: Buffer.from('%PDF-1.7 hello').toString('base64'), password: 'x' }),
      400,
      'INVALID_REQUEST',
      'not a PKCS#12 file',
    ],
    ['not base64', () => ({ pkcs12: 'not base64!', password: 'x' }), 400, 'INVALID_REQUEST', 'pkcs12: not base64'],
    ['an unknown field', () => ({ pkcs12: 'AAAA', password: 'x', key: 'y' }), 400, 'INVALID_REQUEST', 'key: unknown field'],
    ['no password', () => ({ pkcs12: certs.rsaChain.toString('base64') }), 400, 'INVALID_REQUEST', 'password: required'],
    [
      'an expired certificate',
      () => ({ pkcs12: certs.expired.toString('base64'), password: certs.password }),
      422,
      'CERTIFICATE_EXPIRED',
      'expired on 2021-01-01T00:00:00.000Z',
    ],
  ])('answers %s clearly', async (_what, body, status, code, message) => {
    const res = await upload(bob.key, body());
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().error.code).toBe(code);
    expect(res.json().error.message).toContain(message);
    expect((await list(bob.key)).json().data).toEqual([]);
  });

  it('answers a body over its 128 KiB with 413 naming that limit and the 64 KiB of a PKCS#12 file', async () => {
    const res = await upload(bob.key, { pkcs12: 'A'.repeat(512 * 1024), password: 'x' });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({
      error: {
        code: 'PAYLOAD_TOO_LARGE',
        message: 'body larger than 131072 bytes cannot hold a valid request (pkcs12: at most 64 KiB)',
      },
    });
    // Under the body's limit, a file over its own is named by the validator.
    const file = await upload(bob.key, { pkcs12: 'A'.repeat(100 * 1024), password: 'x' });
    expect(file.statusCode).toBe(400);
    expect(file.json().error).toEqual({ code: 'INVALID_REQUEST', message: 'pkcs12: larger than 64 KiB' });
  });

  it('answers a body that is not JSON with 415', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/certificates',
      headers: { authorization: `Bearer ${bob.key}`, 'content-type': 'text/plain' },
      payload: 'pkcs12=AAAA',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'body must be application/json' } });
  });

  it('is refused with 503 naming SECRETS_KEY on a server without a key', async () => {
    const service = new CertificateService(core.store, core.activity, undefined);
    const refused = service.upload(bob.accountId, { pkcs12: certs.ec, password: certs.password }, { actor: 'api' });
    await expect(refused).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      message: expect.stringContaining('SECRETS_KEY'),
    });
    await expect(service.signerFor(alice.accountId, 'crt_0')).rejects.toMatchObject({ status: 503 });
  });

  it('validates CERTIFICATE_KEY at start-up without repeating it', () => {
    for (const bad of ['abc', 'z'.repeat(64), crypto.randomBytes(16).toString('hex')]) {
      let error: unknown;
      try {
        loadConfig({ CERTIFICATE_KEY: bad });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).not.toContain(bad);
    }
    expect(loadConfig({ CERTIFICATE_KEY: crypto.randomBytes(32).toString('base64') }).secretsKey).toHaveLength(32);
  });
});

describe('per account', () => {
  it("keeps another account's certificates out of reach: not listed, 404 to delete, refused for signing", async () => {
    const [mine] = (await list(alice.key)).json().data;
    expect((await list(bob.key)).json().data).toEqual([]);
    const res = await remove(bob.key, mine.id);
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toEqual({ code: 'NOT_FOUND', message: `no certificate ${mine.id}` });
    const refused = core.certificates.signerFor(bob.accountId, mine.id);
    await expect(refused).rejects.toBeInstanceOf(RenderError);
    await expect(refused).rejects.toMatchObject({ status: 400, message: expect.stringContaining(`no certificate ${mine.id}`) });
    expect((await list(alice.key)).json().data.map((c: { id: string }) => c.id)).toContain(mine.id);
  });

  it('refuses to sign with a certificate that expired after its upload', async () => {
    const [mine] = (await list(alice.key)).json().data;
    const later = new CertificateService(
      core.store,
      core.activity,
      new SecretBox(Buffer.from(SERVER_KEY, 'hex')),
      () => Date.now() + 60 * 86_400_000,
    );
    await expect(later.signerFor(alice.accountId, mine.id)).rejects.toMatchObject({ code: 'CERTIFICATE_EXPIRED', status: 422 });
  });

  it('does not open a key with another CERTIFICATE_KEY', async () => {
    const [mine] = (await list(alice.key)).json().data;
    const other = new CertificateService(core.store, core.activity, new SecretBox(crypto.randomBytes(32)));
    await expect(other.signerFor(alice.accountId, mine.id)).rejects.toMatchObject({ status: 503 });
  });

  it('deletes with 204, records uploads and deletions in the activity log', async () => {
    const before = (await list(alice.key)).json().data;
    const res = await remove(alice.key, before[0].id);
    expect(res.statusCode).toBe(204);
    expect((await list(alice.key)).json().data).toHaveLength(before.length - 1);
    expect((await remove(alice.key, before[0].id)).statusCode).toBe(404);
    const { entries } = await core.activity.page(alice.accountId, 1);
    const kinds = entries.map((e) => `${e.kind} ${e.actor}`);
    expect(kinds.filter((k) => k === 'certificate_uploaded api')).toHaveLength(2);
    expect(kinds).toContain('certificate_deleted api');
    expect(entries.find((e) => e.kind === 'certificate_deleted')?.detail).toContain(before[0].id);
  });

  it('goes with the account: deleting it deletes its certificates', async () => {
    const carol = await createKey(core, 'render');
    expect((await upload(carol.key, { pkcs12: certs.ec.toString('base64'), password: certs.password })).statusCode).toBe(201);
    const tombstone = core.activity.entry(carol.accountId, 'account_deleted', 'cli');
    expect(await core.accounts.delete(carol.accountId, tombstone)).toBe(true);
    expect(await core.store.listCertificates(carol.accountId)).toEqual([]);
  });

  it('needs a render key, and is in the OpenAPI document', async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/certificates' })).statusCode).toBe(401);
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths['/v1/certificates']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/certificates/{id}'])).toEqual(['delete']);
    expect(Object.keys(doc.paths['/v1/certificates'].post.responses)).toContain('422');
  });
});

describe('CertificatesClient', () => {
  it('uploads, lists and deletes over HTTP; a wrong password is INVALID_REQUEST', async () => {
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const dave = await createKey(core, 'render');
    const client = new CertificatesClient({ baseUrl, apiKey: dave.key, retry: false });
    const created = await client.upload({ pkcs12: certs.ec, password: certs.password, name: 'Client' });
    expect(created).toMatchObject({ name: 'Client', subject: 'CN=EC Signer' });
    expect((await client.list()).map((c) => c.id)).toEqual([created.id]);
    await client.delete(created.id);
    expect(await client.list()).toEqual([]);
    const refused = client.upload({ pkcs12: certs.ec, password: 'wrong' });
    await expect(refused).rejects.toBeInstanceOf(RenderApiError);
    await expect(refused).rejects.toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    await expect(client.delete(created.id)).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});
