/**
 * What an operator of the render service sees: /metrics (renders in flight, queue depth, outcomes and
 * durations, Chromium restarts, contexts thrown away) moving as renders run, and /v1/ready reporting
 * Chromium — 200 with "chromium":"ok", 503 while a killed Chromium is being replaced.
 */
import fs from 'node:fs';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { parseMetrics, sample } from '../helpers/prometheus.js';
import { postRender } from '../helpers/render.js';
import { chromiumChildren } from './processes.js';

let core: CoreDeps;
let app: FastifyInstance;
let keys: string[];

beforeAll(async () => {
  core = await createTestCore({
    RENDER_CONCURRENCY: '1',
    RENDER_QUEUE_LIMIT: '4',
    RENDER_TIMEOUT_MS: '10000',
    RENDER_RATE_LIMIT: '10000',
  });
  app = await buildRenderApp(core, { lookup: async () => [] });
  keys = [(await createKey(core, 'render')).key, (await createKey(core, 'render')).key];
});

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

function render(html: string, key = keys[0]): Promise<LightMyRequestResponse> {
  return postRender(app, key, { html });
}

async function scrape(): Promise<(name: string, labels?: Record<string, string>) => number> {
  const res = await app.inject({ url: '/metrics' });
  expect(res.statusCode).toBe(200);
  const values = parseMetrics(res.body);
  // A labelled series that has not happened yet is absent: it counts as 0.
  return (name, labels = {}) => values.get(sample(name, { service: 'render', ...labels })) ?? 0;
}

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return false;
}

/** A render that keeps its slot busy for about `ms`. */
const busy = (ms: number): string => `<p>busy</p><script>const t = Date.now(); while (Date.now() - t < ${ms}) {}</script>`;

describe('render metrics', () => {
  it('a render moves the outcome counter and the duration histogram; nothing is left in flight', async () => {
    const before = await scrape();
    expect((await render('<p>counted</p>')).statusCode).toBe(200);
    const after = await scrape();
    expect(after('pageworks_renders_total', { outcome: 'ok' })).toBe(before('pageworks_renders_total', { outcome: 'ok' }) + 1);
    const count = 'pageworks_render_duration_seconds_count';
    expect(after(count, { outcome: 'ok' })).toBe(before(count, { outcome: 'ok' }) + 1);
    expect(after('pageworks_render_duration_seconds_sum', { outcome: 'ok' })).toBeGreaterThan(
      before('pageworks_render_duration_seconds_sum', { outcome: 'ok' }),
    );
    expect(after('pageworks_renders_in_flight')).toBe(0);
    expect(after('pageworks_render_queue_depth')).toBe(0);
    expect(after('pageworks_chromium_up')).toBe(1);
  });

  it('a render waiting behind another shows as queue depth while the first is in flight', async () => {
    const first = render(busy(1200), keys[0]);
    const second = render('<p>queued</p>', keys[1]);
    let seen = { inFlight: 0, depth: 0 };
    const both = await until(async () => {
      const m = await scrape();
      seen = { inFlight: m('pageworks_renders_in_flight'), depth: m('pageworks_render_queue_depth') };
      return seen.inFlight === 1 && seen.depth === 1;
    }, 1000);
    expect(seen).toEqual({ inFlight: 1, depth: 1 });
    expect(both).toBe(true);
    expect((await first).statusCode).toBe(200);
    expect((await second).statusCode).toBe(200);
    const m = await scrape();
    expect([m('pageworks_renders_in_flight'), m('pageworks_render_queue_depth')]).toEqual([0, 0]);
  });

  it('a refused render counts under its error code, and a render that left state costs its context', async () => {
    const before = await scrape();
    const res = await render('<p>fetcher</p><script>fetch("http://example.test/").catch(() => 0)</script>');
    expect(res.statusCode).toBe(200);
    const overloaded = await Promise.all(Array.from({ length: 8 }, () => render(busy(300), keys[1])));
    expect(overloaded.some((r) => r.statusCode === 503)).toBe(true);
    const after = await scrape();
    expect(after('pageworks_render_contexts_discarded_total', { reason: 'state' })).toBe(
      before('pageworks_render_contexts_discarded_total', { reason: 'state' }) + 1,
    );
    const refused = overloaded.filter((r) => r.statusCode === 503).length;
    expect(after('pageworks_renders_total', { outcome: 'OVERLOADED' })).toBe(
      before('pageworks_renders_total', { outcome: 'OVERLOADED' }) + refused,
    );
  });
});

describe('readiness and Chromium restarts', () => {
  it('ready with "chromium":"ok" while Chromium serves', async () => {
    const ready = await app.inject({ url: '/v1/ready' });
    expect(ready.statusCode).toBe(200);
    // The headless shell where it is installed (CHROMIUM_PATH unset), full Chromium otherwise.
    const shell = !process.env.CHROMIUM_PATH && fs.existsSync('/usr/bin/chromium-headless-shell');
    expect(ready.json()).toEqual({
      status: 'ready',
      checks: { store: 'ok', chromium: 'ok' },
      fonts: { missing: [] },
      browser: {
        build: shell ? 'chromium-headless-shell' : 'chromium',
        executable: shell ? '/usr/lib/chromium/chromium-headless-shell' : expect.any(String),
        version: expect.stringMatching(/^(Headless)?Chrome\/\d+\./),
      },
    });
  });

  it('a killed Chromium: 503 not ready while it is replaced, the restart is counted, then ready and rendering again', async () => {
    const before = await scrape();
    const [pid] = chromiumChildren();
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    let notReady: LightMyRequestResponse | undefined;
    await until(async () => {
      const res = await app.inject({ url: '/v1/ready' });
      if (res.statusCode === 503) notReady = res;
      return notReady !== undefined;
    }, 5000);
    expect(notReady?.json()).toMatchObject({
      status: 'not ready',
      checks: { store: 'ok', chromium: expect.stringMatching(/^failing: chromium/) },
    });
    expect(await until(async () => (await app.inject({ url: '/v1/ready' })).statusCode === 200, 15_000)).toBe(true);
    const after = await scrape();
    expect(after('pageworks_chromium_restarts_total', { reason: 'crash' })).toBe(
      before('pageworks_chromium_restarts_total', { reason: 'crash' }) + 1,
    );
    expect(after('pageworks_chromium_up')).toBe(1);
    expect((await render('<p>after the restart</p>')).statusCode).toBe(200);
  });
});
