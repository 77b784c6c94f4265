import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { createdKey, FormClient, keyIdOf, logIn, PASSWORD, signUp } from './client.js';

let core: CoreDeps;
let app: FastifyInstance;
let n = 0;
const email = () => `sec${++n}@example.com`;

beforeAll(async () => {
  core = await createTestCore();
  app = await buildDashboardApp(core);
});
afterAll(async () => {
  await app.close();
  await closeTestCore(core);
});

async function accountId(address: string): Promise<string> {
  return (await core.accounts.findByEmail(address))!.id;
}

describe('CSRF', () => {
  it('refuses key creation without a token or with a wrong one, and creates nothing', async () => {
    const address = email();
    const client = await signUp(app, address);
    const missing = await client.post('/keys', { service: 'render', name: 'no token' });
    expect(missing.statusCode).toBe(403);
    expect(missing.body).toContain('Nothing was changed');
    const wrong = await client.post('/keys', { _csrf: 'A'.repeat(43), service: 'render', name: 'wrong token' });
    expect(wrong.statusCode).toBe(403);
    expect(await core.keys.list(await accountId(address))).toEqual([]);
  });

  it("refuses another session's token", async () => {
    const a = await signUp(app, email());
    const b = await signUp(app, email());
    await b.get('/keys');
    const res = await a.post('/keys', { _csrf: b.csrf(), service: 'metadata' });
    expect(res.statusCode).toBe(403);
  });

  it('refuses revocation without a valid token; the key keeps working', async () => {
    const client = await signUp(app, email());
    const created = await client.createKey({ service: 'render', name: 'keep' });
    const key = createdKey(created.body);
    const id = keyIdOf(created.body, key);
    expect((await client.post(`/keys/${id}/revoke`, {})).statusCode).toBe(403);
    expect((await client.post(`/keys/${id}/revoke`, { _csrf: 'x' })).statusCode).toBe(403);
    expect((await core.keys.verify(key, 'render')).ok).toBe(true);
  });

  it('refuses logout and password change without a token; the session and password stay', async () => {
    const address = email();
    const client = await signUp(app, address);
    expect((await client.post('/logout', {})).statusCode).toBe(403);
    expect((await client.get('/keys')).statusCode).toBe(200);
    const change = await client.post('/account/password', {
      current_password: PASSWORD,
      new_password: 'another long password',
      new_password_confirm: 'another long password',
    });
    expect(change.statusCode).toBe(403);
    expect(await core.accounts.authenticate(address, PASSWORD)).toBeDefined();
  });

  it('refuses a login or sign-up form without its token', async () => {
    const address = email();
    await signUp(app, address);
    const client = new FormClient(app);
    expect((await client.post('/login', { email: address, password: PASSWORD })).statusCode).toBe(403);
    expect(client.cookies.size).toBe(0);
    const other = email();
    expect((await client.post('/signup', { email: other, password: PASSWORD, password_confirm: PASSWORD })).statusCode).toBe(403);
    expect(await core.accounts.findByEmail(other)).toBeUndefined();
  });

  it('GET requests never change state', async () => {
    const client = await signUp(app, email());
    const created = await client.createKey({ service: 'render' });
    const key = createdKey(created.body);
    const id = keyIdOf(created.body, key);
    const confirm = await client.get(`/keys/${id}/revoke`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Revoke this key?');
    expect((await core.keys.verify(key, 'render')).ok).toBe(true);
    expect((await client.get('/logout')).statusCode).toBe(404);
    expect((await client.get('/keys')).statusCode).toBe(200);
  });
});

describe('session cookie', () => {
  it('is HttpOnly, SameSite=Lax, Path=/, not Secure over plain http', async () => {
    const client = new FormClient(app);
    await client.get('/signup');
    const res = await client.post('/signup', {
      _csrf: client.csrf(),
      email: email(),
      password: PASSWORD,
      password_confirm: PASSWORD,
    });
    const cookie = res.cookies.find((c) => c.name === 'pw_session')!;
    expect(cookie).toBeDefined();
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 random bits
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie.secure).toBeUndefined();
    expect(cookie.domain).toBeUndefined();
  });

  it('is __Host- prefixed and Secure when DASHBOARD_SECURE_COOKIES=true', async () => {
    const secureCore = await createTestCore({ DASHBOARD_SECURE_COOKIES: 'true' });
    const secureApp = await buildDashboardApp(secureCore);
    try {
      const client = new FormClient(secureApp);
      const form = await client.get('/signup');
      expect(form.cookies.find((c) => c.name === '__Host-pw_form')).toMatchObject({ secure: true, httpOnly: true, path: '/' });
      const res = await client.post('/signup', {
        _csrf: client.csrf(),
        email: email(),
        password: PASSWORD,
        password_confirm: PASSWORD,
      });
      expect(res.statusCode).toBe(303);
      const raw = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith('__Host-pw_session='))!;
      expect(raw).toMatch(/; Secure/);
      expect(raw).toMatch(/; HttpOnly/);
      expect(raw).toMatch(/; SameSite=Lax/);
      expect(raw).toMatch(/; Path=\//);
      expect(raw).not.toMatch(/Domain=/i);
      expect(res.cookies.find((c) => c.name === 'pw_session')).toBeUndefined();
      expect((await client.get('/keys')).statusCode).toBe(200);
      expect(res.headers['strict-transport-security']).toMatch(/max-age=31536000/);
    } finally {
      await secureApp.close();
      await closeTestCore(secureCore);
    }
  });

  it('is replaced by a fresh id at login, and the previous one stops working (no fixation)', async () => {
    const address = email();
    const client = await signUp(app, address);
    const before = client.cookies.get('pw_session')!;
    const again = await client.post('/login', { _csrf: client.cookies.get('pw_form')!, email: address, password: PASSWORD });
    expect(again.statusCode).toBe(303);
    const after = client.cookies.get('pw_session')!;
    expect(after).not.toBe(before);
    expect((await app.inject({ method: 'GET', url: '/keys', cookies: { pw_session: before } })).statusCode).toBe(303);
    expect((await app.inject({ method: 'GET', url: '/keys', cookies: { pw_session: after } })).statusCode).toBe(200);
  });
});

