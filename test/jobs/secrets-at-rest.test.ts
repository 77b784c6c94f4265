/**
 * Secrets at rest on the embedded store with nothing set: the server makes its key on the first start
 * (mode 0600, in the data directory), a protected assembly job's passwords are in neither the SQLite
 * file nor its WAL (queued, and after it finished), the job's PDF opens with its password, and a
 * certificate uploaded to such a server signs a job. `serve` says where the key is; at scale, a missing
 * key is one line naming SECRETS_KEY.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { requestHash } from '../../src/jobs/idempotency-key.js';
import { KEY_FILE } from '../../src/secrets/server-key.js';
import { FORM_BOUNDARY, fixture, multipartForm } from '../assemble/helpers.js';
import { makeTestCertificates } from '../helpers/certificates.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { PAGEWORKS } from '../helpers/pageworks-command.js';
import { noDns } from '../helpers/render.js';
import { jobRequest, submitJob, waitForJob } from './helpers.js';

const USER_PASSWORD = 'user-Pw-7f3a91c2e5';
const OWNER_PASSWORD = 'owner-Pw-b04d6e88a1';
let core: CoreDeps;
let app: FastifyInstance;
let dataDir: string;

beforeAll(async () => {
  core = await createTestCore({ RENDER_RATE_LIMIT: '1000' });
  dataDir = core.config.dataDir;
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

/** The bytes of the store as they sit on disk: the database file and its write-ahead log. */
function storeBytes(): Buffer {
  const files = ['pageworks.sqlite', 'pageworks.sqlite-wal'].map((f) => path.join(dataDir, f)).filter((f) => fs.existsSync(f));
  expect(files.length).toBeGreaterThan(0);
  return Buffer.concat(files.map((f) => fs.readFileSync(f)));
}

function expectNoPasswords(bytes: Buffer): void {
  for (const secret of [USER_PASSWORD, OWNER_PASSWORD]) {
    expect(bytes.includes(Buffer.from(secret, 'utf8')), `${secret} in the store's bytes`).toBe(false);
    expect(bytes.includes(Buffer.from(secret, 'utf16le')), `${secret} (UTF-16) in the store's bytes`).toBe(false);
  }
}

