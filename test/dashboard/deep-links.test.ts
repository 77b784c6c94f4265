/**
 * A link into the dashboard opened while logged out (a render's page, a key's usage) leads there once the
 * user has logged in, never to another site; a form sent after the session ended lands on the log-in page
 * saying so.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { FormClient, logIn, PASSWORD, signUp } from './client.js';

let core: CoreDeps;
let app: FastifyInstance;
let n = 0;
const email = () => `deep${++n}@example.com`;

beforeAll(async () => {
  core = await createTestCore();
  app = await buildDashboardApp(core);
});
afterAll(async () => {
  await app.close();
  await closeTestCore(core);
});

/** Follows a logged-out visit to `url` to the log-in page and logs in there; the redirect after log-in. */
async function visitThenLogIn(url: string, address: string): Promise<string | undefined> {
  const client = new FormClient(app);
  const visit = await client.get(url);
  expect(visit.statusCode).toBe(303);
  const login = String(visit.headers.location);
  expect(login).toMatch(/^\/login/);
  await client.get(login);
  const res = await client.post('/login', {
    _csrf: client.csrf(),
    ...hiddenFields(client.body),
    email: address,
    password: PASSWORD,
  });
  expect(res.statusCode).toBe(303);
  return res.headers.location as string | undefined;
}

/** The hidden fields of the page's first form other than the token. */
function hiddenFields(body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    if (m[1] !== '_csrf') fields[m[1]!] = m[2]!.replace(/&amp;/g, '&');
  }
  return fields;
}

describe('a deep link opened while logged out', () => {
  it.each([
    ['/renders/rnd_0d5ac37664c2dbd704564d3e'],
    ['/usage?key=key_0123456789abcdef0123456789abcdef&range=24h'],
    ['/jobs?cursor=abc'],
    ['/account'],
  ])('%s leads there after log-in', async (url) => {
    const address = email();
    await signUp(app, address);
    expect(await visitThenLogIn(url, address)).toBe(url);
  });

  it('a page that is already the default (/keys) keeps the plain /login address', async () => {
    const res = await app.inject({ method: 'GET', url: '/keys' });
    expect(res.headers.location).toBe('/login');
  });

  it.each([
    ['//evil.example/keys'],
    ['/\\evil.example/keys'],
    ['/\t/evil.example'],
    ['https://evil.example/'],
    ['javascript:alert(1)'],
    ['keys'],
    [''],
  ])('a destination that is not a path of this site (%j) leads to /keys', async (next) => {
    const address = email();
    await signUp(app, address);
    const client = new FormClient(app);
    const page = await client.get(`/login?next=${encodeURIComponent(next)}`);
    expect(page.body).not.toContain('evil.example');
    const res = await client.post('/login', { _csrf: client.csrf(), next, email: address, password: PASSWORD });
    expect(res.headers.location).toBe('/keys');
  });

  it('a signed-in visit to /login?next= goes straight there (a safe path only)', async () => {
    const client = await signUp(app, email());
    expect((await client.get('/login?next=%2Fusage%3Frange%3D24h')).headers.location).toBe('/usage?range=24h');
    expect((await client.get('/login?next=%2F%2Fevil.example')).headers.location).toBe('/keys');
  });
});

describe('a form sent after the session ended', () => {
  it('lands on the log-in page, which says the session ended and nothing was sent', async () => {
    const address = email();
    const owner = await signUp(app, address);
    const { client: stale } = await logIn(app, address);
    await stale.get('/keys');
    const token = stale.csrf();
    // The other browser ends every other session, this one included.
    expect((await owner.submit('/account', '/account/sessions/end-others', {})).statusCode).toBe(303);
    const res = await stale.post('/keys', { _csrf: token, service: 'render', name: 'too late' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/login?ended');
    const page = await stale.get('/login?ended');
    expect(page.body).toContain('Your session has ended, so that form was not sent. Log in to continue.');
    const account = await core.accounts.findByEmail(address);
    expect(await core.keys.list(account!.id)).toEqual([]);
  });

  it('"Log out" with an ended session says you are logged out', async () => {
    const address = email();
    const owner = await signUp(app, address);
    const { client: stale } = await logIn(app, address);
    await stale.get('/keys');
    const token = stale.csrf();
    await owner.submit('/account', '/account/sessions/end-others', {});
    const res = await stale.post('/logout', { _csrf: token });
    expect(res.headers.location).toBe('/login?bye');
  });
});
