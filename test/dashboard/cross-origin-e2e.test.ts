/**
 * Login CSRF as a victim meets it, in Chromium: a page on another port of the same host plants the log-in
 * form's cookie (`Path=/login` and `Path=/`) and auto-submits the attacker's credentials with the matching
 * token. The victim must not end up signed in to the attacker's account (nor in a new one, for sign-up).
 * Behind the shipped nginx (deploy/nginx.conf, which forwards `Host` without its port) the dashboard's own
 * forms keep working, and the same attack through nginx is refused too.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { hasNginx, Nginx } from '../deploy/nginx.js';
import { launchTestBrowser, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';

const PASSWORD = 'correct horse battery staple';
const PLANTED = 'A'.repeat(43);
const ATTACKER_EMAIL = 'attacker@example.com';

let core: CoreDeps;
let dashboard: FastifyInstance;
let dashboardUrl: string;
let attacker: http.Server;
let attackerUrl: string;
let nginx: Nginx | undefined;
let browser: Browser;

/** The attacker's page: plants `pw_form` for every path it can, then posts its form to `target`. */
function attackPage(target: string, fields: Record<string, string>): string {
  const inputs = Object.entries({ _csrf: PLANTED, ...fields })
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`)
    .join('');
  return `<!doctype html><title>Win a prize</title>
<form method="post" action="${target}">${inputs}</form>
<script>
document.cookie = "pw_form=${PLANTED}; path=/login";
document.cookie = "pw_form=${PLANTED}; path=/signup";
document.cookie = "pw_form=${PLANTED}; path=/";
document.forms[0].submit();
</script>`;
}

beforeAll(async () => {
  // 127.0.0.1 is nginx here; direct requests from it carry no forwarding headers, so nothing changes for them.
  core = await createTestCore({ TRUST_PROXY: '127.0.0.1' });
  dashboard = await buildDashboardApp(core);
  dashboardUrl = await dashboard.listen({ host: '127.0.0.1', port: 0 });
  attacker = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://attacker');
    const target = `${url.searchParams.get('target')}${url.pathname}`;
    const fields: Record<string, string> =
      url.pathname === '/signup'
        ? { email: url.searchParams.get('email') ?? '', password: PASSWORD, password_confirm: PASSWORD }
        : { email: ATTACKER_EMAIL, password: PASSWORD };
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(attackPage(target, fields));
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  await core.accounts.create(ATTACKER_EMAIL, PASSWORD);
  browser = await launchTestBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await nginx?.stop();
  await dashboard?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  if (core) await closeTestCore(core);
});

/** A victim who has the dashboard's log-in page open (its real form cookie set), then visits the attacker's page. */
async function victimVisits(base: string, path: '/login' | '/signup', email = ''): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  await page.goto(`${base}/login`);
  await page.goto(`${attackerUrl}${path}?target=${encodeURIComponent(base)}&email=${encodeURIComponent(email)}`);
  await page.waitForURL(`${base}/**`);
  return page;
}

/** Whether the victim's browser is signed in to the dashboard at `base` (and as whom). */
async function signedInAs(page: Page, base: string): Promise<string | null> {
  await page.goto(`${base}/keys`);
  if (new URL(page.url()).pathname !== '/keys') return null;
  return page.locator('.who span').textContent();
}

/** Signs up, creates a key, logs out and logs in again through the dashboard's own forms at `base`. */
async function useOwnForms(base: string, email: string): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, baseURL: base });
  const page = await context.newPage();
  await signUpInBrowser(page, email, PASSWORD);
  await page.locator('#render-keys').getByRole('button', { name: 'Create render key' }).click();
  await page.waitForURL(/\/keys\?created=/);
  expect(await page.locator('#new-key-value').inputValue()).toMatch(/^pwr_live_/);
  await page.getByRole('button', { name: 'Log out' }).click();
  await page.waitForURL('**/login?bye');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('**/keys');
  await context.close();
}

describe('login CSRF from another port of the same host (Chromium)', () => {
  it('the dashboard’s own forms work: sign up, create a key, log out, log in', async () => {
    await useOwnForms(dashboardUrl, 'direct@example.com');
  });

  it('the attacker’s auto-submitted log-in form is refused: the victim is not signed in to the attacker’s account', async () => {
    const page = await victimVisits(dashboardUrl, '/login');
    expect(await page.locator('h1').textContent()).toBe('This form came from another site');
    expect(await signedInAs(page, dashboardUrl)).toBeNull();
    await page.context().close();
  });

  it('the attacker’s auto-submitted sign-up form is refused: no account is made', async () => {
    const email = 'planted-signup@example.com';
    const page = await victimVisits(dashboardUrl, '/signup', email);
    expect(await page.locator('h1').textContent()).toBe('This form came from another site');
    expect(await signedInAs(page, dashboardUrl)).toBeNull();
    expect(await core.accounts.findByEmail(email)).toBeUndefined();
    await page.context().close();
  });
});

describe.skipIf(!hasNginx)('behind deploy/nginx.conf (Host forwarded without its port)', () => {
  beforeAll(async () => {
    const closed = '127.0.0.1:9';
    nginx = await Nginx.start({ upstreams: { dashboard: [new URL(dashboardUrl).host], render: [closed], metadata: [closed] } });
  });

  it('the dashboard’s own forms work: sign up, create a key, log out, log in', async () => {
    await useOwnForms(nginx!.url('dashboard'), 'behind-nginx@example.com');
  });

  it('the same attack through nginx is refused', async () => {
    const base = nginx!.url('dashboard');
    const page = await victimVisits(base, '/login');
    expect(await page.locator('h1').textContent()).toBe('This form came from another site');
    expect(await signedInAs(page, base)).toBeNull();
    await page.context().close();
  });
});
