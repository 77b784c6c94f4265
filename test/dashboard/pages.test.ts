import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { PASSWORD, createdKey, keyIdOf, logIn, signUp } from './client.js';

let core: CoreDeps;
let app: FastifyInstance;
let n = 0;
const email = () => `pages${++n}@example.com`;

beforeAll(async () => {
  core = await createTestCore({ RENDER_PUBLIC_URL: 'https://render.example.test', METADATA_PUBLIC_URL: 'https://meta.example.test/', RENDER_RATE_LIMIT: '77' });
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

describe('creating a key (POST, redirect, GET)', () => {
  it('shows the new key on the one page after the redirect; a reload shows it no more and creates nothing', async () => {
    const address = email();
    const client = await signUp(app, address);
    await client.get('/keys');
    const post = await client.post('/keys', { _csrf: client.csrf(), service: 'render', name: 'once' });
    expect(post.statusCode).toBe(303);
    const location = String(post.headers.location);
    expect(location).toMatch(/^\/keys\?created=key_[0-9a-f]+#new-key$/);
    expect(post.body).toBe('');

    const shown = await client.get(location.split('#')[0]!);
    const key = createdKey(shown.body);
    expect(shown.body).toContain('id="new-key"');
    const id = keyIdOf(shown.body, key);

    // The reload: same address, no key, one key in the list, and a word about why.
    const reload = await client.get(location.split('#')[0]!);
    expect(reload.statusCode).toBe(200);
    expect(reload.body).not.toContain(key);
    expect(reload.body).not.toContain('id="new-key-value"');
    expect(reload.body).toContain('was shown once, when it was created, and is not shown again');
    expect(reload.body.match(/<tr data-key-id=/g)).toHaveLength(1);
    expect((await core.keys.list((await core.accounts.findByEmail(address))!.id)).map((k) => k.id)).toEqual([id]);

    // Nowhere in the database files: the waiting copy is sealed with the session id, which only the cookie holds.
    const dir = core.config.dataDir;
    for (const file of fs.readdirSync(dir)) expect(fs.readFileSync(path.join(dir, file)).includes(key), file).toBe(false);
  });

  it('another session of the same account never sees the key', async () => {
    const address = email();
    const first = await signUp(app, address);
    await first.get('/keys');
    const post = await first.post('/keys', { _csrf: first.csrf(), service: 'metadata' });
    const url = String(post.headers.location).split('#')[0]!;
    const { client: second } = await logIn(app, address, PASSWORD);
    const other = await second.get(url);
    expect(other.body).not.toContain('id="new-key-value"');
    // The first session still gets its one look.
    expect(createdKey((await first.get(url)).body)).toMatch(/^pwm_live_/);
  });
});

describe('per-key usage', () => {
  it('shows requests per key over 7 days; revoking the idle key says it is safe, the busy one warns', async () => {
    const address = email();
    const client = await signUp(app, address);
    const account = (await core.accounts.findByEmail(address))!;
    const busy = await core.keys.create(account.id, 'render', 'busy');
    const idle = await core.keys.create(account.id, 'render', 'idle');
    for (let i = 0; i < 3; i++) core.usage.record(account.id, 'render', 'ok', busy.record.id);
    core.usage.record(account.id, 'render', 'client_error', busy.record.id);
    core.lastUsed.record(busy.record.id, Date.now());

    const page = (await client.get('/keys')).body;
    expect(page).toContain('Requests (7 d)');
    expect(rowOf(page, busy.record.id)).toMatch(/<td class="num" data-label="Requests \(7 d\)"><a href="\/usage\?key=key_[0-9a-f]+" title="OK: 3, Client error: 1">4<\/a><\/td>/);
    expect(rowOf(page, idle.record.id)).toContain('<span class="muted idle">0</span>');
    expect(rowOf(page, idle.record.id)).toContain('never');

    const idleConfirm = (await client.get(`/keys/${idle.record.id}/revoke`)).body;
    expect(idleConfirm).toContain('<strong>No requests in the last 7 days</strong> (never used): nothing seems to depend on this key.');
    expect(idleConfirm).toContain('alert-ok');
    const busyConfirm = (await client.get(`/keys/${busy.record.id}/revoke`)).body;
    expect(busyConfirm).toContain('<strong>4 requests in the last 7 days</strong> (last used just now)');
    expect(busyConfirm).toContain('alert-warn');

    // The usage page, filtered by key: the busy key's chart, then the idle key's empty state.
    const busyUsage = (await client.get(`/usage?key=${busy.record.id}`)).body;
    expect(busyUsage).toContain('for the render service: 4 in total.');
    expect(busyUsage).not.toContain('id="usage-metadata"');
    expect((await client.get(`/usage?key=${idle.record.id}`)).body).toContain('No requests with this key in the last 30 days.');
    // By hour: the last 24 hours.
    expect((await client.get(`/usage?key=${busy.record.id}&range=24h`)).body).toContain(
      'Requests per hour over the last 24 hours for the render service: 4 in total.',
    );
    // Someone else's key id is ignored: the whole account is shown.
    expect((await client.get('/usage?key=key_not_mine')).body).toContain('id="usage-metadata"');

    // After a rotation the old key's history stays visible, greyed, on both pages.
    await client.submit(`/keys/${busy.record.id}/revoke`, `/keys/${busy.record.id}/revoke`, {});
    const after = (await client.get('/keys')).body;
    const revokedRow = after.slice(after.indexOf(`<tr data-revoked-key-id="${busy.record.id}">`));
    expect(after).toContain('<details class="revoked" open>');
    expect(revokedRow.slice(0, revokedRow.indexOf('</tr>'))).toContain('>4</a>');
    const revokedUsage = (await client.get(`/usage?key=${busy.record.id}`)).body;
    expect(revokedUsage).toContain('class="card revoked"');
    expect(revokedUsage).toContain('its history stays here');
    expect(revokedUsage).toMatch(/<option value="key_[0-9a-f]+" selected class="revoked">busy \(pwr_live_[0-9a-f]{4}…\) · revoked<\/option>/);
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
