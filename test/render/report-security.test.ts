/**
 * The document is untrusted, and so is everything it can touch: a document that finds every global whose
 * name or symbol mentions the report (or Pageworks) and rewrites its numbers and arrays gets a report of
 * what really happened, integer counts, and job reads that work; control characters cannot swell a record
 * past 32 KiB, and an account's entries stay within its render log budget.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { until } from '../helpers/webhook-jobs.js';
import { attackDocument, GENUINE } from './report-attacks.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let accountId: string;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '1', RENDER_LOG_ACCOUNT_KIB: '96' });
  app = await buildRenderApp(core, { lookup: noDns });
  ({ key, accountId } = await createKey(core, 'render'));
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

const auth = (k: string) => ({ authorization: `Bearer ${k}` });

/** GET /v1/renders/{id} once the render log wrote what it holds. */
async function renderRecord(id: string) {
  await app.renderLog.flush();
  const res = await app.inject({ method: 'GET', url: `/v1/renders/${id}`, headers: auth(key) });
  expect(res.statusCode).toBe(200);
  return res.json();
}

const ATTACKS = {
  'numbers become text': 'text',
  'numbers become 1e308': 'huge',
  'arrays take forged entries': 'entries',
  'arrays take numbers, objects and arrays': 'shapes',
} as const;

describe('a document that rewrites the report state it can reach', () => {
  for (const [name, attack] of Object.entries(ATTACKS)) {
    it(`${name}: 200, an integer count, and only what really happened`, async () => {
      const res = await postRender(app, key, { html: attackDocument(attack) });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.headers['x-render-warnings']).toBe('1');
      const record = await renderRecord(String(res.headers['x-render-id']));
      expect(record.warnings).toEqual([
        { kind: 'script_error', text: `Error: ${GENUINE}`, message: `A script in the document failed: Error: ${GENUINE}` },
      ]);
      expect(Number.isInteger(record.pages)).toBe(true);
      expect(JSON.stringify(record)).not.toMatch(/FORGED|1e\+308|Infinity|NaN/);
    });
  }

  it('as a job: it succeeds, and the job and the job list read', async () => {
    const submitted = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers: { ...auth(key), 'content-type': 'application/json' },
      payload: JSON.stringify({ html: attackDocument('shapes') }),
    });
    expect(submitted.statusCode).toBe(202);
    const id = submitted.json().id as string;
    let job: { status: string; warnings?: unknown[] } = { status: 'queued' };
    await until(
      async () => {
        const res = await app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers: auth(key) });
        expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
        job = res.json();
        return job.status === 'succeeded' || job.status === 'failed';
      },
      'the job to finish',
      60_000,
    );
    expect(job.status).toBe('succeeded');
    expect(job.warnings).toHaveLength(1);
    const list = await app.inject({ method: 'GET', url: '/v1/jobs', headers: auth(key) });
    expect(list.statusCode, list.body.slice(0, 300)).toBe(200);
    expect(JSON.stringify(list.json())).toContain(id);
  });
});

describe('what a record and an account may keep', () => {
  const controls = `<p>noise</p><script>
    for (let i = 0; i < 150; i++) setTimeout(() => { throw new Error('\\u0001'.repeat(400)); });
  </script>`;

  it('150 script errors of 400 control characters store a record of at most 32 KiB that still counts them all', async () => {
    const res = await postRender(app, key, { html: controls });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-render-warnings']).toBe('150');
    const id = String(res.headers['x-render-id']);
    await app.renderLog.flush();
    const stored = await core.store.findRenderRecord(id, accountId);
    expect(stored).toBeDefined();
    expect(Buffer.byteLength(JSON.stringify(stored))).toBeLessThanOrEqual(32 * 1024);
    const counted = stored!.warnings.reduce((n, w) => n + (w.kind === 'truncated' ? w.dropped : 1), 0);
    expect(counted).toBe(150);
    expect(JSON.stringify(stored)).not.toContain('\\u0001');
  });

  it("a burst of such renders keeps the account's entries within its budget (96 KiB here), each render still counted", async () => {
    const other = await createKey(core, 'render');
    const ids: string[] = [];
    // Printable text this time: nothing to strip, so each record is as large as a record may be.
    const wordy = controls.replace("'\\u0001'", "'x'");
    for (let i = 0; i < 8; i++) {
      const res = await postRender(app, other.key, { html: wordy });
      expect(res.statusCode).toBe(200);
      ids.push(String(res.headers['x-render-id']));
    }
    await app.renderLog.flush();
    let bytes = 0;
    for (const id of ids) {
      const stored = await core.store.findRenderRecord(id, other.accountId);
      expect(stored, id).toBeDefined();
      bytes += Buffer.byteLength(JSON.stringify(stored!.warnings));
      expect(stored!.warnings.reduce((n, w) => n + (w.kind === 'truncated' ? w.dropped : 1), 0)).toBe(150);
    }
    expect(bytes).toBeLessThanOrEqual(96 * 1024);
  });
});
