/**
 * What a refusal quotes of the request is short, however large the request: a value of 5 MB or a field
 * name of 100 KB comes back cut to 100 characters with `…`, in the answer, in the render's record
 * (GET /v1/renders/{id}) and in the server's log, on /v1/render, /v1/assemble, /v1/jobs and
 * /v1/certificates alike; and a record keeps a bounded error message whatever produced it.
 */
import crypto from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let accountId: string;
const logged: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '1' }, logged);
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  ({ key, accountId } = await createKey(core, 'render'));
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

const FORMATS = 'A3, A4, A5, Letter, Legal, Tabloid';
/** 5 MB of one character, and what a message shows of it: its first 99 characters and `…`. */
const HUGE = 'A'.repeat(5_000_000);
const CUT = `${'A'.repeat(99)}…`;
/** A field name of 100 KB. */
const LONG_NAME = 'k'.repeat(100_000);

const send = (method: 'POST' | 'GET', url: string, payload?: unknown) =>
  app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${key}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: payload === undefined ? undefined : JSON.stringify(payload),
  });

/** A 400 INVALID_REQUEST with exactly `message`, in a small body. */
function expectRefusal(res: LightMyRequestResponse, message: string): void {
  expect(res.statusCode, res.body.slice(0, 300)).toBe(400);
  expect(res.rawPayload.length).toBeLessThan(1024);
  expect(res.json()).toEqual({ error: { code: 'INVALID_REQUEST', message } });
  expect(res.headers['x-render-id']).toMatch(/^rnd_[0-9a-f]{24}$/);
}

describe('POST /v1/render quotes at most 100 characters of a value or a field name', () => {
  it('a format of 5 MB: a short answer, a short record and a short log line', async () => {
    const res = await postRender(app, key, { html: 'x', options: { format: HUGE } });
    const message = `options.format: "${CUT}" is not a supported format (${FORMATS})`;
    expectRefusal(res, message);
    await app.renderLog.flush();
    const record = await send('GET', `/v1/renders/${res.headers['x-render-id']}`);
    expect(record.statusCode).toBe(200);
    expect(record.rawPayload.length).toBeLessThan(2048);
    expect(record.json()).toMatchObject({ status: 'failed', error: { code: 'INVALID_REQUEST', message } });
    const longest = Math.max(...logged.map((line) => JSON.stringify(line).length));
    expect(longest).toBeLessThan(4096);
  });

  it.each([
    ['top level', { html: 'x', [LONG_NAME]: 1 }, `${'k'.repeat(99)}…: unknown field`],
    ['options', { html: 'x', options: { [LONG_NAME]: 1 } }, `options.${'k'.repeat(91)}…: unknown field`],
    ['margin', { html: 'x', options: { margin: { [LONG_NAME]: '1mm' } } }, `options.margin.${'k'.repeat(84)}…: unknown field`],
  ])('an unknown field name of 100 KB (%s)', async (_where, body, message) => {
    expectRefusal(await postRender(app, key, body), message);
  });

  it.each([
    ['a dimension', { width: HUGE }, `options.width: "${CUT}" is not a dimension (mm, cm, in, px)`],
    ['a boolean', { landscape: HUGE }, `options.landscape: must be a boolean (true or false), got string "${CUT}"`],
    [
      'a margin that is a valid dimension',
      { margin: { left: `${'0'.repeat(1_000_000)}300mm` } },
      `options.margin: left "${'0'.repeat(99)}…" leaves no printable width on a page 210mm wide`,
    ],
  ])('a value of megabytes: %s', async (_what, options, message) => {
    expectRefusal(await postRender(app, key, { html: 'x', options }), message);
  });

  it('output of 5 MB', async () => {
    expectRefusal(await postRender(app, key, { html: 'x', output: HUGE }), `output: "${CUT}" is not supported (only "pdf")`);
  });
});

describe('the other routes quote as little', () => {
  it('POST /v1/assemble: an unknown field name and a value', async () => {
    expectRefusal(
      await send('POST', '/v1/assemble', { parts: [{ html: 'x' }], [LONG_NAME]: 1 }),
      `${'k'.repeat(99)}…: unknown field`,
    );
    expectRefusal(
      await send('POST', '/v1/assemble', { parts: [{ html: 'x', rotate: HUGE }] }),
      `parts[0].rotate: string "${CUT}" is not a rotation (0, 90, 180, 270 degrees clockwise)`,
    );
    expectRefusal(
      await send('POST', '/v1/assemble', { parts: [{ html: 'x', options: { format: HUGE } }] }),
      `parts[0].options.format: "${CUT}" is not a supported format (${FORMATS})`,
    );
  });

  it('POST /v1/jobs: an unknown webhook field, an option value; GET /v1/jobs: a status and a parameter name', async () => {
    expectRefusal(
      await send('POST', '/v1/jobs', { html: 'x', webhook: { url: 'https://example.com/', [LONG_NAME]: 1 } }),
      `webhook.${'k'.repeat(91)}…: unknown field`,
    );
    expectRefusal(
      await send('POST', '/v1/jobs', { html: 'x', options: { format: HUGE } }),
      `options.format: "${CUT}" is not a supported format (${FORMATS})`,
    );
    const status = 'A'.repeat(10_000);
    expectRefusal(
      await send('GET', `/v1/jobs?status=${status}`),
      `status: "${CUT}" is not a job status (queued, running, succeeded, failed, canceled)`,
    );
    expectRefusal(await send('GET', `/v1/jobs?${'k'.repeat(10_000)}=1`), `${'k'.repeat(99)}…: unknown query parameter`);
  });

  it('POST /v1/certificates: an unknown field name', async () => {
    expectRefusal(
      await send('POST', '/v1/certificates', { [LONG_NAME]: 1 }),
      `${'k'.repeat(99)}…: unknown field (allowed: pkcs12, password, name)`,
    );
  });

  it('an unknown path of 10 KB is a 404 that quotes 100 characters of it', async () => {
    const res = await send('GET', `/${'p'.repeat(10_000)}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'NOT_FOUND', message: `not found: GET /${'p'.repeat(98)}…` } });
  });
});

describe('a render record', () => {
  it('keeps a bounded error message whatever produced it, within 32 KiB', async () => {
    const id = `rnd_${crypto.randomBytes(12).toString('hex')}`;
    const keyId = (await core.keys.list(accountId)).find((k) => k.service === 'render')?.id ?? '';
    app.renderLog.record({
      id,
      accountId,
      keyId,
      createdAt: Date.now(),
      durationMs: 5,
      source: 'api',
      jobId: null,
      status: 'failed',
      error: { code: 'RENDER_FAILED', message: HUGE },
      pages: null,
      bytes: null,
      warnings: [{ kind: 'script_error', text: 'Error: no total', message: 'A script in the document failed: Error: no total' }],
      claims: [],
    });
    for (const written of [false, true]) {
      if (written) await app.renderLog.flush();
      const res = await send('GET', `/v1/renders/${id}`);
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.length).toBeLessThan(32 * 1024);
      const { error, warnings } = res.json();
      expect(error.code).toBe('RENDER_FAILED');
      expect(error.message).toBe(`${'A'.repeat(999)}…`);
      expect(warnings).toHaveLength(1);
    }
  });
});
