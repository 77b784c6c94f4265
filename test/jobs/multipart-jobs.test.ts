/**
 * POST /v1/jobs as multipart/form-data: an assembly job whose parts name uploaded PDFs. The files are
 * kept in the result store (where any worker reads them) until the job is final, then deleted; a file
 * not uploaded is 400 naming it with nothing stored; a refusal after the files were stored leaves none
 * behind. Embedded (SQLite, files under the data dir, the API's own worker) and at scale (PostgreSQL,
 * an S3-protocol store, and a render-worker with a data dir of its own making the job).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { buildRenderWorkerApp } from '../../src/app/render-worker-app.js';
import { FORM_BOUNDARY, fixture, multipartForm, outline, page, pageCount, pageTexts, qpdfCheck } from '../assemble/helpers.js';
import { DATABASE_URL } from '../helpers/backends.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { S3_CREDENTIALS, type S3Server, startS3Server } from '../helpers/s3-server.js';
import { type FreshDatabase, freshDatabase } from '../scale/backends.js';
import { jobRequest, waitForJob } from './helpers.js';

const terms = fixture('terms-objstm.pdf');
const TERMS_TEXT = 'Payment is due within 30 days';
/** Never prints on its own: only a cancel ends it. */
const NEVER_READY = '<p>Waiting</p><script>window.pageworksReady = false;</script>';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const backends = [
  { name: 'sqlite, files', scale: false, enabled: true },
  { name: 'postgres, s3, a separate worker', scale: true, enabled: Boolean(DATABASE_URL) },
];

