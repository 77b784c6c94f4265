/**
 * The dashboard's controls as a keyboard, mouse or screen reader user meets them, in Chromium: a Copy
 * button comes back to its own label after a quick double click, the usage filter's selects can be moved
 * through with the arrow keys without leaving the page (Show applies them), and the buttons and links that
 * repeat on a page ("End", "Download PDF") say which session or job they act on.
 */
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { launchTestBrowser, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { queueJob } from '../helpers/webhook-jobs.js';

const PASSWORD = 'correct horse battery staple';
const EMAIL = 'controls@example.com';
const PDF = Buffer.from('%PDF-1.7\n% a stand-in PDF for the download link\n%%EOF\n');

let core: CoreDeps;
let dashboard: FastifyInstance;
let dashboardUrl: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  core = await createTestCore();
  dashboard = await buildDashboardApp(core);
  dashboardUrl = await dashboard.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchTestBrowser();
  context = await browser.newContext({ viewport: { width: 1366, height: 768 }, baseURL: dashboardUrl });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: dashboardUrl });
  page = await context.newPage();
  await signUpInBrowser(page, EMAIL, PASSWORD);
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await dashboard?.close();
  if (core) await closeTestCore(core);
});

/** A job of the account that succeeded with a stored PDF, as the worker leaves it. */
async function succeededJob(reference: string | null): Promise<string> {
  const account = await core.accounts.findByEmail(EMAIL);
  const now = Date.now();
  const id = await queueJob(core.store, account!.id, { createdAt: now - 5000, reference });
  await core.store.claimJob('test-worker', now - 4000, { leaseMs: 60_000, maxAttempts: 3 });
  const key = `${account!.id}/${id}.pdf`;
  await core.results.put(key, PDF);
  await core.store.finishJob(id, 'test-worker', now - 1500, {
    pdf: { key, bytes: PDF.length, pages: 1, expiresAt: now + 3_600_000, store: core.results.id },
  });
  return id;
}

describe('Copy buttons', () => {
  it('come back to their own label after a quick double click (key, curl example, webhook secret)', async () => {
    await page.goto('/keys');
    await page.locator('#render-keys').getByRole('button', { name: 'Create render key' }).click();
    await page.waitForURL(/\/keys\?created=/);
    const copyKey = page.locator('[data-copy="new-key-value"]');
    const copyCurl = page.locator('[data-copy="new-key-curl"]');
    await copyKey.dblclick();
    await copyCurl.dblclick();
    expect(await copyKey.textContent()).toBe('Copied');
    await page.waitForTimeout(2500);
    expect(await copyKey.textContent()).toBe('Copy key');
    expect(await copyCurl.textContent()).toBe('Copy');

    await page.goto('/jobs');
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    const copySecret = page.locator('[data-copy="webhook-secret"]');
    await copySecret.dblclick();
    await page.waitForTimeout(2500);
    expect(await copySecret.textContent()).toBe('Copy');
  });
});

describe('the usage filter', () => {
  it('arrow keys move through the Key and Period options without leaving the page; Show applies them', async () => {
    await page.goto('/usage');
    const key = page.getByLabel('Key');
    await key.focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.getByLabel('Period').focus();
    await page.keyboard.press('ArrowDown');
    // Give a navigation, if one were started, the time to happen.
    await page.waitForTimeout(500);
    expect(new URL(page.url()).search).toBe('');
    const chosen = await key.inputValue();
    expect(chosen).toMatch(/^key_/);
    expect(await page.getByLabel('Period').inputValue()).toBe('24h');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/\/usage\?/);
    expect(new URL(page.url()).searchParams.get('key')).toBe(chosen);
    expect(new URL(page.url()).searchParams.get('range')).toBe('24h');
  });
});

describe('names with context', () => {
  it('each session’s End button names the session: browser, address and sign-in time', async () => {
    // Two more sessions of the account, from other browsers.
    for (const agent of ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0', 'curl/8.5.0']) {
      const other = await browser.newContext({ baseURL: dashboardUrl, userAgent: agent });
      const tab = await other.newPage();
      await tab.goto('/login');
      await tab.getByLabel('Email').fill(EMAIL);
      await tab.getByLabel('Password').fill(PASSWORD);
      await tab.getByRole('button', { name: 'Log in' }).click();
      await tab.waitForURL('**/keys');
      await other.close();
    }
    await page.goto('/account');
    const ends = page.locator('.session-list').getByRole('button');
    const names = await ends.evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? b.textContent));
    expect(names).toHaveLength(2);
    for (const name of names)
      expect(name).toMatch(/^End the session of .+ at 127\.0\.0\.1, signed in \d+ \w+ \d{4}, \d\d:\d\d UTC$/);
    expect(names.some((n) => n?.includes('Firefox 128 on Windows'))).toBe(true);
    expect(new Set(names).size).toBe(2);
    expect(await page.getByRole('button', { name: /Firefox 128 on Windows/ }).count()).toBe(1);
  });

  it('each job’s Download PDF link names the job: its reference, or its id', async () => {
    const named = await succeededJob('invoice-2026-0042');
    const unnamed = await succeededJob(null);
    await page.goto('/jobs');
    expect(await page.getByRole('link', { name: 'Download PDF of invoice-2026-0042', exact: true }).getAttribute('href')).toBe(
      `/jobs/${named}/pdf`,
    );
    expect(await page.getByRole('link', { name: `Download PDF of job ${unnamed}`, exact: true }).getAttribute('href')).toBe(
      `/jobs/${unnamed}/pdf`,
    );
  });
});
