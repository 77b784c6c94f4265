import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { launchTestBrowser, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';

// What a new user hit in Chromium (issue 16): a reload after "Create key", the new key below the
// fold, pages scrolling sideways on a phone, per-key usage. Real servers, real Chromium.

const ARTIFACTS = path.resolve('test-artifacts');
const PASSWORD = 'correct horse battery staple';
const PHONE = { width: 375, height: 667 };
const LAPTOP = { width: 1366, height: 768 };

let core: CoreDeps;
let apps: FastifyInstance[] = [];
let target: http.Server;
let targetUrl: string;
let deadUrl: string;
let dashboardUrl: string;
let metadataUrl: string;
let browser: Browser;

beforeAll(async () => {
  target = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html><head><title>Loopback fixture</title></head><body>hi</body></html>');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
  // A port that was just free: connecting is refused, so the metadata service answers 502 (the target failed).
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`;
  await new Promise((resolve) => closed.close(resolve));

  core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32' });
  const metadata = await buildMetadataApp(core);
  apps = [metadata];
  metadataUrl = await metadata.listen({ host: '127.0.0.1', port: 0 });
  const dashboardCore: CoreDeps = { ...core, config: Object.freeze({ ...core.config, metadataPublicUrl: metadataUrl }) };
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

async function newPage(viewport: { width: number; height: number }): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport, baseURL: dashboardUrl });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 404/.test(m.text())) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

function signUp(page: Page, email: string): Promise<void> {
  return signUpInBrowser(page, email, PASSWORD);
}

async function createKey(page: Page, service: 'render' | 'metadata', name: string): Promise<string> {
  await page.goto('/keys');
  const section = page.locator(`#${service}-keys`);
  await section.getByLabel('Key name (optional)').fill(name);
  await section.getByRole('button', { name: `Create ${service} key` }).click();
  await page.waitForURL(/\/keys\?created=/);
  return page.locator('#new-key-value').inputValue();
}

function rowFor(page: Page, key: string) {
  return page.locator('tr[data-key-id]', { hasText: `${key.slice(0, 13)}…` });
}

/** Whether the element's whole box is inside the viewport. */
async function inView(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth && r.height > 0;
  });
}

async function horizontalOverflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
}

/**
 * Every same-origin page reachable by links from `start` (navigation and page content), breadth first:
 * pages added later (and linked) are covered without naming them here.
 */
async function crawl(page: Page, start: string[], limit = 40): Promise<string[]> {
  const seen = new Set<string>(start);
  const queue = [...start];
  const visited: string[] = [];
  while (queue.length > 0 && visited.length < limit) {
    const url = queue.shift()!;
    const res = await page.goto(url);
    if (!res || res.status() >= 400) continue;
    visited.push(url);
    const links = await page.locator('header a[href], main a[href]').evaluateAll((as) =>
      as
        .map((a) => new URL((a as HTMLAnchorElement).href))
        .filter((u) => u.origin === location.origin)
        .map((u) => u.pathname + u.search),
    );
    for (const link of links) {
      if (link.startsWith('/assets/') || seen.has(link)) continue;
      seen.add(link);
      queue.push(link);
    }
  }
  return visited;
}

