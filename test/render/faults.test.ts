/**
 * Faults with one render slot and a queue of two: a script that never ends, Chromium killed mid-render,
 * killed again during the retry or while its replacement starts, a burst beyond capacity, and shutdown
 * without orphan processes.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { processGroupMembers } from '../../src/render/browser/chromium.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { postRender } from '../helpers/render.js';
import { pdfText } from './pdf-tools.js';
import { chromiumChildren } from './processes.js';

const TIMEOUT_MS = 2000;
let core: CoreDeps;
let app: FastifyInstance;
let keys: string[];

beforeAll(async () => {
  core = await createTestCore({
    RENDER_CONCURRENCY: '1',
    RENDER_QUEUE_LIMIT: '2',
    RENDER_TIMEOUT_MS: String(TIMEOUT_MS),
    RENDER_RATE_LIMIT: '10000',
  });
  app = await buildRenderApp(core, { lookup: async () => [] });
  keys = await Promise.all([1, 2, 3].map(async () => (await createKey(core, 'render')).key));
});

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

function render(html: string, key = keys[0]): Promise<LightMyRequestResponse> {
  return postRender(app, key, { html });
}

function expectError(res: LightMyRequestResponse, status: number, code: string): void {
  expect(res.statusCode).toBe(status);
  expect(res.headers['x-render-id']).toMatch(/^rnd_/);
  expect(res.json()).toEqual({ error: { code, message: expect.any(String) } });
}

/** The Chromium launched after `first`, as soon as its process exists. */
async function replacementOf(first: number): Promise<number> {
  for (;;) {
    const next = chromiumChildren().find((pid) => pid !== first);
    if (next !== undefined) return next;
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Until /v1/ready answers 200 (a Chromium is connected with its slots warm). */
async function untilReady(): Promise<void> {
  while ((await app.inject({ url: '/v1/ready' })).statusCode !== 200) await new Promise((r) => setTimeout(r, 50));
}

async function expectRenders(text: string): Promise<void> {
  const res = await render(`<p>${text}</p>`);
  expect(res.statusCode).toBe(200);
  expect(pdfText(res.rawPayload)).toContain(text);
}

describe('render faults', () => {
  it('while(true){} → 504 RENDER_TIMEOUT within the timeout + 2 s, and the next render succeeds', async () => {
    const started = Date.now();
    const res = await render('<p>spin</p><script>while (true) {}</script>');
    const elapsed = Date.now() - started;
    expectError(res, 504, 'RENDER_TIMEOUT');
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 2000);
    await expectRenders('after the spin');
  });

  it('Chromium killed mid-render → the render is tried once more on a new Chromium and succeeds', async () => {
    const [pid] = chromiumChildren();
    expect(pid).toBeGreaterThan(0);
    const pending = render('<p>slow once</p><script>const t = Date.now(); while (Date.now() - t < 1500) {}</script>');
    await new Promise((r) => setTimeout(r, 400));
    process.kill(pid, 'SIGKILL');
    const res = await pending;
    expect(res.statusCode).toBe(200);
    expect(pdfText(res.rawPayload)).toContain('slow once');
    // The killed browser's renderers and zygotes went with it.
    expect(processGroupMembers(pid)).toEqual([]);
  });

  it('Chromium killed again during that second try → 503 SERVICE_UNAVAILABLE with Retry-After, the next render succeeds', async () => {
    const [first] = chromiumChildren();
    const pending = render('<p>slow twice</p><script>const t = Date.now(); while (Date.now() - t < 1500) {}</script>');
    await new Promise((r) => setTimeout(r, 400));
    process.kill(first, 'SIGKILL');
    // The retry waits for the replacement and takes its slot the moment it is ready: kill it then, mid-render.
    const second = await replacementOf(first);
    await untilReady();
    await new Promise((r) => setTimeout(r, 400));
    process.kill(second, 'SIGKILL');
    const res = await pending;
    expectError(res, 503, 'SERVICE_UNAVAILABLE');
    expect(res.json().error.message).toMatch(/browser stopped.*retry/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await expectRenders('after two kills');
  });

  it('Chromium killed, then its replacement killed while it starts → 503 SERVICE_UNAVAILABLE, not ready until a Chromium runs again, then renders', async () => {
    const [first] = chromiumChildren();
    const pending = render('<p>slow thrice</p><script>const t = Date.now(); while (Date.now() - t < 1500) {}</script>');
    await new Promise((r) => setTimeout(r, 400));
    process.kill(first, 'SIGKILL');
    process.kill(await replacementOf(first), 'SIGKILL');
    const res = await pending;
    expectError(res, 503, 'SERVICE_UNAVAILABLE');
    expect(res.json().error.message).toMatch(/cannot be started/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Until a Chromium runs again, renders are refused at once and the instance says it is not ready.
    const refused = await render('<p>too soon</p>');
    expectError(refused, 503, 'SERVICE_UNAVAILABLE');
    expect((await app.inject({ url: '/v1/ready' })).statusCode).toBe(503);
    // The restart goes on in the background; a client that waits as Retry-After says is served.
    await untilReady();
    await expectRenders('after a failed start');
  });

  it('3× more simultaneous requests than concurrency + queue: the excess gets 503 quickly, none hangs', async () => {
    const capacity = 1 + 2;
    const slow = '<p>busy</p><script>const t = Date.now(); while (Date.now() - t < 300) {}</script>';
    const started = Date.now();
    const timed = await Promise.all(
      Array.from({ length: capacity * 3 }, async (_, i) => {
        const res = await render(slow, keys[i % keys.length]);
        return { res, ms: Date.now() - started };
      }),
    );
    const refused = timed.filter((t) => t.res.statusCode === 503);
    const served = timed.filter((t) => t.res.statusCode === 200);
    expect(refused.length).toBe(capacity * 2);
    expect(served.length).toBe(capacity);
    for (const t of refused) {
      expectError(t.res, 503, 'OVERLOADED');
      expect(Number(t.res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(t.ms).toBeLessThan(1000);
    }
    expect(Math.max(...timed.map((t) => t.ms))).toBeLessThan(3 * (TIMEOUT_MS + 1000));
  });

  it('closing the app leaves no Chromium process behind', async () => {
    const pids = chromiumChildren();
    expect(pids.length).toBe(1);
    await app.close();
    expect(processGroupMembers(pids[0])).toEqual([]);
    expect(chromiumChildren()).toEqual([]);
  });
});
