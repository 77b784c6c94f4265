import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { formatDate } from '../../src/dashboard/views/format.js';
import { launchTestBrowser, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';

const ARTIFACTS = path.resolve('test-artifacts');
const PASSWORD = 'correct horse battery staple';

let core: CoreDeps;
let apps: FastifyInstance[] = [];
let target: http.Server;
let targetUrl: string;
let dashboardUrl: string;
let renderUrl: string;
let metadataUrl: string;
let browser: Browser;

beforeAll(async () => {
  target = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><html><head><title>Loopback fixture</title><meta name="description" content="Served on 127.0.0.1"></head><body>hi</body></html>',
    );
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;

  core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32' });
  const render = await buildRenderApp(core);
  const metadata = await buildMetadataApp(core);
  apps = [render, metadata];
  renderUrl = await render.listen({ host: '127.0.0.1', port: 0 });
  metadataUrl = await metadata.listen({ host: '127.0.0.1', port: 0 });
  // The same core (store, limiter, usage, last-used), with the public addresses the services got.
  const dashboardCore: CoreDeps = {
    ...core,
    config: Object.freeze({ ...core.config, renderPublicUrl: renderUrl, metadataPublicUrl: metadataUrl }),
  };
  const dashboard = await buildDashboardApp(dashboardCore);
  apps.push(dashboard);
  dashboardUrl = await dashboard.listen({ host: '127.0.0.1', port: 0 });

  browser = await launchTestBrowser();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const app of apps.reverse()) await app.close();
  await new Promise((resolve) => target?.close(resolve));
  if (core) await closeTestCore(core);
});

/** A fresh browser context (its own cookies) that fails the test on any console error, CSP reports included. */
async function newUser(): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: dashboardUrl });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: dashboardUrl });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    // The deliberate 404 navigations below are logged too; everything else (a CSP refusal, a script error) counts.
    if (m.type() === 'error' && !/status of 404/.test(m.text())) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

function signUp(page: Page, email: string): Promise<void> {
  return signUpInBrowser(page, email, PASSWORD);
}

async function createKey(page: Page, service: 'render' | 'metadata', name: string): Promise<string> {
  await page.goto('/keys');
  const section = page.locator(`#${service}-keys`);
  await section.getByLabel('Key name (optional)').fill(name);
  await section.getByRole('button', { name: `Create ${service} key` }).click();
  const key = await page.locator('#new-key-value').inputValue();
  expect(key).toMatch(service === 'render' ? /^pwr_live_[0-9a-f]{32}$/ : /^pwm_live_[0-9a-f]{32}$/);
  expect(await page.locator('.new-key .warning').textContent()).toContain('it will not be shown again');
  return key;
}

function rowFor(page: Page, key: string) {
  return page.locator('tr[data-key-id]', { hasText: `${key.slice(0, 13)}…` });
}

async function revoke(page: Page, key: string): Promise<void> {
  await page.goto('/keys');
  await rowFor(page, key)
    .getByRole('link', { name: /Revoke/ })
    .click();
  await expect(page.getByRole('heading', { name: 'Revoke this key?' }).isVisible()).resolves.toBe(true);
  await page.getByRole('button', { name: 'Revoke key' }).click();
  await page.waitForURL(/\/keys\?revoked=/);
  expect(await rowFor(page, key).count()).toBe(0);
  expect(await page.getByRole('status').first().textContent()).toContain('was revoked');
}

function renderWith(key: string): Promise<Response> {
  return fetch(`${renderUrl}/v1/render`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ html: '<h1>Hello from the dashboard test</h1>' }),
  });
}

function fetchWith(key: string): Promise<Response> {
  return fetch(`${metadataUrl}/v1/fetch?url=${encodeURIComponent(targetUrl)}`, { headers: { 'x-api-key': key } });
}

async function expectListed(page: Page, key: string, name: string): Promise<void> {
  await page.goto('/keys');
  const row = rowFor(page, key);
  expect(await row.count()).toBe(1);
  const cells = await row.locator('td').allTextContents();
  expect(cells.slice(0, 4)).toEqual([name, `${key.slice(0, 13)}…`, formatDate(Date.now()), 'just now']);
  expect(await page.content()).not.toContain(key);
}

describe('dashboard end to end (real servers, real Chromium)', () => {
  let first: Awaited<ReturnType<typeof newUser>>;
  let keptKey: string;
  let keptId: string;

  it('sign up → render key → PDF → listed with last use → revoke → 401', async () => {
    first = await newUser();
    const { page } = first;
    await signUp(page, 'e2e-first@example.com');
    const key = await createKey(page, 'render', 'e2e render');
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-keys.png') });

    // The copy button is a real, keyboard-reachable button that puts the key on the clipboard.
    await page.locator('#new-key-value').focus();
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Copy key');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    const pdf = await renderWith(key);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');

    // A bad request with a good key counts as the account's client error on the usage page.
    const bad = await fetch(`${renderUrl}/v1/render`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ html: '' }),
    });
    expect(bad.status).toBe(400);

    await expectListed(page, key, 'e2e render');
    await revoke(page, key);
    expect((await renderWith(key)).status).toBe(401);
  });

  it('the same for a metadata key with GET /v1/fetch', async () => {
    const { page } = first;
    const key = await createKey(page, 'metadata', 'e2e metadata');
    const res = await fetchWith(key);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ title: 'Loopback fixture', description: 'Served on 127.0.0.1' });
    await expectListed(page, key, 'e2e metadata');
    await revoke(page, key);
    expect((await fetchWith(key)).status).toBe(401);

    keptKey = await createKey(page, 'metadata', 'kept');
    keptId = (await rowFor(page, keptKey).getAttribute('data-key-id'))!;
    expect(keptId).toMatch(/^key_/);
  });

  it('the usage page charts the requests and shows the limits', async () => {
    const { page, errors } = first;
    await page.goto('/usage');
    expect(await page.locator('svg.chart').count()).toBe(2);
    // Requests refused for a revoked key belong to no account and are not counted.
    const labels = await page.locator('svg.chart').evaluateAll((svgs) => svgs.map((s) => s.getAttribute('aria-label')));
    expect(labels).toEqual([
      expect.stringContaining('render service: 2 in total'),
      expect.stringContaining('metadata service: 1 in total'),
    ]);
    const today = page.locator('svg.chart').first().locator('g').last();
    expect(await today.locator('title').textContent()).toMatch(/: 2 requests \(OK: 1, Client error: 1\)$/);
    expect(await page.getByText('requests / minute').count()).toBe(2);
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-usage.png') });
    expect(errors).toEqual([]);
  });

  it("another account sees none of the first account's keys and cannot revoke them by id", async () => {
    const second = await newUser();
    const { page } = second;
    await signUp(page, 'e2e-second@example.com');
    await page.goto('/keys');
    const html = await page.content();
    expect(html).not.toContain(keptKey.slice(0, 13));
    expect(html).not.toContain(keptId);
    expect(await page.locator('tr[data-key-id]').count()).toBe(0);

    const confirm = await page.goto(`/keys/${keptId}/revoke`);
    expect(confirm?.status()).toBe(404);
    await page.goto('/keys');
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const forged = await page.request.post(`/keys/${keptId}/revoke`, { form: { _csrf: csrf }, maxRedirects: 0 });
    expect(forged.status()).toBe(404);
    expect((await fetchWith(keptKey)).status).toBe(200);
    expect(second.errors).toEqual([]);
    await second.context.close();
  });
});
