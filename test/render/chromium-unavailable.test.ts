/**
 * Chromium that cannot be started (after a crash, its restart fails): renders answer 503
 * SERVICE_UNAVAILABLE with Retry-After at once, `/v1/ready` fails and says why, and the typed client
 * retries until Chromium runs again. The Chromium executable is a wrapper that refuses to start while
 * a flag file exists, as a full /dev/shm or a half-upgraded package would.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { RenderClient } from '../../src/client/index.js';
import { breakableChromium } from '../helpers/broken-chromium.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { chromiumChildren } from './processes.js';

describe('Chromium that cannot be started', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-broken-chromium-'));
  const chromium = breakableChromium(dir);
  let core: CoreDeps;
  let app: FastifyInstance;
  let key: string;

  beforeAll(async () => {
    core = await createTestCore({ CHROMIUM_PATH: chromium.path, RENDER_CONCURRENCY: '1', RENDER_RATE_LIMIT: '1000' });
    app = await buildRenderApp(core, { lookup: noDns });
    await app.listen({ host: '127.0.0.1', port: 0 });
    ({ key } = await createKey(core, 'render'));
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    if (core) await closeTestCore(core);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After, /v1/ready says why, and the client retries until it runs', async () => {
    expect((await postRender(app, key, { html: '<p>before</p>' })).statusCode).toBe(200);
    fs.writeFileSync(chromium.flag, '');
    for (const pid of chromiumChildren()) process.kill(pid, 'SIGKILL');

    // Not ready, with the reason, once the restart has failed.
    let ready = await app.inject({ url: '/v1/ready' });
    const until = Date.now() + 20_000;
    while (!/cannot be started/.test(ready.json().checks.chromium) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      ready = await app.inject({ url: '/v1/ready' });
    }
    expect(ready.statusCode).toBe(503);
    expect(ready.json().checks.chromium).toMatch(/^failing: chromium cannot be started: /);

    const started = Date.now();
    const res = await postRender(app, key, { html: '<p>during</p>' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(res.statusCode).toBe(503);
    expect(res.headers['x-render-id']).toMatch(/^rnd_/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.json()).toEqual({
      error: { code: 'SERVICE_UNAVAILABLE', message: 'the renderer (Chromium) cannot be started; retry shortly' },
    });

    // The client is refused, waits Retry-After, and is served once Chromium starts again.
    const statuses: number[] = [];
    const client = new RenderClient({
      baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
      apiKey: key,
      retry: { attempts: 6, maxWaitMs: 60_000 },
      onRetry: ({ status }) => {
        statuses.push(status);
        if (statuses.length === 1) fs.rmSync(chromium.flag);
      },
    });
    const pdf = await client.render('<p>after</p>');
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(statuses[0]).toBe(503);
    expect((await app.inject({ url: '/v1/ready' })).statusCode).toBe(200);
  }, 90_000);
});
