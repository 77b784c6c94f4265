import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { createdKey, FormClient, freshIp, keyIdOf, logIn, PASSWORD, signUp } from './client.js';

let core: CoreDeps;
let app: FastifyInstance;
let n = 0;
const email = () => `acct${++n}@example.com`;

beforeAll(async () => {
  core = await createTestCore();
  app = await buildDashboardApp(core);
});
afterAll(async () => {
  await app.close();
  await closeTestCore(core);
});

describe('login throttling', () => {
  it('after 5 failures for an email, even the right password waits (429 + Retry-After)', async () => {
    const address = email();
    await signUp(app, address);
    for (let i = 0; i < 5; i++) {
      const { res } = await logIn(app, address, `wrong password ${i}`, freshIp());
      expect(res.statusCode).toBe(401);
    }
    const { res } = await logIn(app, address, PASSWORD, freshIp());
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.body).toContain('Too many failed attempts');
    expect(res.cookies.find((c) => c.name === 'pw_session')).toBeUndefined();
  });

  it('after 20 failures from one IP, that IP waits for any email; other IPs do not', async () => {
    const ip = freshIp();
    const victim = email();
    await signUp(app, victim);
    for (let i = 0; i < 20; i++) {
      const { res } = await logIn(app, `spray${i}-${n}@example.com`, 'wrong password here', ip);
      expect(res.statusCode).toBe(401);
    }
    expect((await logIn(app, victim, PASSWORD, ip)).res.statusCode).toBe(429);
    expect((await logIn(app, victim, PASSWORD, freshIp())).res.statusCode).toBe(303);
    // 22 password hashes in a row (unknown emails are hashed too, for equal timing): slow on a busy machine.
  }, 120_000);
});

