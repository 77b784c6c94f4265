/**
 * GET /v1/renders/{id} through the real render app (real Chromium, real SQLite): records reported to
 * the app's render log (as the renderer and the job worker report them) are read back by the key's
 * own account, at once and after they were written, and nobody else's.
 */
import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import type { RenderRecord } from '../../src/report/report.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let accountId: string;
let keyId: string;
let otherKey: string;
let closed = false;

const renderId = () => `rnd_${crypto.randomBytes(12).toString('hex')}`;
const getRender = (k: string, id: string, header = 'authorization') =>
  app.inject({ method: 'GET', url: `/v1/renders/${id}`, headers: { [header]: header === 'authorization' ? `Bearer ${k}` : k } });

// The mixed document's report, as the renderer words it.
const WARNINGS: RenderRecord['warnings'] = [
  {
    kind: 'resource_blocked',
    url: 'http://10.1.2.3/brand.css',
    reason: 'private_address',
    message: 'brand.css was not loaded: its address is on a private network (EGRESS_ALLOW lets an operator allow it)',
  },
  { kind: 'resource_failed', url: 'https://cdn.example.com/logo.png', status: 404, message: 'logo.png answered 404 Not Found' },
  {
    kind: 'font_failed',
    family: 'Brand Sans',
    url: 'https://cdn.example.com/brand.woff2',
    message: 'The font "Brand Sans" did not load',
  },
  {
    kind: 'script_error',
    text: 'ReferenceError: totals is not defined',
    message: 'A script failed: ReferenceError: totals is not defined',
  },
];

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '1' });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  const mine = await createKey(core, 'render');
  key = mine.key;
  accountId = mine.accountId;
  keyId = (await core.keys.list(accountId)).find((k) => k.service === 'render')?.id ?? '';
  otherKey = (await createKey(core, 'render')).key;
}, 60_000);

afterAll(async () => {
  if (!closed) await app?.close();
  if (core) await closeTestCore(core);
});

function record(extra: Partial<RenderRecord> = {}): RenderRecord {
  return {
    id: renderId(),
    accountId,
    keyId,
    createdAt: Date.parse('2026-03-02T10:15:30.250Z'),
    durationMs: 840,
    source: 'api',
    jobId: null,
    status: 'succeeded',
    error: null,
    pages: 1,
    bytes: 18_204,
    warnings: [],
    claims: [],
    ...extra,
  };
}

