/**
 * The shipped deploy/nginx.conf, run by Debian's nginx in front of real `pageworks serve` instances on
 * one embedded store: per-client throttles through it, hidden probe paths, its own error answers in
 * each service's shape, an instance whose readiness fails taken out, and the typed client behind it.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { type Dispatcher, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeCore, createCore } from '../../src/app/core.js';
import { MetadataApiError, MetadataClient, RenderApiError, RenderClient } from '../../src/client/index.js';
import { loadConfig } from '../../src/config.js';
import { breakableChromium } from '../helpers/broken-chromium.js';
import { startTargetPage } from '../scale/cluster.js';
import { descendants, Instance } from '../scale/instances.js';
import { freeLoopbackPort, fromAddress, hasNginx, Nginx } from './nginx.js';

if (!hasNginx)
  console.warn(
    '\n*** nginx is not installed: the deploy/nginx.conf suite is SKIPPED (run as root: node scripts/setup.mjs --test) ***\n',
  );

const PASSWORD = 'correct horse battery staple';
const HIDDEN_PAGE = /^<!doctype html><title>Page not found<\/title>/;

/** One log-in through the form: GET for the CSRF cookie and token, then POST, from `dispatcher`'s address. */
async function logIn(base: string, dispatcher: Dispatcher, email: string, password: string) {
  const page = await fetch(`${base}/login`, { dispatcher });
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!csrf) throw new Error('no CSRF token on the log-in page');
  return fetch(`${base}/login`, {
    method: 'POST',
    dispatcher,
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
}

/** The `error.code` of a render-shaped answer. */
async function errorCode(res: { json(): Promise<unknown> }): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

/** Requests an instance answered on a route, from its own /metrics. */
async function answered(instance: Instance, route: string): Promise<number> {
  const text = await (await fetch(`${instance.url}/metrics`)).text();
  const line = new RegExp(`^pageworks_http_requests_total\\{route="${route}"[^}]*\\} (\\d+)`, 'gm');
  return [...text.matchAll(line)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** The most requests nginx sends a failing instance over `elapsedMs` (max_fails=3, fail_timeout=10s, shared zone). */
function notReadyBound(elapsedMs: number): number {
  return 3 + Math.floor(elapsedMs / 10_000);
}

/** A TCP server that accepts connections and never answers: an instance hung mid-request. */
async function blackHole(): Promise<{ address: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.skipIf(!hasNginx)('deploy/nginx.conf in front of real instances', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-nginx-store-'));
  const email = 'b@example.com';
  let keys: { render: string; metadata: string };
  let target: Awaited<ReturnType<typeof startTargetPage>>;
  let dashboard: Instance;
  let render: Instance;
  let metadata: Instance;
  let notReady: Instance;
  let nginx: Nginx;
  const clientA = fromAddress('127.0.0.2');
  const clientB = fromAddress('127.0.0.3');

  beforeAll(async () => {
    // One embedded store for every instance, seeded before they start (so none bootstraps a local account).
    const core = await createCore(loadConfig({ PAGEWORKS_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), pino({ level: 'silent' }));
    const account = await core.accounts.create(email, PASSWORD);
    keys = {
      render: (await core.keys.create(account.id, 'render', 'nginx')).key,
      metadata: (await core.keys.create(account.id, 'metadata', 'nginx')).key,
    };
    await closeCore(core);
    target = await startTargetPage();
    // The render limit well above what the loops below send on a fast machine (they run for a time, not a count).
    const env = {
      PAGEWORKS_DATA_DIR: dataDir,
      EGRESS_ALLOW: '127.0.0.1/32',
      LOG_LEVEL: 'warn',
      METADATA_CACHE_TTL_S: '0',
      RENDER_RATE_LIMIT: '100000',
    };
    // nginx reaches the instances from 127.0.0.1: that is the proxy they believe.
    const dead = `postgres://postgres@127.0.0.1:${await freeLoopbackPort()}/none`;
    [dashboard, render, metadata, notReady] = await Promise.all([
      Instance.start('dashboard', { ...env, TRUST_PROXY: '127.0.0.1' }),
      Instance.start('render', env),
      Instance.start('metadata', env),
      // Its store is unreachable: /v1/ready fails and authenticated requests get 503.
      Instance.start('metadata', { ...env, DATABASE_URL: dead }),
    ]);
    const host = (i: Instance) => new URL(i.url).host;
    nginx = await Nginx.start({
      upstreams: { render: [host(render)], metadata: [host(notReady), host(metadata)], dashboard: [host(dashboard)] },
    });
  }, 120_000);

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all([dashboard, render, metadata, notReady].map((i) => i?.stop()));
    await target?.close();
    await Promise.all([clientA.close(), clientB.close()]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 404 for /metrics and /v1/ready on every public port, in the service shape', async () => {
    for (const p of ['/metrics', '/v1/ready']) {
      const r = await fetch(`${nginx.url('render')}${p}`);
      expect(r.status).toBe(404);
      expect(r.headers.get('x-render-id')).toMatch(/^rnd_[0-9a-f]{32}$/);
      expect(await r.json()).toEqual({ error: { code: 'NOT_FOUND', message: `not found: ${p}` } });
      const m = await fetch(`${nginx.url('metadata')}${p}`);
      expect(m.status).toBe(404);
      expect(await m.json()).toEqual({ detail: `not found: GET ${p}` });
      const d = await fetch(`${nginx.url('dashboard')}${p}`);
      expect(d.status).toBe(404);
      expect(await d.text()).toMatch(HIDDEN_PAGE);
    }
    // The instances themselves still answer them, for the internal network.
    expect((await fetch(`${dashboard.url}/v1/ready`)).status).toBe(200);
  });

  it('throttles log-in per client behind it: 20 wrong passwords from A lock A out, not B', async () => {
    const base = nginx.url('dashboard');
    // Twenty emails, so the per-email limit (5) never decides: only the per-client-IP one (20) can.
    for (let i = 0; i < 20; i++) {
      const res = await logIn(base, clientA, `nobody${i}@example.com`, 'wrong password');
      expect(res.status, `attempt ${i + 1}`).toBe(401);
    }
    const locked = await logIn(base, clientA, 'nobody-else@example.com', 'wrong password');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);

    const b = await logIn(base, clientB, email, PASSWORD);
    expect(b.status).toBe(303);
    expect(b.headers.get('location')).toBe('/keys');
    // The session and the activity log record B's own address, not nginx's.
    const session = b.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const account = await (await fetch(`${base}/account`, { dispatcher: clientB, headers: { cookie: session } })).text();
    expect(account).toContain('127.0.0.3');
    expect(account).not.toContain('127.0.0.1<');
  }, 240_000); // 22 password checks, each a deliberately slow hash

  it('passes every valid render body: 9 MB of HTML in a 17 MiB body (JSON escapes) gives 200', async () => {
    // Each `"` is escaped to two bytes: the body is about twice the HTML.
    const html = `<h1>Quoted</h1><div hidden>${'"'.repeat(9_000_000)}</div>`;
    const body = JSON.stringify({ html });
    expect(body.length).toBeGreaterThan(17 * 1024 * 1024);
    const res = await fetch(`${nginx.url('render')}/v1/render`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.render}`, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(200);
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  }, 120_000);

  it('answers its own 413 in each service shape', async () => {
    // Beyond 61 MiB no body can be valid (10 MiB of HTML escapes to at most 60 MiB): nginx answers.
    const big = await fetch(`${nginx.url('render')}/v1/render`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.render}`, 'content-type': 'application/json' },
      body: JSON.stringify({ html: 'x'.repeat(62 * 1024 * 1024) }),
    });
    expect(big.status).toBe(413);
    expect(big.headers.get('content-type')).toBe('application/json');
    expect(big.headers.get('x-render-id')).toMatch(/^rnd_/);
    expect(await big.json()).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'body larger than 61 MiB cannot hold a valid request (html: at most 10 MiB)' },
    });
    // Below that, an invalid one (17 MiB of HTML) reaches the service, which answers its own 413.
    const invalid = await fetch(`${nginx.url('render')}/v1/render`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.render}`, 'content-type': 'application/json' },
      body: JSON.stringify({ html: 'x'.repeat(17 * 1024 * 1024) }),
    });
    expect(invalid.status).toBe(413);
    expect(invalid.headers.get('x-render-id')).toMatch(/^rnd_/);
    expect(await errorCode(invalid)).toBe('PAYLOAD_TOO_LARGE');

    const meta = await fetch(`${nginx.url('metadata')}/v1/fetch`, { method: 'POST', body: 'x'.repeat(100_000) });
    expect(meta.status).toBe(413);
    expect(await meta.json()).toEqual({ detail: 'request body too large' });

    const form = await fetch(`${nginx.url('dashboard')}/login`, { method: 'POST', body: 'x'.repeat(100_000) });
    expect(form.status).toBe(413);
    expect(await form.text()).toMatch(/^<!doctype html><title>Bad request<\/title>/);
  });

  it('stops sending requests to an instance whose /v1/ready fails (its 503s move them on)', async () => {
    expect((await fetch(`${notReady.url}/v1/ready`)).status).toBe(503);
    const url = `${nginx.url('metadata')}/v1/fetch?url=${encodeURIComponent(target.url)}`;
    const statuses: number[] = [];
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      statuses.push((await fetch(url, { headers: { 'x-api-key': keys.metadata } })).status);
    }
    const elapsedMs = Date.now() - started;
    expect(statuses).toEqual(Array(20).fill(200));
    // What nginx promises (the upstream's zone shares the count between its worker processes): tried
    // until max_fails=3 strikes, then out for fail_timeout (10 s); after each fail_timeout one request
    // tries it again, and its failure takes it out again. However slow the machine, that is 3, plus one
    // per 10 s the loop lasted.
    const onNotReady = await answered(notReady, '/v1/fetch');
    expect(onNotReady).toBeGreaterThanOrEqual(1);
    expect(onNotReady).toBeLessThanOrEqual(notReadyBound(elapsedMs));
    expect(await answered(metadata, '/v1/fetch')).toBe(20);
  });

  it('gives the typed client typed errors, never INVALID_RESPONSE', async () => {
    const client = new RenderClient({ baseUrl: nginx.url('render'), apiKey: keys.render, retry: false });
    const pdf = await client.render('<h1>Through nginx</h1>', { format: 'A5' });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const err = await client.render('x'.repeat(17 * 1024 * 1024)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderApiError);
    expect(err).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect((err as RenderApiError).renderId).toMatch(/^rnd_/);
  });

  describe('with a render instance whose Chromium cannot start', () => {
    const chromiumDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-nginx-chromium-'));
    const chromium = breakableChromium(chromiumDir);
    let broken: Instance;
    let pair: Nginx;

    beforeAll(async () => {
      broken = await Instance.start('render', {
        PAGEWORKS_DATA_DIR: dataDir,
        CHROMIUM_PATH: chromium.path,
        LOG_LEVEL: 'warn',
        RENDER_RATE_LIMIT: '100000',
      });
      // Chromium stops, and its restart fails from now on.
      fs.writeFileSync(chromium.flag, '');
      for (const pid of descendants(broken.pid)) {
        try {
          if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chrom')) process.kill(pid, 'SIGKILL');
        } catch {
          // Gone with its parent already.
        }
      }
      const until = Date.now() + 30_000;
      for (;;) {
        const ready = (await (await fetch(`${broken.url}/v1/ready`)).json()) as { checks: { chromium: string } };
        if (/cannot be started/.test(ready.checks.chromium)) break;
        if (Date.now() > until) throw new Error(`chromium of the broken instance: ${ready.checks.chromium}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      pair = await Nginx.start({
        upstreams: {
          render: [new URL(broken.url).host, new URL(render.url).host],
          metadata: [new URL(metadata.url).host],
          dashboard: [new URL(dashboard.url).host],
        },
      });
    }, 120_000);
    afterAll(async () => {
      await pair?.stop();
      await broken?.stop();
      fs.rmSync(chromiumDir, { recursive: true, force: true });
    });

    it("its 503s move each render to the other instance and take it out for nginx's window", async () => {
      const direct = await fetch(`${broken.url}/v1/render`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys.render}`, 'content-type': 'application/json' },
        body: JSON.stringify({ html: '<p>direct</p>' }),
      });
      expect(direct.status).toBe(503);
      expect(direct.headers.get('retry-after')).toBe('5');
      expect(await errorCode(direct)).toBe('SERVICE_UNAVAILABLE');
      const before = await answered(broken, '/v1/render');

      const retried: number[] = [];
      const client = new RenderClient({
        baseUrl: pair.url('render'),
        apiKey: keys.render,
        retry: { attempts: 4, maxWaitMs: 60_000 },
        onRetry: ({ status }) => retried.push(status),
      });
      // Longer than fail_timeout (10 s): the broken instance is tried again once the window ends.
      const started = Date.now();
      let renders = 0;
      while (renders < 12 || Date.now() - started < 12_000) {
        const pdf = await client.render(`<p>through nginx ${renders++}</p>`);
        expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      }
      const elapsedMs = Date.now() - started;
      const onBroken = (await answered(broken, '/v1/render')) - before;
      console.log(
        `nginx: ${onBroken} of ${renders} renders reached the instance without Chromium in ${elapsedMs} ms; the client retried ${retried.length}`,
      );
      // nginx resent each of those to the good instance (the client saw 200 every time); the broken one
      // saw at most what nginx promises, however slow the machine.
      expect(onBroken).toBeGreaterThanOrEqual(1);
      expect(onBroken).toBeLessThanOrEqual(notReadyBound(elapsedMs));
      expect(retried).toEqual([]);
    }, 180_000);
  });

  describe('with no instance answering', () => {
    let refused: Nginx;
    let hung: Nginx;
    let hole: Awaited<ReturnType<typeof blackHole>>;

    beforeAll(async () => {
      const closed = `127.0.0.1:${await freeLoopbackPort()}`;
      refused = await Nginx.start({ upstreams: { render: [closed], metadata: [closed], dashboard: [closed] } });
      hole = await blackHole();
      hung = await Nginx.start({
        upstreams: { render: [hole.address], metadata: [hole.address], dashboard: [hole.address] },
        readTimeoutS: 1,
      });
    });
    afterAll(async () => {
      await refused?.stop();
      await hung?.stop();
      await hole?.close();
    });

    it('answers 503 with Retry-After in each service shape when every instance refuses (its 502)', async () => {
      const r = await fetch(`${refused.url('render')}/v1/render`, { method: 'POST', body: '{}' });
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('5');
      expect(r.headers.get('x-render-id')).toMatch(/^rnd_/);
      expect(await errorCode(r)).toBe('OVERLOADED');
      const m = await fetch(`${refused.url('metadata')}/v1/fetch?url=x`);
      expect([m.status, m.headers.get('retry-after')]).toEqual([503, '5']);
      expect(await m.json()).toEqual({ detail: 'no metadata instance is available; retry shortly' });
      const d = await fetch(`${refused.url('dashboard')}/login`);
      expect(d.status).toBe(503);
      expect(await d.text()).toMatch(/^<!doctype html><title>Temporarily unavailable<\/title>/);

      const metadataClient = new MetadataClient({ baseUrl: refused.url('metadata'), apiKey: keys.metadata, retry: false });
      const err = await metadataClient.fetchMetadata('https://example.com/').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MetadataApiError);
      expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, retryAfterS: 5 });
    });

    it('answers 504 in each service shape when the instance does not answer in time', async () => {
      const r = await fetch(`${hung.url('render')}/v1/health`);
      expect(r.status).toBe(504);
      expect(await errorCode(r)).toBe('RENDER_TIMEOUT');
      const m = await fetch(`${hung.url('metadata')}/v1/health`);
      expect(m.status).toBe(504);
      expect(await m.json()).toEqual({ detail: 'the metadata instance did not answer in time' });
      const d = await fetch(`${hung.url('dashboard')}/login`);
      expect(d.status).toBe(504);
      expect(await d.text()).toMatch(/^<!doctype html><title>Temporarily unavailable<\/title>/);

      const client = new RenderClient({ baseUrl: hung.url('render'), apiKey: keys.render, retry: false });
      const err = await client.render('<p>x</p>').catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'RENDER_TIMEOUT', status: 504 });
    });
  });
});
