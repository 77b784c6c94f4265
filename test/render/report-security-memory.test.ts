/**
 * 300 MB of strings pushed into everything of the report a document can reach (its globals, its script
 * errors, its title, with String.prototype.slice made to cut nothing): the service's own
 * memory (this process: the render app runs in it) grows by less than 150 MB, and the answer comes
 * within the render timeout.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { attackDocument } from './report-attacks.js';

const TIMEOUT_MS = 30_000;
let core: CoreDeps;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '1', RENDER_TIMEOUT_MS: String(TIMEOUT_MS) });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  ({ key } = await createKey(core, 'render'));
  // One render first: Chromium, the slot and the code paths are warm before the baseline is taken.
  expect((await postRender(app, key, { html: '<p>warm</p>' })).statusCode).toBe(200);
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

it('300 MB of strings in the report state: RSS grows < 150 MB, answered within the render timeout', async () => {
  global.gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  const started = Date.now();
  try {
    const res = await postRender(app, key, { html: attackDocument('strings') });
    const took = Date.now() - started;
    peak = Math.max(peak, process.memoryUsage.rss());
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(took).toBeLessThan(TIMEOUT_MS);
    expect((peak - before) / 1024 / 1024).toBeLessThan(150);
    // The genuine throw and the 3,000 of 100 KB: counted, the first 100 kept (300 characters each).
    expect(res.headers['x-render-warnings']).toBe('3001');
  } finally {
    clearInterval(sampler);
  }
}, 120_000);
