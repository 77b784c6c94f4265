import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { createdKey, keyIdOf, signUp } from './client.js';

let core: CoreDeps;
let app: FastifyInstance;
let n = 0;
const email = () => `pages${++n}@example.com`;

beforeAll(async () => {
  core = await createTestCore({
    RENDER_PUBLIC_URL: 'https://render.example.test',
    METADATA_PUBLIC_URL: 'https://meta.example.test/',
    RENDER_RATE_LIMIT: '77',
  });
  app = await buildDashboardApp(core);
});
afterAll(async () => {
  await app.close();
  await closeTestCore(core);
});

function rowOf(body: string, id: string): string {
  const start = body.indexOf(`<tr data-key-id="${id}">`);
  return body.slice(start, body.indexOf('</tr>', start));
}

describe('keys page', () => {
  it('shows a new key once, with a curl example on the public address, then only its prefix', async () => {
    const client = await signUp(app, email());
    const created = await client.createKey({ service: 'render', name: 'production' });
    const key = createdKey(created.body);
    expect(key).toMatch(/^pwr_live_[0-9a-f]{32}$/);
    expect(created.body).toContain('it will not be shown again');
    expect(created.body).toContain(`curl -X POST &quot;https://render.example.test/v1/render&quot;`);
    expect(created.body).toContain(`Authorization: Bearer ${key}`);
    const list = await client.get('/keys');
    expect(list.body).not.toContain(key);
    const row = rowOf(list.body, keyIdOf(list.body, key));
    expect(row).toContain('production');
    expect(row).toContain(`${key.slice(0, 13)}…`);
    expect(row).toContain('never');
  });

  it('shows the last-used time as soon as the key was used in this process', async () => {
    const client = await signUp(app, email());
    const key = createdKey((await client.createKey({ service: 'metadata' })).body);
    const check = await core.keys.verify(key, 'metadata');
    if (!check.ok) throw new Error('key does not verify');
    core.lastUsed.record(check.keyId, Date.now());
    const row = rowOf((await client.get('/keys')).body, check.keyId);
    expect(row).toContain('just now');
    expect(row).not.toContain('never');
    expect(row).toContain('unnamed');
  });
});

describe('usage page', () => {
  it('has an empty state and the default limits for a new account', async () => {
    const client = await signUp(app, email());
    const res = await client.get('/usage');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('No render requests in the last 30 days.');
    expect(res.body).toContain('No metadata requests in the last 30 days.');
    expect(res.body).not.toContain('<svg class="chart"');
    expect(res.body).toMatch(/<strong>77<\/strong> requests \/ minute<\/dd>\s*<dd class="source">default limit/);
    expect(res.body).toMatch(/<strong>600<\/strong> requests \/ minute<\/dd>\s*<dd class="source">default limit/);
  });

  it('charts requests by outcome and shows a per-account limit', async () => {
    const address = email();
    const client = await signUp(app, address);
    const account = (await core.accounts.findByEmail(address))!;
    const { record } = await core.keys.create(account.id, 'render', 'charted');
    for (let i = 0; i < 7; i++) core.usage.record(account.id, 'render', 'ok', record.id);
    core.usage.record(account.id, 'render', 'rate_limited', record.id);
    core.usage.record(account.id, 'render', 'server_error', record.id);
    await core.accounts.setLimit(account.id, 'metadata', 1234);
    const res = await client.get('/usage');
    expect(res.body).toContain('<svg class="chart"');
    expect(res.body).toMatch(/<title>[A-Z][a-z]{2} \d+: 9 requests \(OK: 7, Rate limited: 1, Server error: 1\)<\/title>/);
    expect(res.body).toContain('No metadata requests in the last 30 days.');
    expect(res.body).toMatch(/<strong>1,234<\/strong> requests \/ minute<\/dd>\s*<dd class="source">set for your account/);
  });
});

describe('docs page', () => {
  it('links both OpenAPI pages and gives curl examples on the public addresses', async () => {
    const client = await signUp(app, email());
    const res = await client.get('/docs');
    expect(res.body).toContain('href="https://render.example.test/docs"');
    expect(res.body).toContain('href="https://meta.example.test/docs"');
    expect(res.body).toContain('curl -G &quot;https://meta.example.test/v1/fetch&quot;');
    expect(res.body).toContain('X-API-Key: $PAGEWORKS_METADATA_KEY');
  });

  it('has a place for every link the dashboard makes into it (a warning’s “what to do” links here)', async () => {
    const client = await signUp(app, email());
    const body = (await client.get('/docs')).body;
    const views = path.resolve('src/dashboard/views');
    const targets = new Set(
      fs
        .readdirSync(views)
        .flatMap((f) => [...fs.readFileSync(path.join(views, f), 'utf8').matchAll(/\/docs#([\w-]+)/g)].map((m) => m[1])),
    );
    expect([...targets].sort()).toEqual(['docs-assembling', 'docs-jobs', 'docs-standards']);
    for (const id of targets) expect(body, id).toContain(`id="${id}"`);
    expect(body).toContain('curl -X POST &quot;https://render.example.test/v1/assemble&quot;');
  });

  it('every input on every page has a label', async () => {
    const client = await signUp(app, email());
    const key = createdKey((await client.createKey({ service: 'render' })).body);
    const id = keyIdOf(client.body, key);
    const anon = await app.inject({ method: 'GET', url: '/signup' });
    const bodies = [anon.body, (await app.inject({ method: 'GET', url: '/login' })).body, client.body];
    for (const url of ['/keys', '/usage', '/docs', '/account', `/keys/${id}/revoke`]) bodies.push((await client.get(url)).body);
    for (const body of bodies) {
      for (const input of body.match(/<input[^>]*>/g) ?? []) {
        if (/type="hidden"|\shidden[\s>]/.test(input)) continue;
        const inputId = /id="([^"]+)"/.exec(input)?.[1];
        expect(inputId, input).toBeDefined();
        expect(body, input).toContain(`<label for="${inputId}"`);
      }
    }
  });
});

describe('errors and probes', () => {
  it('answers unknown pages with an HTML 404, oversized forms with 413, and serves health and readiness', async () => {
    const missing = await app.inject({ method: 'GET', url: '/nope' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(missing.body).toContain('Page not found');
    const client = await signUp(app, email());
    await client.get('/keys');
    const big = await client.post('/keys', { _csrf: client.csrf(), service: 'render', name: 'x'.repeat(20_000) });
    expect(big.statusCode).toBe(413);
    expect(big.headers['content-type']).toBe('text/html; charset=utf-8');
    expect((await app.inject({ method: 'GET', url: '/v1/health' })).json()).toMatchObject({ status: 'healthy' });
    expect((await app.inject({ method: 'GET', url: '/v1/ready' })).json()).toEqual({ status: 'ready', checks: { store: 'ok' } });
  });
});