describe('GET /v1/renders/{id}', () => {
  it('answers the render with its warnings, before and after the record is written to the store', async () => {
    const mixed = record({ warnings: WARNINGS });
    app.renderLog.record(mixed);
    const expected = {
      id: mixed.id,
      created_at: '2026-03-02T10:15:30.250Z',
      duration_ms: 840,
      source: 'api',
      job_id: null,
      status: 'succeeded',
      error: null,
      pages: 1,
      bytes: 18_204,
      warnings: WARNINGS,
      claims: [],
    };
    // Not written yet (the batch waits up to a second): this instance answers from memory.
    const early = await getRender(key, mixed.id);
    expect(early.statusCode).toBe(200);
    expect(early.json()).toEqual(expected);
    expect(early.headers['cache-control']).toBe('no-store');
    expect(early.headers['x-render-id']).toMatch(/^rnd_[0-9a-f]{24}$/);

    await app.renderLog.flush();
    expect(await core.store.findRenderRecord(mixed.id, accountId)).toBeDefined();
    const late = await getRender(key, mixed.id);
    expect(late.statusCode).toBe(200);
    expect(late.json()).toEqual(expected);
  });

  it('answers what the PDF claims, kept with the record in the store', async () => {
    const archived = record({ claims: ['PDF/A-3b', 'PDF/UA-1'] });
    app.renderLog.record(archived);
    await app.renderLog.flush();
    const res = await getRender(key, archived.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: archived.id, warnings: [], claims: ['PDF/A-3b', 'PDF/UA-1'] });
  });

  it('answers an assembly with its parts and each warning labelled by its part; a large one keeps its count whole', async () => {
    const entry = { ...WARNINGS[3], part: 'parts[1]', message: `parts[1]: ${WARNINGS[3].message}` };
    const parts: NonNullable<RenderRecord['assembly']>['parts'] = [
      { label: 'parts[0]', kind: 'html', pages: 1, warnings: 0 },
      { label: 'parts[1]', kind: 'html', pages: 2, warnings: 1 },
      { label: 'parts[2]', kind: 'url', pages: 3, warnings: 0, url: 'https://example.com/terms.pdf?token=…' },
    ];
    const assembly = record({ pages: 6, warnings: [entry], assembly: { partCount: 3, parts } });
    app.renderLog.record(assembly);
    await app.renderLog.flush();
    const res = await getRender(key, assembly.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ pages: 6, warnings: [entry], part_count: 3, parts });

    const many = Array.from({ length: 1000 }, (_, i) => ({ label: `parts[${i}]`, kind: 'pdf' as const, pages: 1, warnings: 0 }));
    const large = record({ pages: 1000, assembly: { partCount: 1000, parts: many } });
    app.renderLog.record(large);
    await app.renderLog.flush();
    const big = (await getRender(key, large.id)).json();
    expect(big.part_count).toBe(1000);
    expect(big.parts.length).toBeGreaterThan(200);
    expect(big.parts.length).toBeLessThan(1000);
    expect(big.parts[0]).toEqual(many[0]);
    // A render that is not an assembly has neither field.
    const plain = record();
    app.renderLog.record(plain);
    expect(Object.keys((await getRender(key, plain.id)).json())).not.toContain('parts');
  });

  it('records a failed render as failed with its code', async () => {
    const timedOut = record({
      status: 'failed',
      error: { code: 'RENDER_TIMEOUT', message: 'render exceeded RENDER_TIMEOUT_MS (30000 ms)' },
      durationMs: 30_004,
      pages: null,
      bytes: null,
    });
    const job = record({
      id: `job_${crypto.randomBytes(16).toString('hex')}`,
      source: 'job',
      status: 'failed',
      error: { code: 'RENDER_FAILED', message: 'Chromium could not print this document' },
      pages: null,
      bytes: null,
    });
    job.jobId = job.id;
    app.renderLog.record(timedOut);
    app.renderLog.record(job);
    await app.renderLog.flush();
    const res = await getRender(key, timedOut.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'failed',
      error: { code: 'RENDER_TIMEOUT', message: 'render exceeded RENDER_TIMEOUT_MS (30000 ms)' },
      duration_ms: 30_004,
      pages: null,
      bytes: null,
      warnings: [],
    });
    expect((await getRender(key, job.id)).json()).toMatchObject({ id: job.id, source: 'job', job_id: job.id, status: 'failed' });
  });

  it('answers 404 NOT_FOUND for another account’s render, an unknown id and a malformed one', async () => {
    const mine = record();
    app.renderLog.record(mine);
    // Unwritten and written alike.
    for (const flushed of [false, true]) {
      if (flushed) await app.renderLog.flush();
      const other = await getRender(otherKey, mine.id);
      expect(other.statusCode).toBe(404);
      expect(other.json()).toEqual({ error: { code: 'NOT_FOUND', message: `no render ${mine.id}` } });
    }
    const unknown = renderId();
    expect((await getRender(key, unknown)).json()).toEqual({ error: { code: 'NOT_FOUND', message: `no render ${unknown}` } });
    for (const malformed of ['rnd_xyz', 'job_123', `${mine.id}0`, "x' or '1'='1", 'a'.repeat(99)]) {
      const res = await getRender(key, encodeURIComponent(malformed));
      expect(res.statusCode, malformed).toBe(404);
      expect(res.json().error.code).toBe('NOT_FOUND');
      expect(res.json().error.message.length).toBeLessThan(100);
    }
  });

  it('answers an id longer than the router takes, or a malformed URL, in the render shape', async () => {
    const long = await getRender(key, `rnd_${'a'.repeat(300)}`);
    expect(long.statusCode).toBe(404);
    expect(long.json().error.code).toBe('NOT_FOUND');
    expect(long.json().error.message.length).toBeLessThan(150);
    expect(long.headers['x-render-id']).toMatch(/^rnd_[0-9a-f]{24}$/);
    const malformed = await getRender(key, 'rnd_%E0%A4%A');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({
      error: { code: 'INVALID_REQUEST', message: 'the URL path is not valid: a malformed percent-encoding' },
    });
    expect(malformed.headers['x-render-id']).toMatch(/^rnd_[0-9a-f]{24}$/);
  });

  it('answers 401 to a metadata key, a missing key and a revoked key', async () => {
    const mine = record();
    app.renderLog.record(mine);
    const metadata = await createKey(core, 'metadata');
    const wrong = await getRender(metadata.key, mine.id);
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({
      error: { code: 'UNAUTHORIZED', message: 'not a render key (render keys start with pwr_live_)' },
    });
    const none = await app.inject({ method: 'GET', url: `/v1/renders/${mine.id}` });
    expect(none.statusCode).toBe(401);
    const revoked = await createKey(core, 'render');
    const found = (await core.keys.list(revoked.accountId)).find((k) => k.service === 'render');
    await core.keys.revoke(found?.id ?? '', revoked.accountId);
    expect((await getRender(revoked.key, mine.id)).statusCode).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/v1/renders/{id}'].get;
    expect(Object.keys(op.responses).sort()).toEqual(['200', '401', '404', '429', '500', '503']);
    expect(Object.keys(op.responses['200'].content['application/json'].schema.properties)).toEqual([
      'id',
      'created_at',
      'duration_ms',
      'source',
      'job_id',
      'status',
      'error',
      'pages',
      'bytes',
      'warnings',
      'claims',
      'part_count',
      'parts',
    ]);
  });

  it('writes what is still pending when the service closes, before the store does', async () => {
    const last = record();
    app.renderLog.record(last);
    await app.close();
    closed = true;
    expect(await core.store.findRenderRecord(last.id, accountId)).toMatchObject({ id: last.id, status: 'succeeded' });
  });
});