describe('password change', () => {
  it('logs out every other session and the old session id; the new password works', async () => {
    const address = email();
    const a = await signUp(app, address);
    const { client: b } = await logIn(app, address, PASSWORD, freshIp());
    expect((await b.get('/keys')).statusCode).toBe(200);
    const oldA = a.cookies.get('pw_session')!;
    const next = 'a brand new long password';
    const res = await a.submit('/account', '/account/password', {
      current_password: PASSWORD,
      new_password: next,
      new_password_confirm: next,
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/account?changed');
    const page = await a.get('/account?changed');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Every other session was signed out');
    expect(a.cookies.get('pw_session')).not.toBe(oldA);
    const other = await b.get('/keys');
    expect(other.statusCode).toBe(303);
    expect(other.headers.location).toBe('/login');
    expect((await app.inject({ method: 'GET', url: '/keys', cookies: { pw_session: oldA } })).statusCode).toBe(303);
    expect((await logIn(app, address, PASSWORD, freshIp())).res.statusCode).toBe(401);
    expect((await logIn(app, address, next, freshIp())).res.statusCode).toBe(303);
  });

  it('needs the current password and matching new ones; nothing changes otherwise', async () => {
    const address = email();
    const a = await signUp(app, address);
    const wrong = await a.submit('/account', '/account/password', {
      current_password: 'not my password',
      new_password: 'x'.repeat(12),
      new_password_confirm: 'x'.repeat(12),
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('The current password is not correct.');
    const mismatch = await a.submit('/account', '/account/password', {
      current_password: PASSWORD,
      new_password: 'x'.repeat(12),
      new_password_confirm: 'y'.repeat(12),
    });
    expect(mismatch.statusCode).toBe(400);
    const short = await a.submit('/account', '/account/password', {
      current_password: PASSWORD,
      new_password: 'short',
      new_password_confirm: 'short',
    });
    expect(short.statusCode).toBe(400);
    expect((await a.get('/keys')).statusCode).toBe(200);
    expect(await core.accounts.authenticate(address, PASSWORD)).toBeDefined();
  });
});

describe('sign-up', () => {
  it('validates the form and refuses a taken email', async () => {
    const client = new FormClient(app, freshIp());
    const short = await client.submit('/signup', '/signup', {
      email: email(),
      password: 'too short',
      password_confirm: 'too short',
    });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('at least 12 characters');
    const mismatch = await client.submit('/signup', '/signup', {
      email: email(),
      password: PASSWORD,
      password_confirm: `${PASSWORD}!`,
    });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.body).toContain('do not match');
    const address = email();
    await signUp(app, address);
    const taken = await client.submit('/signup', '/signup', {
      email: address.toUpperCase(),
      password: PASSWORD,
      password_confirm: PASSWORD,
    });
    expect(taken.statusCode).toBe(400);
    expect(taken.body).toContain('exists already');
  });

  it('signs the new user in and greets them on the keys page', async () => {
    const client = await signUp(app, email());
    const page = await client.get('/keys?welcome');
    expect(page.body).toContain('Welcome to Pageworks!');
    expect(page.body).toContain('No active render keys.');
    expect(page.body).toContain('No active metadata keys.');
  });

  it('is refused when DASHBOARD_SIGNUP=closed; CLI-made accounts still log in', async () => {
    const closedCore = await createTestCore({ DASHBOARD_SIGNUP: 'closed' });
    const closedApp = await buildDashboardApp(closedCore);
    try {
      const client = new FormClient(closedApp);
      const form = await client.get('/signup');
      expect(form.statusCode).toBe(403);
      expect(form.body).toContain('Sign-up is closed');
      expect(form.body).not.toContain('name="password"');
      const login = await client.get('/login');
      expect(login.body).not.toContain('href="/signup"');
      const post = await client.post('/signup', {
        _csrf: client.cookies.get('pw_form')!,
        email: 'new@example.com',
        password: PASSWORD,
        password_confirm: PASSWORD,
      });
      expect(post.statusCode).toBe(403);
      expect(await closedCore.store.countAccounts()).toBe(0);
      await closedCore.accounts.create('cli@example.com', PASSWORD);
      expect((await logIn(closedApp, 'cli@example.com')).res.statusCode).toBe(303);
    } finally {
      await closedApp.close();
      await closeTestCore(closedCore);
    }
  });
});

describe('keys across accounts', () => {
  it("cannot see or revoke another account's key by guessing its id; the key keeps working", async () => {
    const victim = await createKey(core, 'render', email());
    const [record] = await core.keys.list(victim.accountId);
    const attacker = await signUp(app, email());
    const page = await attacker.get('/keys');
    expect(page.body).not.toContain(record!.id);
    expect(page.body).not.toContain(record!.displayPrefix);
    expect((await attacker.get(`/keys/${record!.id}/revoke`)).statusCode).toBe(404);
    const res = await attacker.post(`/keys/${record!.id}/revoke`, { _csrf: attacker.csrf() });
    expect(res.statusCode).toBe(404);
    expect((await core.keys.verify(victim.key, 'render')).ok).toBe(true);
  });

  it('revokes its own key after the confirmation step; the key stops verifying', async () => {
    const client = await signUp(app, email());
    const created = await client.createKey({ service: 'metadata', name: 'ci' });
    const key = createdKey(created.body);
    expect(key).toMatch(/^pwm_live_[0-9a-f]{32}$/);
    const id = keyIdOf(created.body, key);
    const confirm = await client.get(`/keys/${id}/revoke`);
    const res = await client.post(`/keys/${id}/revoke`, { _csrf: client.csrf() });
    expect(confirm.statusCode).toBe(200);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/keys?revoked=${id}`);
    const list = await client.get(res.headers.location as string);
    expect(list.body).toContain(`Key ${key.slice(0, 13)}… was revoked`);
    expect(list.body).not.toContain(`data-key-id="${id}"`);
    expect(list.body).toContain('Revoked keys (1)');
    expect(await core.keys.verify(key, 'metadata')).toEqual({ ok: false, denial: 'revoked' });
    expect((await client.post(`/keys/${id}/revoke`, { _csrf: client.csrf() })).statusCode).toBe(404);
  });

  it('refuses an unknown service and an over-long name', async () => {
    const client = await signUp(app, email());
    expect((await client.createKey({ service: 'billing' })).statusCode).toBe(400);
    const long = await client.createKey({ service: 'render', name: 'n'.repeat(101) });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('at most 100 characters');
    expect(long.body).not.toContain('id="new-key-value"');
  });
});