it('makes its key on the first start, in the data directory, readable by its owner alone', () => {
  const file = path.join(dataDir, KEY_FILE);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(fs.readFileSync(file, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
  expect(core.secrets?.origin).toEqual({ kind: 'file', file, created: true });
});

/** The protected multipart job queued before the worker starts, and its uploaded file in the result store. */
const multipartJob = { id: '', key: '', upload: '' };

it("keeps a queued multipart job's passwords sealed too, its uploaded file in the result store", async () => {
  const { key, accountId } = await createKey(core, 'render');
  const terms = fixture('terms-objstm.pdf');
  const res = await app.inject({
    method: 'POST',
    url: '/v1/jobs',
    headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${FORM_BOUNDARY}` },
    payload: multipartForm(
      {
        parts: [{ html: '<title>Cover</title><p>Confidential cover</p>' }, { file: 'terms.pdf' }],
        protect: { user_password: USER_PASSWORD, owner_password: OWNER_PASSWORD },
      },
      { 'terms.pdf': terms },
    ),
  });
  expect(res.statusCode, res.body).toBe(202);
  const id = res.json().id as string;
  expect((await jobRequest(app, key, 'GET', `/v1/jobs/${id}`)).json().status).toBe('queued');
  expectNoPasswords(storeBytes());
  const upload = path.join(dataDir, 'results', accountId, `${id}-upload-1.pdf`);
  expect(fs.readFileSync(upload).equals(terms)).toBe(true);
  Object.assign(multipartJob, { id, key, upload });
});

it("keeps a protected job's passwords out of the SQLite file and its WAL, queued and finished; the PDF opens with them", async () => {
  const { key } = await createKey(core, 'render');
  const res = await submitJob(app, key, {
    parts: [{ html: '<title>One</title><p>Confidential part one</p>' }, { html: '<p>Confidential part two</p>' }],
    protect: { user_password: USER_PASSWORD, owner_password: OWNER_PASSWORD, allow: ['print'] },
  });
  expect(res.statusCode, res.body).toBe(202);
  const id = res.json().id as string;
  // Queued: the row holds the request, its passwords only sealed.
  expect((await jobRequest(app, key, 'GET', `/v1/jobs/${id}`)).json().status).toBe('queued');
  expectNoPasswords(storeBytes());
  app.jobs.startWorker();
  const done = await waitForJob(app, key, id);
  expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
  expectNoPasswords(storeBytes());
  const pdf = await jobRequest(app, key, 'GET', `/v1/jobs/${id}/pdf`);
  expect(pdf.statusCode).toBe(200);
  const file = path.join(dataDir, 'protected.pdf');
  fs.writeFileSync(file, pdf.rawPayload);
  expect(spawnSync('qpdf', [`--password=${USER_PASSWORD}`, '--check', file]).status).toBe(0);
  expect(spawnSync('qpdf', [`--password=${OWNER_PASSWORD}`, '--check', file]).status).toBe(0);
  const text = execFileSync('pdftotext', ['-upw', USER_PASSWORD, file, '-']).toString();
  expect(text).toContain('Confidential part one');
  // Without the password the file does not open.
  expect(spawnSync('pdftotext', [file, '-']).status).not.toBe(0);
}, 120_000);

it('makes that multipart job once the worker runs: the PDF opens with its password, the upload is deleted', async () => {
  const { id, key, upload } = multipartJob;
  const done = await waitForJob(app, key, id);
  expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
  expectNoPasswords(storeBytes());
  const file = path.join(dataDir, 'protected-multipart.pdf');
  fs.writeFileSync(file, (await jobRequest(app, key, 'GET', `/v1/jobs/${id}/pdf`)).rawPayload);
  const text = execFileSync('pdftotext', ['-upw', USER_PASSWORD, file, '-']).toString();
  expect(text).toContain('Confidential cover');
  expect(text).toContain('Payment is due within 30 days');
  expect(spawnSync('pdftotext', [file, '-']).status).not.toBe(0);
  for (let i = 0; i < 50 && fs.existsSync(upload); i++) await new Promise((r) => setTimeout(r, 100));
  expect(fs.existsSync(upload)).toBe(false);
}, 120_000);

it('replays a protected job by its Idempotency-Key, hashed with the server key so the stored hash guesses nothing', async () => {
  const { key, accountId } = await createKey(core, 'render');
  const body = { parts: [{ html: '<p>Once</p>' }], protect: { owner_password: OWNER_PASSWORD } };
  const headers = { 'idempotency-key': 'protected-once' };
  const first = await submitJob(app, key, body, headers);
  expect(first.statusCode, first.body).toBe(202);
  const again = await submitJob(app, key, body, headers);
  expect(again.statusCode).toBe(202);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.json().id).toBe(first.json().id);
  const other = await submitJob(app, key, { ...body, protect: { owner_password: 'another one' } }, headers);
  expect(other.statusCode).toBe(422);
  expect(other.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  // The stored hash is not the plain SHA-256 a guess of the password could be checked against.
  const row = await core.store.findJob(first.json().id, accountId);
  const plain = requestHash({ request: body, reference: null, webhookUrl: null });
  expect(row?.request_hash).toMatch(/^[0-9a-f]{64}$/);
  expect(row?.request_hash).not.toBe(plain);
  await jobRequest(app, key, 'DELETE', `/v1/jobs/${first.json().id}`);
});

it('signs with a certificate uploaded to a server given no key at all', async () => {
  const certs = makeTestCertificates();
  const { key } = await createKey(core, 'render');
  const uploaded = await app.inject({
    method: 'POST',
    url: '/v1/certificates',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ pkcs12: certs.ec.toString('base64'), password: certs.password }),
  });
  expect(uploaded.statusCode, uploaded.body).toBe(201);
  const res = await submitJob(app, key, { parts: [{ html: '<p>Signed</p>' }], sign: { certificate: uploaded.json().id } });
  expect(res.statusCode, res.body).toBe(202);
  app.jobs.startWorker();
  const done = await waitForJob(app, key, res.json().id);
  expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
  const file = path.join(dataDir, 'signed.pdf');
  fs.writeFileSync(file, (await jobRequest(app, key, 'GET', `/v1/jobs/${done.id}/pdf`)).rawPayload);
  const sig = spawnSync('pdfsig', [file]).stdout.toString();
  expect(sig).toContain('Signature Validation: Signature is Valid.');
}, 120_000);

/** Runs `pageworks serve` until it has logged its start, then stops it; returns what it printed. */
async function serveOnce(env: Record<string, string>): Promise<{ output: string; code: number | null }> {
  const child = spawn(process.execPath, [...PAGEWORKS, 'serve', '--services', 'render'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, METADATA_PORT: '0', RENDER_PORT: '0', DASHBOARD_PORT: '0', ...env },
  });
  let output = '';
  const collect = (d: Buffer) => {
    output += d;
    if (/pageworks started/.test(output) && /secrets/.test(output.split('pageworks started')[1] ?? '')) child.kill('SIGTERM');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  // 'close', not 'exit': a process's last output can still be in its pipes when it has exited.
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { output, code };
}

it('says where the key is at start-up, and makes it once', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-secrets-serve-'));
  try {
    const first = await serveOnce({ PAGEWORKS_DATA_DIR: dir, LOG_FORMAT: 'json' });
    const file = path.join(dir, KEY_FILE);
    expect(first.output).toContain(`made the server's secrets key ${file} (mode 0600)`);
    const made = fs.readFileSync(file, 'utf8');
    const second = await serveOnce({ PAGEWORKS_DATA_DIR: dir, LOG_FORMAT: 'json' });
    expect(second.output).toContain(`secrets at rest are sealed with the key in ${file}`);
    expect(fs.readFileSync(file, 'utf8')).toBe(made);
    expect(first.output + second.output).not.toContain(made.trim());
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 150_000);

it('refuses to start at scale without SECRETS_KEY, in one line naming it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-secrets-scale-'));
  try {
    // Nothing listens on port 9: the check comes before any connection.
    const { output, code } = await serveOnce({ PAGEWORKS_DATA_DIR: dir, DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none' });
    expect(code).toBe(2);
    expect(output.trim().split('\n')).toEqual([
      'pageworks: SECRETS_KEY: required with DATABASE_URL: give every instance the same 32-byte key (openssl rand -hex 32); it seals signing keys, job passwords and webhook secrets at rest',
    ]);
    expect(fs.existsSync(path.join(dir, KEY_FILE))).toBe(false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
