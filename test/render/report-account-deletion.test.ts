/**
 * A render in flight while its account is deleted leaves no record under the deleted account: the
 * render log writes only the records of accounts that still exist.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';

let core: CoreDeps;
let app: FastifyInstance;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '1' });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

describe('an account deleted while its render runs', () => {
  it('leaves no record of that render', async () => {
    const gone = await createKey(core, 'render');
    const html = '<p>slow</p><script>window.pageworksReady = new Promise((r) => setTimeout(r, 1500));</script>';
    const rendering = postRender(app, gone.key, { html });
    await new Promise((r) => setTimeout(r, 500));
    const deleted = await core.accounts.delete(gone.accountId, {
      id: `act_${gone.accountId}`,
      accountId: gone.accountId,
      at: Date.now(),
      kind: 'account_deleted',
      actor: 'cli',
      ip: null,
      userAgent: null,
      detail: null,
    });
    expect(deleted).toBe(true);
    const res = await rendering;
    expect(res.statusCode).toBe(200);
    await app.renderLog.flush();
    expect(await core.store.findRenderRecord(String(res.headers['x-render-id']), gone.accountId)).toBeUndefined();
    expect((await core.store.listRenderRecords(gone.accountId, { limit: 10 })).rows).toEqual([]);
  });
});
