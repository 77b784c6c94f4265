import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { launchTestBrowser, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { MailCatcher, resetLinkIn } from '../helpers/smtp.js';
import { freePort } from '../scale/backends.js';

const ARTIFACTS = path.resolve('test-artifacts');
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a fresh and long passphrase';
const EMAIL = 'e2e-reset@example.com';

let catcher: MailCatcher;
let core: CoreDeps;
let app: FastifyInstance;
let dashboardUrl: string;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  catcher = await MailCatcher.start();
  // The link in the mail must point at this very server: its port is chosen before the app is built.
  const port = await freePort();
  dashboardUrl = `http://127.0.0.1:${port}`;
  core = await createTestCore({ SMTP_URL: catcher.url, DASHBOARD_PUBLIC_URL: dashboardUrl });
  app = await buildDashboardApp(core);
  await app.listen({ host: '127.0.0.1', port });
  browser = await launchTestBrowser();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (core) await closeTestCore(core);
  await catcher?.close();
});

/** A fresh browser (own cookies) that collects console errors, CSP refusals included. */
async function newBrowser(viewport = { width: 1280, height: 800 }): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport, baseURL: dashboardUrl });
  contexts.push(context);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 40[01]/.test(m.text())) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

async function logIn(page: Page, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
}

/**
 * No horizontal scroll at this width (the whole document, header included), and a screenshot to look at.
 */
async function checkNarrow(page: Page, name: string): Promise<void> {
  const widths = await page.evaluate(() => {
    const wide = Array.from(document.querySelectorAll('body *'))
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`);
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, wide };
  });
  expect(widths.wide, `${name}: elements past the right edge`).toEqual([]);
  expect(widths.scrollWidth, `${name} scrolls sideways`).toBeLessThanOrEqual(widths.innerWidth);
  await page.screenshot({ path: path.join(ARTIFACTS, `recovery-${name}.png`), fullPage: true });
}

describe('password reset in Chromium (real SMTP exchange)', () => {
  it('forgot password → mail → link → new password → log in; old sessions gone; the link works once', async () => {
    const first = await newBrowser();
    await signUpInBrowser(first.page, EMAIL, PASSWORD);
    const second = await newBrowser();
    await logIn(second.page, PASSWORD);
    await second.page.waitForURL('**/keys');

    const user = await newBrowser();
    const { page } = user;
    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL('**/forgot-password');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect(page.getByRole('heading', { name: 'Check your mail' }).isVisible()).resolves.toBe(true);

    const [mail] = await catcher.waitFor(EMAIL);
    const link = resetLinkIn(mail!);
    expect(link.startsWith(`${dashboardUrl}/reset-password?token=`)).toBe(true);

    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.waitForURL('**/login?reset');
    expect(await page.getByRole('status').textContent()).toContain('Your password was reset');

    await logIn(page, NEW_PASSWORD);
    await page.waitForURL('**/keys');

    // The sessions from before the reset are gone: both browsers land on the log-in page.
    for (const old of [first.page, second.page]) {
      await old.goto('/keys');
      expect(new URL(old.url()).pathname).toBe('/login');
    }
    const withOld = await newBrowser();
    await logIn(withOld.page, PASSWORD);
    expect(await withOld.page.getByRole('alert').textContent()).toContain('Incorrect email or password.');

    // The link a second time.
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'This link no longer works' }).isVisible()).resolves.toBe(true);
    expect(await page.locator('input[name="new_password"]').count()).toBe(0);

    for (const b of [first, second, user, withOld]) expect(b.errors).toEqual([]);
  });

  it.each([360, 375])('the new pages fit a %i px phone without horizontal scroll', async (width) => {
    const { page, errors } = await newBrowser({ width, height: 667 });
    const check = (name: string) => checkNarrow(page, `${name}-${width}`);
    await page.goto('/login');
    await check('login');
    await page.goto('/forgot-password');
    await check('forgot');
    const account = (await core.accounts.findByEmail(EMAIL))!;
    await page.goto(`/reset-password?token=${await core.resets.issue(account.id)}`);
    await check('reset');
    await logIn(page, NEW_PASSWORD);
    await page.waitForURL('**/keys');
    await page.goto('/account');
    await check('account');
    await page.goto('/activity');
    await check('activity');
    expect(errors).toEqual([]);
  });

  it('the account and activity pages at 1366 px', async () => {
    const { page, errors } = await newBrowser({ width: 1366, height: 768 });
    await logIn(page, NEW_PASSWORD);
    await page.waitForURL('**/keys');
    for (const name of ['account', 'activity']) {
      await page.goto(`/${name}`);
      await checkNarrow(page, `${name}-1366`);
    }
    expect(errors).toEqual([]);
  });

  it('deletes the account from the browser after the password is entered again', async () => {
    const { page, errors } = await newBrowser();
    await logIn(page, NEW_PASSWORD);
    await page.waitForURL('**/keys');
    await page.goto('/account');
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('The password is not correct.');
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Delete my account' }).click();
    // The form's fragment (its error's id) stays through the redirect.
    await page.waitForURL('**/login?deleted#delete-account');
    expect(await page.getByRole('status').textContent()).toContain('Your account and its keys were deleted.');
    await logIn(page, NEW_PASSWORD);
    expect(await page.getByRole('alert').textContent()).toContain('Incorrect email or password.');
    expect(errors).toEqual([]);
  });
});