describe('logout', () => {
  it('ends the session on the server: the old cookie no longer works', async () => {
    const client = await signUp(app, email());
    const cookie = client.cookies.get('pw_session')!;
    const out = await client.submit('/keys', '/logout', {});
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/login?bye');
    const replay = await app.inject({ method: 'GET', url: '/keys', cookies: { pw_session: cookie } });
    expect(replay.statusCode).toBe(303);
    expect(replay.headers.location).toBe('/login');
    const post = await app.inject({
      method: 'POST',
      url: '/keys',
      cookies: { pw_session: cookie },
      payload: { service: 'render' },
    });
    expect(post.statusCode).toBe(303);
  });
});

describe('escaping', () => {
  it('renders a key named <script>alert(1)</script> as text on every page that shows it', async () => {
    const client = await signUp(app, email());
    const name = '<script>alert(1)</script>';
    const created = await client.createKey({ service: 'metadata', name });
    const escaped = '&lt;script&gt;alert(1)&lt;/script&gt;';
    expect(created.body).toContain(escaped);
    expect(created.body).not.toContain(name);
    const id = keyIdOf(created.body, createdKey(created.body));
    for (const url of ['/keys', `/keys/${id}/revoke`]) {
      const res = await client.get(url);
      expect(res.body).toContain(escaped);
      expect(res.body).not.toContain(name);
    }
  });

  it('escapes an email with markup in the header', async () => {
    const client = await signUp(app, `"><img-src-x>${++n}@example.com`);
    const res = await client.get('/keys');
    expect(res.body).toContain('&quot;&gt;&lt;img-src-x&gt;');
    expect(res.body).not.toContain('"><img-src-x>');
  });
});

describe('headers', () => {
  it('sends a CSP without inline script, no-store on pages and long caching on assets', async () => {
    const client = await signUp(app, email());
    const res = await client.get('/keys');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    // Every script is an external file from the app itself.
    expect(res.body.match(/<script[^>]*>/g)).toEqual([
      expect.stringMatching(/^<script src="\/assets\/dashboard\.[0-9a-f]{12}\.js" defer>$/),
    ]);
    const css = /href="(\/assets\/dashboard\.[0-9a-f]{12}\.css)"/.exec(res.body)![1]!;
    const asset = await app.inject({ method: 'GET', url: css });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(asset.headers['cache-control']).toContain('immutable');
  });

  it('redirects anonymous visitors to the login page, which leads back to the page they opened', async () => {
    for (const url of ['/', '/keys', '/usage', '/docs', '/account']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(303);
      expect(res.headers.location, url).toBe(
        url === '/' || url === '/keys' ? '/login' : `/login?next=${encodeURIComponent(url)}`,
      );
    }
  });

  it('logs in with the right password and refuses a wrong one with a generic message', async () => {
    const address = email();
    await signUp(app, address);
    const wrong = await logIn(app, address, 'not the right password');
    expect(wrong.res.statusCode).toBe(401);
    expect(wrong.res.body).toContain('Incorrect email or password.');
    const unknown = await logIn(app, `nobody-${n}@example.com`, 'not the right password');
    expect(unknown.res.statusCode).toBe(401);
    expect(unknown.res.body).toContain('Incorrect email or password.');
    const right = await logIn(app, address);
    expect(right.res.statusCode).toBe(303);
    expect((await right.client.get('/keys')).statusCode).toBe(200);
  });
});
