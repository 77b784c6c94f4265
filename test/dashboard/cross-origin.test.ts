/**
 * A form posted to the dashboard from a page of another origin (another port on the same host, a sibling
 * subdomain) is refused before anything is read or changed, whatever cookies that page could plant: cookies
 * ignore ports, and without `__Host-` a sibling subdomain can set them, so the double-submit token alone
 * cannot tell the victim's form from the attacker's. Clients that send neither `Origin` nor
 * `Sec-Fetch-Site` (curl, scripts) still get through on the token.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { createdKey, FormClient, freshIp, PASSWORD, signUp } from './client.js';

let core: CoreDeps;
let app: FastifyInstance;
let n = 0;
const email = () => `xorigin${++n}@example.com`;

/** What the attacker's page planted in the victim's browser (`document.cookie`, any path). */
const PLANTED = 'A'.repeat(43);
const DASHBOARD_HOST = '127.0.0.1:4400';
const ATTACKER = 'http://127.0.0.1:4418';

beforeAll(async () => {
  core = await createTestCore();
  app = await buildDashboardApp(core);
});
afterAll(async () => {
  await app.close();
  await closeTestCore(core);
});

/** The victim's browser submitting the attacker's auto-submitting form: planted cookie, matching `_csrf`. */
function forged(url: string, form: Record<string, string>, headers: Record<string, string>): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url,
    remoteAddress: freshIp(),
    cookies: { pw_form: PLANTED },
    headers: { host: DASHBOARD_HOST, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams({ _csrf: PLANTED, ...form }).toString(),
  });
}

const WHAT_BROWSERS_SEND: Array<[string, Record<string, string>]> = [
  ['a current browser (Origin and Sec-Fetch-Site: same-site)', { origin: ATTACKER, 'sec-fetch-site': 'same-site' }],
  ['a browser without Fetch Metadata (Origin only)', { origin: ATTACKER }],
  ['Fetch Metadata only (cross-site)', { 'sec-fetch-site': 'cross-site' }],
  ['a sandboxed page (Origin: null)', { origin: 'null' }],
];

describe('login CSRF from another port of the same host', () => {
  it.each(WHAT_BROWSERS_SEND)('a log-in form posted by %s is refused: no session', async (_what, headers) => {
    const attacker = email();
    await signUp(app, attacker);
    const res = await forged('/login', { email: attacker, password: PASSWORD }, headers);
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('Nothing was changed');
    expect(res.cookies.find((c) => c.name === 'pw_session')).toBeUndefined();
  });

  it.each(WHAT_BROWSERS_SEND)('a sign-up form posted by %s is refused: no account', async (_what, headers) => {
    const address = email();
    const res = await forged('/signup', { email: address, password: PASSWORD, password_confirm: PASSWORD }, headers);
    expect(res.statusCode).toBe(403);
    expect(res.cookies.find((c) => c.name === 'pw_session')).toBeUndefined();
    expect(await core.accounts.findByEmail(address)).toBeUndefined();
  });

  it('the same form from the dashboard’s own page logs in (a browser sends its own origin)', async () => {
    const address = email();
    await signUp(app, address);
    const res = await forged(
      '/login',
      { email: address, password: PASSWORD },
      { origin: `http://${DASHBOARD_HOST}`, 'sec-fetch-site': 'same-origin' },
    );
    expect(res.statusCode).toBe(303);
    expect(res.cookies.find((c) => c.name === 'pw_session')).toBeDefined();
  });

  it('pages say Referrer-Policy: same-origin, so the dashboard’s own forms carry its origin, not "null"', async () => {
    const res = await app.inject({ method: 'GET', url: '/login' });
    expect(res.headers['referrer-policy']).toBe('same-origin');
  });

  it('"Origin: null" passes only when the browser vouches for the same origin (a page under no-referrer)', async () => {
    const address = email();
    await signUp(app, address);
    const login = { email: address, password: PASSWORD };
    expect((await forged('/login', login, { origin: 'null', 'sec-fetch-site': 'same-origin' })).statusCode).toBe(303);
    expect((await forged('/login', login, { origin: 'null' })).statusCode).toBe(403);
  });

  it('a client that sends neither header (curl) still logs in with the token', async () => {
    const address = email();
    await signUp(app, address);
    expect((await forged('/login', { email: address, password: PASSWORD }, {})).statusCode).toBe(303);
  });
});

