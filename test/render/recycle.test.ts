/**
 * Recycling Chromium through the real app (RENDER_RECYCLE_AFTER): renders in flight and queued at the switch
 * all succeed, the recycle counter moves with its reason, the old Chromium is gone once its renders finished,
 * and none is left after the app closes.
 */

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { parseMetrics, sample } from '../helpers/prometheus.js';
import { noDns, postRender } from '../helpers/render.js';
import { pdfText } from './pdf-tools.js';
import { chromiumChildren } from './processes.js';

const RECYCLE_AFTER = 4;
const RENDERS = 14;

let core: CoreDeps;
let app: FastifyInstance;
let key: string;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '2', RENDER_RECYCLE_AFTER: String(RECYCLE_AFTER) });
  app = await buildRenderApp(core, { lookup: noDns });
  key = (await createKey(core, 'render')).key;
});

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

async function restarts(reason: string): Promise<number> {
  const metrics = parseMetrics((await app.inject({ url: '/metrics' })).body);
  return metrics.get(sample('pageworks_chromium_restarts_total', { reason, service: 'render' })) ?? Number.NaN;
}

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
}

describe('recycling Chromium after RENDER_RECYCLE_AFTER renders', () => {
  it('fails no render across the switch, counts it, and leaves only the new Chromium', async () => {
    expect(await restarts('renders')).toBe(0);
    const [first] = chromiumChildren();
    expect(chromiumChildren()).toEqual([first]);
    // Each render keeps its renderer busy ~150 ms, so renders are running and queued when the count is reached.
    const busy = (i: number) =>
      `<p>render number ${i}</p><script>const end = Date.now() + 150; while (Date.now() < end) {}</script>`;
    const answers = await Promise.all(Array.from({ length: RENDERS }, (_, i) => postRender(app, key, { html: busy(i) })));
    expect(answers.map((res) => res.statusCode)).toEqual(Array(RENDERS).fill(200));
    for (const [i, res] of answers.entries()) expect(pdfText(res.rawPayload)).toContain(`render number ${i}`);

    // Each browser serves RECYCLE_AFTER renders before it is recycled: a render finishing on a browser already
    // replaced must not recycle the new one too.
    const recycles = await restarts('renders');
    expect(recycles).toBeGreaterThanOrEqual(1);
    expect(recycles).toBeLessThanOrEqual(Math.floor(RENDERS / RECYCLE_AFTER));
    expect(await restarts('crash')).toBe(0);
    // The old browsers close once their last render is done: one Chromium remains, a new one.
    await waitFor(() => chromiumChildren().length === 1 && chromiumChildren()[0] !== first, 15_000);
    expect(chromiumChildren()).toHaveLength(1);
    expect(chromiumChildren()).not.toContain(first);
    const after = await postRender(app, key, { html: '<p>after the switch</p>' });
    expect(after.statusCode).toBe(200);
    expect(pdfText(after.rawPayload)).toContain('after the switch');

    await app.close();
    expect(chromiumChildren()).toEqual([]);
  }, 60_000);
});
