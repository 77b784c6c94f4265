/**
 * A form low on a page that comes back with an error lands on that error, in Chromium at 375 and 1366 px:
 * the page opens scrolled to the error, which has the focus (a screen reader reads it), the next Tab is the
 * field to correct (marked invalid, described by the error), and what was typed in a name field is still there.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { launchTestBrowser, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';

const ARTIFACTS = path.resolve('test-artifacts');
const PASSWORD = 'correct horse battery staple';
const VIEWPORTS = [
  { width: 375, height: 667 },
  { width: 1366, height: 768 },
] as const;

let core: CoreDeps;
let dashboard: FastifyInstance;
let dashboardUrl: string;
let browser: Browser;
let n = 0;

beforeAll(async () => {
  core = await createTestCore();
  dashboard = await buildDashboardApp(core);
  dashboardUrl = await dashboard.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchTestBrowser();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await dashboard?.close();
  if (core) await closeTestCore(core);
});

/** A signed-in page of a fresh account at this viewport. */
async function signedInPage(viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport, baseURL: dashboardUrl });
  const page = await context.newPage();
  await signUpInBrowser(page, `form-errors-${++n}@example.com`, PASSWORD);
  return page;
}

/** Where the element is against the viewport, and whether it is focused or holds the focus. */
function placeOf(page: Page, selector: string) {
  return page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return {
      inView: r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0,
      top: Math.round(r.top),
      scrollY: Math.round(window.scrollY),
    };
  });
}

/** The focused element's id, and after one Tab the next one's, whether it is invalid and what describes it. */
async function focusAndNext(page: Page) {
  const focusedId = await page.evaluate(() => document.activeElement?.id ?? '');
  await page.keyboard.press('Tab');
  const next = await page.evaluate(() => {
    const el = document.activeElement;
    return {
      id: el?.id ?? '',
      invalid: el?.getAttribute('aria-invalid') ?? null,
      describedBy: (el?.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' '),
    };
  });
  return { focusedId, next };
}

describe('an error low on the page is where the page opens (Chromium)', () => {
  for (const viewport of VIEWPORTS) {
    it(`Account → Delete account with a wrong password: the error is in view and focused, the next Tab is the password (${viewport.width} px)`, async () => {
      const page = await signedInPage(viewport);
      await page.goto('/account');
      await page.getByLabel('Password', { exact: true }).fill('not my password at all');
      await page.getByRole('button', { name: 'Delete my account' }).click();
      await page.waitForLoadState('load');
      const error = page.locator('.danger-zone [role="alert"]');
      expect(await error.textContent()).toBe('The password is not correct.');
      const place = await placeOf(page, '.danger-zone [role="alert"]');
      expect(place.inView, `error at y=${place.top}, page scrolled ${place.scrollY}`).toBe(true);
      await page.screenshot({ path: path.join(ARTIFACTS, `form-errors-delete-${viewport.width}.png`) });
      const { focusedId, next } = await focusAndNext(page);
      expect(focusedId).toBe('delete-account');
      expect(next).toEqual({
        id: 'delete_password',
        invalid: 'true',
        describedBy: expect.stringContaining('The password is not correct.'),
      });
      await page.context().close();
    });

    it(`API keys → a metadata key name with U+202E: the error is in view, the name is kept without it (${viewport.width} px)`, async () => {
      const page = await signedInPage(viewport);
      await page.goto('/keys');
      const section = page.locator('#metadata-keys');
      await section.getByLabel('Key name (optional)').fill('crm\u202Eexport');
      await section.getByRole('button', { name: 'Create metadata key' }).click();
      await page.waitForLoadState('load');
      const error = section.locator('[role="alert"]');
      expect(await error.textContent()).toContain('found U+202E at position 4');
      const place = await placeOf(page, '#metadata-keys [role="alert"]');
      expect(place.inView, `error at y=${place.top}, page scrolled ${place.scrollY}`).toBe(true);
      expect(await section.getByLabel('Key name (optional)').inputValue()).toBe('crmexport');
      // The render form is untouched.
      expect(await page.locator('#render-keys').getByLabel('Key name (optional)').inputValue()).toBe('');
      await page.screenshot({ path: path.join(ARTIFACTS, `form-errors-key-name-${viewport.width}.png`) });
      const { focusedId, next } = await focusAndNext(page);
      expect(focusedId).toBe('create-metadata-key');
      expect(next.id).toBe('name-metadata');
      expect(next.describedBy).toContain('found U+202E at position 4');
      await page.context().close();
    });
  }

  it('Account → Change password with a wrong current password: the error is in view and the next Tab is the current password', async () => {
    const page = await signedInPage({ width: 375, height: 667 });
    await page.goto('/account');
    await page.getByLabel('Current password').fill('not my password at all');
    await page.getByLabel('New password', { exact: true }).fill('a brand new long password');
    await page.getByLabel('Confirm new password').fill('a brand new long password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForLoadState('load');
    expect((await placeOf(page, '#change-password')).inView).toBe(true);
    const { focusedId, next } = await focusAndNext(page);
    expect(focusedId).toBe('change-password');
    expect(next.id).toBe('current_password');
    expect(next.invalid).toBe('true');
    await page.context().close();
  });
});