describe('every signed-in form', () => {
  it('refuses a foreign origin even with the right session token, and changes nothing', async () => {
    const address = email();
    const victim = await signUp(app, address);
    await victim.get('/keys');
    const token = victim.csrf();
    const post = (url: string, form: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url,
        cookies: Object.fromEntries(victim.cookies),
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ATTACKER, 'sec-fetch-site': 'same-site' },
        payload: new URLSearchParams({ _csrf: token, ...form }).toString(),
      });
    for (const [url, form] of [
      ['/keys', { service: 'render', name: 'planted' }],
      ['/account/delete', { password: PASSWORD }],
      ['/account/sessions/end-others', {}],
      ['/jobs/webhook-secret/reveal', {}],
      ['/logout', {}],
    ] as const) {
      const res = await post(url, form);
      expect(res.statusCode, url).toBe(403);
      expect(res.body, url).toContain('Nothing was changed');
      expect(res.body, url).not.toContain('whsec_');
    }
    const account = await core.accounts.findByEmail(address);
    expect(account).toBeDefined();
    expect(await core.keys.list(account!.id)).toEqual([]);
    expect((await victim.get('/keys')).statusCode).toBe(200);
  });

  it('refuses a foreign origin on the multipart certificate upload too', async () => {
    const victim = await signUp(app, email());
    await victim.get('/certificates');
    const res = await app.inject({
      method: 'POST',
      url: '/certificates',
      cookies: Object.fromEntries(victim.cookies),
      headers: { 'content-type': 'multipart/form-data; boundary=x', origin: ATTACKER },
      payload: `--x\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${victim.csrf()}\r\n--x--\r\n`,
    });
    expect(res.statusCode).toBe(403);
  });

  it('accepts the dashboard’s own origin from a browser (FormClient sends what Chromium sends)', async () => {
    const client = await signUp(app, email());
    const created = await client.createKey({ service: 'render', name: 'mine' });
    expect(createdKey(created.body)).toMatch(/^pwr_live_/);
  });
});

describe('behind a proxy', () => {
  let proxied: CoreDeps;
  let proxiedApp: FastifyInstance;
  beforeAll(async () => {
    proxied = await createTestCore({ TRUST_PROXY: '10.0.0.1', DASHBOARD_PUBLIC_URL: 'https://dash.example.com' });
    proxiedApp = await buildDashboardApp(proxied);
  });
  afterAll(async () => {
    await proxiedApp.close();
    await closeTestCore(proxied);
  });

  /** A sign-up through the trusted proxy (10.0.0.1) with these headers; the status. */
  async function signUpVia(headers: Record<string, string>, from = '10.0.0.1'): Promise<number> {
    const client = new FormClient(proxiedApp, from, { 'x-forwarded-for': freshIp(), ...headers });
    await client.get('/signup');
    const res = await client.post('/signup', {
      _csrf: client.csrf(),
      email: email(),
      password: PASSWORD,
      password_confirm: PASSWORD,
    });
    return res.statusCode;
  }

  it('the origin is the one the proxy forwards (X-Forwarded-Proto), or DASHBOARD_PUBLIC_URL’s', async () => {
    const https = { 'x-forwarded-proto': 'https', 'sec-fetch-site': 'same-origin' };
    expect(await signUpVia({ ...https, host: 'pageworks.internal', origin: 'https://pageworks.internal' })).toBe(303);
    expect(await signUpVia({ ...https, host: 'pageworks.internal', origin: 'https://dash.example.com' })).toBe(303);
    // The scheme is part of the origin: an http page of the same host is another origin.
    expect(
      await signUpVia({ 'x-forwarded-proto': 'https', host: 'pageworks.internal', origin: 'http://pageworks.internal' }),
    ).toBe(403);
    // A sender that is not the proxy cannot claim a scheme.
    expect(
      await signUpVia(
        { 'x-forwarded-proto': 'https', host: 'pageworks.internal', origin: 'https://pageworks.internal' },
        '10.0.0.2',
      ),
    ).toBe(403);
  });
});