describe('dashboard screens (real Chromium)', () => {
  let phone: Awaited<ReturnType<typeof newPage>>;
  let laptop: Awaited<ReturnType<typeof newPage>>;
  let busyKey: string;
  let idleKey: string;

  it('a reload after "Create key" creates nothing; the one-time key, copy button and curl example are in view at 1366×768', async () => {
    laptop = await newPage(LAPTOP);
    const { page } = laptop;
    await signUp(page, 'screens-laptop@example.com');
    busyKey = await createKey(page, 'metadata', 'production');
    expect(busyKey).toMatch(/^pwm_live_[0-9a-f]{32}$/);
    for (const selector of ['#new-key', '#new-key-value', '#new-key [data-copy="new-key-value"]', '#new-key-curl']) {
      expect(await inView(page, selector), selector).toBe(true);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, 'keys-created-1366.png') });
    const rows = await page.locator('tr[data-key-id]').count();
    await page.reload();
    expect(await page.locator('tr[data-key-id]').count()).toBe(rows);
    expect(await page.locator('#new-key-value').count()).toBe(0);
    expect(await page.content()).not.toContain(busyKey);
    expect(await page.getByRole('status').first().textContent()).toContain('is not shown again');
    expect((await core.keys.list((await core.accounts.findByEmail('screens-laptop@example.com'))!.id)).length).toBe(1);

    // The second service's card is further down: its new key is brought into view too.
    await createKey(page, 'render', 'r1');
    expect(await inView(page, '#new-key')).toBe(true);
    idleKey = await createKey(page, 'metadata', 'old');
    for (const selector of ['#new-key', '#new-key-value', '#new-key-curl'])
      expect(await inView(page, selector), selector).toBe(true);
    expect(laptop.errors).toEqual([]);
  });

  it('two keys, requests on one only: the keys page shows the split and revoking the idle one is visibly safe', async () => {
    const { page } = laptop;
    for (const url of [targetUrl, targetUrl, deadUrl]) {
      const res = await fetch(`${metadataUrl}/v1/fetch?url=${encodeURIComponent(url)}`, { headers: { 'x-api-key': busyKey } });
      expect(res.status).toBe(url === deadUrl ? 502 : 200);
    }
    await page.goto('/keys');
    const cells = async (key: string) => (await rowFor(page, key).locator('td').allTextContents()).map((t) => t.trim());
    expect((await cells(busyKey)).slice(3, 5)).toEqual(['just now', '3']);
    expect((await cells(idleKey)).slice(3, 5)).toEqual(['never', '0']);
    expect(await rowFor(page, busyKey).locator('td.num a').getAttribute('title')).toBe('OK: 2, Target error: 1');
    await page.screenshot({ path: path.join(ARTIFACTS, 'keys-1366.png'), fullPage: true });

    await rowFor(page, idleKey)
      .getByRole('link', { name: /Revoke/ })
      .click();
    const advice = page.locator('.alert');
    expect(await advice.getAttribute('class')).toContain('alert-ok');
    expect(await advice.textContent()).toContain(
      'No requests in the last 7 days (never used): nothing seems to depend on this key.',
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'revoke-idle-1366.png') });
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL(/\/keys\?revoked=/);
    expect(await page.locator('details.revoked[open] tr[data-revoked-key-id]').count()).toBe(1);
    await page.locator('#metadata-keys').screenshot({ path: path.join(ARTIFACTS, 'keys-rotated-1366.png') });
    expect(
      (await fetch(`${metadataUrl}/v1/fetch?url=${encodeURIComponent(targetUrl)}`, { headers: { 'x-api-key': busyKey } })).status,
    ).toBe(200);

    // The busy key's confirmation warns instead.
    await rowFor(page, busyKey)
      .getByRole('link', { name: /Revoke/ })
      .click();
    expect(await page.locator('.alert').textContent()).toContain('4 requests in the last 7 days');
    expect(await page.locator('.alert').getAttribute('class')).toContain('alert-warn');

    // The usage page: target errors are their own outcome, not our server errors.
    await page.goto('/usage');
    const title = await page
      .locator('#usage-metadata')
      .locator('xpath=ancestor::section')
      .locator('svg.chart g')
      .last()
      .locator('title')
      .textContent();
    expect(title).toMatch(/: 4 requests \(OK: 3, Target error: 1\)$/);
    expect(await page.locator('.legend li', { hasText: 'Target error' }).first().isVisible()).toBe(true);
    const yLabels = await page.locator('svg.chart-y text').allTextContents();
    expect(yLabels.length).toBeGreaterThan(0);
    expect(
      yLabels.every((t) => /^\d[\d,]*$/.test(t)),
      yLabels.join(' '),
    ).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'usage-1366.png'), fullPage: true });
    await page.goto('/usage?range=24h');
    await page.screenshot({ path: path.join(ARTIFACTS, 'usage-24h-1366.png'), fullPage: true });
    expect(laptop.errors).toEqual([]);
  });

  // Every page, signed in or out, at up to six widths: about a minute on a loaded machine.
  it('at 375×667 no dashboard page scrolls sideways, signed out or in', async () => {
    phone = await newPage(PHONE);
    const { page } = phone;
    const signedOut = await crawl(page, ['/login', '/signup']);
    expect(signedOut).toEqual(expect.arrayContaining(['/login', '/signup']));
    for (const url of signedOut) {
      await page.goto(url);
      expect(await horizontalOverflow(page), url).toEqual({ scrollWidth: 375, innerWidth: 375 });
    }

    await signUp(page, 'screens-phone@example.com');
    const key = await createKey(page, 'render', 'a key with a rather long name for a phone screen');
    expect(await horizontalOverflow(page), 'keys with a new key').toEqual({ scrollWidth: 375, innerWidth: 375 });
    await createKey(page, 'metadata', 'm');
    await fetch(`${metadataUrl}/v1/fetch?url=${encodeURIComponent(targetUrl)}`, {
      headers: { 'x-api-key': await page.locator('#new-key-value').inputValue() },
    });

    const signedIn = await crawl(page, ['/keys']);
    expect(signedIn).toEqual(expect.arrayContaining(['/keys', '/usage', '/docs', '/account']));
    expect(signedIn.some((u) => /^\/keys\/key_[0-9a-f]+\/revoke$/.test(u))).toBe(true);
    for (const url of [...signedIn, '/usage?range=24h', '/nope']) {
      await page.goto(url);
      expect(await horizontalOverflow(page), url).toEqual({ scrollWidth: 375, innerWidth: 375 });
      expect(await inView(page, 'header button[type="submit"]'), `Log out on ${url}`).toBe(true);
    }
    // The narrowest phone the dashboard supports, and tablet widths where the header has to share its row.
    for (const width of [360, 768, 901, 1024]) {
      await page.setViewportSize({ width, height: 700 });
      for (const url of [...signedIn, '/usage?range=24h']) {
        await page.goto(url);
        expect(await horizontalOverflow(page), `${url} at ${width} px`).toEqual({ scrollWidth: width, innerWidth: width });
        expect(await inView(page, 'header button[type="submit"]'), `Log out on ${url} at ${width} px`).toBe(true);
      }
      await page.goto('/keys');
      // No key prefix spills out of its cell into the next column.
      const spilled = await page
        .locator('td.prefix')
        .evaluateAll((tds) => tds.filter((td) => td.scrollWidth > td.clientWidth).length);
      expect(spilled, `prefixes spilling at ${width} px`).toBe(0);
      await page.screenshot({ path: path.join(ARTIFACTS, `keys-${width}.png`) });
    }
    await page.setViewportSize(PHONE);

    await page.goto('/keys');
    const row = rowFor(page, key);
    // The key prefix on one line, dates and "never" unbroken, Revoke inside its card.
    const lineHeight = (selector: string) =>
      row
        .locator(selector)
        .first()
        .evaluate((el) => ({ height: el.getBoundingClientRect().height, line: parseFloat(getComputedStyle(el).lineHeight) }));
    for (const selector of ['td.prefix', 'td.date time', 'td.date .muted']) {
      const { height, line } = await lineHeight(selector);
      expect(height, selector).toBeLessThan(line * 1.5);
    }
    const [button, card] = await Promise.all([
      row.getByRole('link', { name: /Revoke/ }).boundingBox(),
      page.locator('#render-keys').boundingBox(),
    ]);
    expect(button!.x).toBeGreaterThanOrEqual(card!.x);
    expect(button!.x + button!.width).toBeLessThanOrEqual(card!.x + card!.width);
    await page.screenshot({ path: path.join(ARTIFACTS, 'keys-375.png'), fullPage: true });
    await page.goto('/usage');
    await page.screenshot({ path: path.join(ARTIFACTS, 'usage-375.png'), fullPage: true });
    await page.goto('/usage?range=24h');
    await page.screenshot({ path: path.join(ARTIFACTS, 'usage-24h-375.png'), fullPage: true });
    expect(phone.errors).toEqual([]);
  }, 150_000);
});