describe.each(backends)('multipart assembly jobs ($name)', ({ scale, enabled }) => {
  let db: FreshDatabase | undefined;
  let s3: S3Server | undefined;
  let core: CoreDeps;
  let app: FastifyInstance;
  let workerCore: CoreDeps | undefined;
  let worker: FastifyInstance | undefined;
  let key: string;
  let accountId: string;
  const saved = { ...process.env };

  beforeAll(async () => {
    if (!enabled) return;
    // The queued-bytes limit at its least (1 MiB), so that one upload can pass it.
    const env: Record<string, string> = { RENDER_CONCURRENCY: '1', RENDER_RATE_LIMIT: '1000', RENDER_JOBS_MAX_QUEUED_MB: '1' };
    if (scale) {
      db = await freshDatabase(DATABASE_URL!, 'pw_multipart');
      s3 = await startS3Server();
      Object.assign(process.env, {
        AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
      });
      Object.assign(env, { DATABASE_URL: db.url, RESULT_STORE: `s3://${s3.bucket}/results`, S3_ENDPOINT: s3.endpoint });
      // The API takes the upload and makes nothing; the worker, on another data dir, reads the files from S3.
      core = await createTestCore(env);
      app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
      workerCore = await createTestCore(env);
      worker = await buildRenderWorkerApp(workerCore, { lookup: noDns, jobPollMs: 100 });
    } else {
      core = await createTestCore(env);
      app = await buildRenderApp(core, { lookup: noDns, jobPollMs: 50 });
    }
    ({ key, accountId } = await createKey(core, 'render'));
  }, 120_000);

  afterAll(async () => {
    if (!enabled) return;
    await worker?.close();
    if (workerCore) await closeTestCore(workerCore);
    await app?.close();
    if (core) await closeTestCore(core);
    await s3?.close();
    await db?.drop();
    process.env = saved;
  });

  /** The upload keys the result store holds now. */
  async function storedUploads(): Promise<string[]> {
    if (s3) {
      const client = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: S3_CREDENTIALS,
      });
      try {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'results/' }));
        return (listed.Contents ?? []).map((o) => o.Key ?? '').filter((k) => k.includes('-upload-'));
      } finally {
        client.destroy();
      }
    }
    const dir = path.join(core.config.dataDir, 'results');
    if (!fs.existsSync(dir)) return [];
    return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.includes('-upload-')).sort();
  }

  /** Waits until the result store holds no upload (a finished job's go just after it is final). */
  async function uploadsGone(): Promise<string[]> {
    for (let i = 0; i < 50 && (await storedUploads()).length > 0; i++) await sleep(100);
    return storedUploads();
  }

  function submitForm(body: unknown, files: Record<string, Buffer>, headers: Record<string, string> = {}) {
    return app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': `multipart/form-data; boundary=${FORM_BOUNDARY}`,
        ...headers,
      },
      payload: multipartForm(body, files),
    });
  }

  const jobIds = async () =>
    ((await jobRequest(app, key, 'GET', '/v1/jobs?limit=100')).json().data as Array<{ id: string }>).map((j) => j.id);

  it.skipIf(!enabled)('the OpenAPI document gives both routes a JSON body and a form of `body` and files', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const route of ['/v1/assemble', '/v1/jobs']) {
      const content = doc.paths[route].post.requestBody.content;
      expect(Object.keys(content).sort(), route).toEqual(['application/json', 'multipart/form-data']);
      const form = content['multipart/form-data'].schema;
      expect(form.required, route).toEqual(['body']);
      expect(form.properties.files.items, route).toEqual({ type: 'string', format: 'binary' });
      // The `body` field is the JSON request itself (an object part of a form is sent as application/json).
      const json = content['application/json'].schema;
      expect(JSON.stringify({ ...form.properties.body, description: undefined }), route).toBe(
        JSON.stringify({ ...json, description: undefined }),
      );
    }
    expect(doc.paths['/v1/render'].post.requestBody.content['multipart/form-data']).toBeUndefined();
  });

  it.skipIf(!enabled)(
    'makes a job whose part is an uploaded PDF: its pages and text in the PDF, the file kept until the job ends',
    async () => {
      const body = {
        parts: [{ html: page('Statement 7', 'Balance 70') }, { file: 'terms.pdf', title: 'Terms' }],
        reference: 'mp-1',
      };
      const res = await submitForm(body, { 'terms.pdf': terms });
      expect(res.statusCode, res.body).toBe(202);
      const id = res.json().id as string;
      // Kept where every worker reads: the result store, under a key of the job's.
      const row = await core.store.findJob(id, accountId);
      expect(JSON.parse(row?.upload_keys ?? 'null')).toEqual([`${accountId}/${id}-upload-1.pdf`]);
      const done = await waitForJob(app, key, id);
      expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
      const download = await jobRequest(app, key, 'GET', `/v1/jobs/${id}/pdf`);
      expect(download.statusCode).toBe(200);
      expect(download.headers['content-type']).toBe('application/pdf');
      const pdf = download.rawPayload;
      expect(qpdfCheck(pdf).status).toBe(0);
      expect(pageCount(pdf)).toBe(3);
      const texts = pageTexts(pdf);
      expect(texts[0]).toContain('Balance 70');
      expect(texts[1]).toContain(TERMS_TEXT);
      expect(outline(pdf).map((e) => [e.title, e.page])).toEqual([
        ['Statement 7', 1],
        ['Terms', 2],
      ]);
      expect(await uploadsGone()).toEqual([]);
      expect((await core.store.findJob(id, accountId))?.upload_keys).toBeNull();
    },
    180_000,
  );

  it.skipIf(!enabled)('refuses a part naming a file not uploaded: 400 naming it, no job, no file stored', async () => {
    const before = await jobIds();
    const res = await submitForm({ parts: [{ html: page('x') }, { file: 'annex.pdf' }] }, { 'terms.pdf': terms });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toEqual({
      code: 'INVALID_REQUEST',
      message: 'parts[1].file: "annex.pdf" is not among the uploaded files ("terms.pdf")',
    });
    expect(await jobIds()).toEqual(before);
    expect(await storedUploads()).toEqual([]);
  });

  it.skipIf(!enabled)('refuses a file no part names: 400 naming it, no job, no file stored', async () => {
    const before = await jobIds();
    const res = await submitForm({ parts: [{ file: 'terms.pdf' }] }, { 'terms.pdf': terms, 'unused.pdf': terms });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toEqual({
      code: 'INVALID_REQUEST',
      message:
        'files: "unused.pdf" is uploaded but no part names it: add a part such as {"file": "unused.pdf"}, or leave it out of the form',
    });
    expect(await jobIds()).toEqual(before);
    expect(await storedUploads()).toEqual([]);
  });

  it.skipIf(!enabled)(
    'refuses a file that is not a PDF at submit, not when the job runs: 400, no job, no file stored',
    async () => {
      const before = await jobIds();
      const res = await submitForm({ parts: [{ file: 'scan.png' }] }, { 'scan.png': Buffer.from('\x89PNG\r\n\x1a\n', 'latin1') });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toEqual({
        code: 'INVALID_REQUEST',
        message: 'parts[0]: not a PDF (the file "scan.png" does not start with %PDF-)',
      });
      expect(await jobIds()).toEqual(before);
      expect(await storedUploads()).toEqual([]);
    },
  );

  it.skipIf(!enabled)('a job refused after its files were stored (over the queued bytes) leaves none behind', async () => {
    const before = await jobIds();
    // Still a PDF to a reader (bytes after %%EOF), and 1.5 MiB: over the 1 MiB of queued bytes.
    const big = Buffer.concat([terms, Buffer.alloc(1_572_864, 0x20)]);
    const res = await submitForm({ parts: [{ file: 'big.pdf' }] }, { 'big.pdf': big });
    expect(res.statusCode, res.body).toBe(429);
    expect(res.json().error.code).toBe('RATE_LIMITED');
    expect(res.json().error.message).toMatch(/^queued HTML limit: /);
    expect(await jobIds()).toEqual(before);
    expect(await storedUploads()).toEqual([]);
  });

  it.skipIf(!enabled)(
    'binds an Idempotency-Key to the files too: the same form replays, other bytes are 422',
    async () => {
      const headers = { 'idempotency-key': `mp-once-${scale ? 'pg' : 'lite'}` };
      const body = { parts: [{ file: 'terms.pdf' }] };
      const first = await submitForm(body, { 'terms.pdf': terms }, headers);
      expect(first.statusCode, first.body).toBe(202);
      const again = await submitForm(body, { 'terms.pdf': terms }, headers);
      expect(again.statusCode).toBe(202);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json().id).toBe(first.json().id);
      const other = await submitForm(body, { 'terms.pdf': Buffer.concat([terms, Buffer.from('\n')]) }, headers);
      expect(other.statusCode).toBe(422);
      expect(other.json().error.code).toBe('IDEMPOTENCY_KEY_REUSED');
      expect((await waitForJob(app, key, first.json().id)).status).toBe('succeeded');
      expect(await uploadsGone()).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!enabled)(
    'a split job of an upload gives a zip of a file per part',
    async () => {
      const body = {
        parts: [
          { html: page('Alice Martin', 'Statement of Alice'), title: 'Alice Martin' },
          { file: 'terms.pdf', title: 'Terms' },
        ],
        split: 'parts',
      };
      const res = await submitForm(body, { 'terms.pdf': terms });
      expect(res.statusCode, res.body).toBe(202);
      const done = await waitForJob(app, key, res.json().id);
      expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
      const download = await jobRequest(app, key, 'GET', `/v1/jobs/${done.id}/pdf`);
      expect(download.statusCode).toBe(200);
      expect(download.headers['content-type']).toBe('application/zip');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-mp-zip-'));
      try {
        fs.writeFileSync(path.join(dir, 'a.zip'), download.rawPayload);
        const names = execFileSync('zipinfo', ['-1', path.join(dir, 'a.zip')], { encoding: 'utf8' })
          .trim()
          .split('\n');
        expect(names).toEqual(['Alice Martin.pdf', 'Terms.pdf']);
        execFileSync('unzip', ['-q', path.join(dir, 'a.zip'), '-d', path.join(dir, 'out')]);
        const termsFile = fs.readFileSync(path.join(dir, 'out', 'Terms.pdf'));
        expect(qpdfCheck(termsFile).status).toBe(0);
        expect(pageCount(termsFile)).toBe(2);
        expect(pageTexts(termsFile)[0]).toContain(TERMS_TEXT);
        expect(pageTexts(fs.readFileSync(path.join(dir, 'out', 'Alice Martin.pdf')))[0]).toContain('Statement of Alice');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      expect(await uploadsGone()).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!enabled)(
    "a canceled job's files go with the cancel, and a final job still holding some is swept",
    async () => {
      const res = await submitForm({ parts: [{ html: NEVER_READY }, { file: 'terms.pdf' }] }, { 'terms.pdf': terms });
      expect(res.statusCode, res.body).toBe(202);
      expect(await storedUploads()).toHaveLength(1);
      const canceled = await jobRequest(app, key, 'DELETE', `/v1/jobs/${res.json().id}`);
      expect(canceled.json().status).toBe('canceled');
      expect(await storedUploads()).toEqual([]);

      // A job made final without its files deleted (a worker that died with its last attempt): the sweep finds them.
      const held = await submitForm({ parts: [{ html: NEVER_READY }, { file: 'terms.pdf' }] }, { 'terms.pdf': terms });
      expect(held.statusCode, held.body).toBe(202);
      await core.store.cancelJob(held.json().id, accountId, Date.now());
      expect(await storedUploads()).toHaveLength(1);
      expect(await app.jobs.queue.sweepUploads()).toBe(1);
      expect(await storedUploads()).toEqual([]);
    },
    60_000,
  );

  it.skipIf(!enabled)(
    "deleting the account deletes its jobs' uploaded files",
    async () => {
      const gone = await createKey(core, 'render');
      const res = await app.inject({
        method: 'POST',
        url: '/v1/jobs',
        headers: { authorization: `Bearer ${gone.key}`, 'content-type': `multipart/form-data; boundary=${FORM_BOUNDARY}` },
        payload: multipartForm({ parts: [{ html: NEVER_READY }, { file: 'terms.pdf' }] }, { 'terms.pdf': terms }),
      });
      expect(res.statusCode, res.body).toBe(202);
      expect(await storedUploads()).toHaveLength(1);
      const tombstone = {
        id: `act_${gone.accountId}`,
        accountId: gone.accountId,
        at: Date.now(),
        kind: 'account_deleted' as const,
        actor: 'cli' as const,
        ip: null,
        userAgent: null,
        detail: null,
      };
      expect(await core.accounts.delete(gone.accountId, tombstone)).toBe(true);
      expect(await storedUploads()).toEqual([]);
    },
    60_000,
  );
});
