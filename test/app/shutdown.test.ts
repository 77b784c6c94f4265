/**
 * What a draining service still answers: a request that reaches it on a connection it already holds
 * gets the service's own 503 (never Fastify's default body), and the render in flight completes.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { PAGEWORKS } from '../helpers/pageworks-command.js';
import { halfSentRequest } from '../helpers/raw-http.js';
import { noDns } from '../helpers/render.js';
import { instanceEnv } from '../scale/instances.js';

/** A render that takes about `ms` after load: printing waits for window.pageworksReady. */
const slowDocument = (ms: number) =>
  `<h1>Slow</h1><script>window.pageworksReady = new Promise((r) => setTimeout(r, ${ms}));</script>`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('answers while shutting down', () => {
  let core: CoreDeps | undefined;
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close().catch(() => {});
    if (core) await closeTestCore(core);
    app = undefined;
    core = undefined;
  });

  async function start(build: (core: CoreDeps) => Promise<FastifyInstance>): Promise<number> {
    core = await createTestCore();
    app = await build(core);
    await app.listen({ host: '127.0.0.1', port: 0 });
    return (app.server.address() as net.AddressInfo).port;
  }

  it('render: 503 OVERLOADED with X-Render-ID and Retry-After, while the render in flight completes', async () => {
    const port = await start((c) => buildRenderApp(c, { lookup: noDns }));
    const { key } = await createKey(core!, 'render');
    // The drain starts once the server holds the render: a request still on its way when the server
    // closes meets a closed connection, which is not what this test is about (a loaded machine took
    // longer than the 300 ms below to deliver it once).
    const received = new Promise<void>((resolve) =>
      app!.server.on('request', (req) => {
        if (req.url === '/v1/render') resolve();
      }),
    );
    const inFlight = fetch(`http://127.0.0.1:${port}/v1/render`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ html: slowDocument(1500) }),
    });
    const late = await halfSentRequest(port, '/v1/health');
    await received;
    await sleep(300);
    const closed = app!.close();
    await sleep(100);
    const answer = await late.finish();
    expect(answer.status).toBe(503);
    expect(answer.headers['x-render-id']).toMatch(/^rnd_[0-9a-f]{24}$/);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: 'OVERLOADED', message: 'the render service is shutting down; retry shortly' },
    });
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    await closed;
  });

  it('metadata: 503 {"detail"} with X-Request-ID and Retry-After', async () => {
    const port = await start((c) => buildMetadataApp(c, { lookup: noDns }));
    const late = await halfSentRequest(port, '/v1/fetch?url=https%3A%2F%2Fexample.com%2F');
    const closed = app!.close();
    await sleep(100);
    const answer = await late.finish();
    expect(answer.status).toBe(503);
    expect(answer.headers['x-request-id']).toMatch(/^req_/);
    expect(answer.headers['retry-after']).toBe('1');
    expect(JSON.parse(answer.body)).toEqual({ detail: 'the metadata service is shutting down; retry shortly' });
    await closed;
  });

  it("dashboard: its own 503 page, not Fastify's JSON", async () => {
    const port = await start(buildDashboardApp);
    const late = await halfSentRequest(port, '/login');
    const closed = app!.close();
    await sleep(100);
    const answer = await late.finish();
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.body).toContain('Temporarily unavailable');
    expect(answer.body).not.toContain('statusCode');
    await closed;
  });

  for (const [name, build] of [
    ['metadata', (c: CoreDeps) => buildMetadataApp(c, { lookup: noDns })],
    ['dashboard', buildDashboardApp],
  ] as const) {
    it(`${name}: a connection that never sent a byte does not hold the close`, async () => {
      const port = await start(build);
      // What a browser's preconnect or an HTTP client's spare pooled connection looks like to the server.
      const silent = net.connect(port, '127.0.0.1');
      await new Promise((r) => silent.once('connect', r));
      const ended = new Promise((r) => silent.once('close', r));
      const started = Date.now();
      await app!.close();
      await ended;
      expect(Date.now() - started).toBeLessThan(2000);
    });
  }
});

describe('serve on SIGTERM', () => {
  it('completes the render in flight, then exits 0', async () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-sigterm-'));
    const child = spawn(process.execPath, [...PAGEWORKS, 'serve', '--services', 'render'], {
      cwd: root,
      env: instanceEnv({ PAGEWORKS_DATA_DIR: dataDir, RENDER_PORT: '0', RENDER_CONCURRENCY: '1', LOG_LEVEL: 'warn' }),
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const until = Date.now() + 60_000;
      while (!/render\s+listening on (http:\/\/\S+)/.test(output) || !/render key\s+: (pwr_live_\w+)/.test(output)) {
        if (child.exitCode !== null || Date.now() > until) throw new Error(`serve did not start:\n${output}`);
        await sleep(100);
      }
      const base = /render\s+listening on (http:\/\/\S+)/.exec(output)![1];
      const key = /render key\s+: (pwr_live_\w+)/.exec(output)![1];
      const inFlight = fetch(`${base}/v1/render`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ html: slowDocument(1500) }),
      });
      await sleep(500);
      child.kill('SIGTERM');
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect(
        Buffer.from(await res.arrayBuffer())
          .subarray(0, 5)
          .toString(),
      ).toBe('%PDF-');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
