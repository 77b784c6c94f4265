/**
 * What long names, a search box and the usage chart look like in Chromium at 375 and 1366 px: a 100-character
 * key name of one word never widens a page, the usage filter keeps Key, Period and Show on one line at 1366
 * px, the Renders search box is styled like the other text fields, and the usage chart's axis labels are
 * readable and inside the chart, today's included. Screenshots go to test-artifacts/layout-*.png.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { launchTestBrowser, sidewaysOverflow, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';

const ARTIFACTS = path.resolve('test-artifacts');
const PASSWORD = 'correct horse battery staple';
const EMAIL = 'layout@example.com';
const LONG_NAME = `${'billingexport'.repeat(7)}${'x'.repeat(9)}`;
const WIDTHS = [375, 1366] as const;

let core: CoreDeps;
let dashboard: FastifyInstance;
let dashboardUrl: string;
let browser: Browser;
let signedIn: BrowserContext;

beforeAll(async () => {
  core = await createTestCore();
  dashboard = await buildDashboardApp(core);
  dashboardUrl = await dashboard.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchTestBrowser();
  signedIn = await browser.newContext({ viewport: { width: 1366, height: 768 }, baseURL: dashboardUrl });
  await signUpInBrowser(await signedIn.newPage(), EMAIL, PASSWORD);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await signedIn?.close();
  await browser?.close();
  await dashboard?.close();
  if (core) await closeTestCore(core);
});

/** A page of the signed-in session at this width. */
async function pageAt(width: number): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({
    viewport: { width, height: 800 },
    baseURL: dashboardUrl,
    storageState: await signedIn.storageState(),
  });
  return { page: await context.newPage(), close: () => context.close() };
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `layout-${name}.png`), fullPage: true });
}

describe('a 100-character key name of one word', () => {
  it('the new-key banner wraps its heading: the page is no wider than the screen', async () => {
    expect(LONG_NAME).toHaveLength(100);
    expect(LONG_NAME).not.toMatch(/\s/);
    for (const width of WIDTHS) {
      const { page, close } = await pageAt(width);
      await page.goto('/keys');
      const section = page.locator('#metadata-keys');
      await section.getByLabel('Key name (optional)').fill(LONG_NAME);
      await section.getByRole('button', { name: 'Create metadata key' }).click();
      await page.waitForURL(/\/keys\?created=/);
      expect(await page.locator('#new-key h3').textContent()).toContain(LONG_NAME);
      expect(await sidewaysOverflow(page), `the keys page scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
      await shoot(page, `new-key-long-name-${width}`);
      await page.goto(`/keys/${await page.locator('#metadata-keys tr[data-key-id]').first().getAttribute('data-key-id')}/revoke`);
      expect(await sidewaysOverflow(page), `the revoke page scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
      await close();
    }
  });

  it('the usage filter keeps Key, Period and Show on one line at 1366 px, and fits 375 px', async () => {
    for (const width of WIDTHS) {
      const { page, close } = await pageAt(width);
      await page.goto('/usage');
      const box = (selector: string) => page.locator(selector).evaluate((el) => el.getBoundingClientRect().toJSON());
      const key = await box('#usage-key');
      const period = await box('#usage-range');
      const show = await box('form.filter button');
      if (width === 1366) {
        expect(key.width, 'the Key select').toBeLessThanOrEqual(420);
        expect(period.top).toBe(key.top);
        expect(Math.round(show.bottom)).toBe(Math.round(key.bottom));
      }
      expect(key.right).toBeLessThanOrEqual(width);
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await shoot(page, `usage-filter-long-name-${width}`);
      await close();
    }
  });
});

describe('the Renders search box', () => {
  it('is styled like the other text fields (border, padding, font)', async () => {
    for (const width of WIDTHS) {
      const { page, close } = await pageAt(width);
      await page.goto('/renders');
      const look = (selector: string) =>
        page.locator(selector).evaluate((el) => {
          const s = getComputedStyle(el);
          return {
            border: s.borderTopColor,
            borderWidth: s.borderTopWidth,
            radius: s.borderTopLeftRadius,
            padding: s.paddingLeft,
            font: s.fontSize,
          };
        });
      await page.goto('/renders');
      const search = await look('input[type="search"]');
      await page.goto('/keys');
      const text = await look('#name-render');
      expect(search).toEqual(text);
      await page.goto('/renders');
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await shoot(page, `renders-search-${width}`);
      await close();
    }
  });
});

describe('the usage chart', () => {
  it('shows today’s label inside the chart, and axis text at least 11 px tall, at 375 and 1366 px', async () => {
    const account = await core.accounts.findByEmail(EMAIL);
    const { record } = await core.keys.create(account!.id, 'render', 'chart');
    core.usage.record(account!.id, 'render', 'ok', record.id, 115);
    core.usage.record(account!.id, 'render', 'client_error', record.id, 2);
    await core.usage.flush();
    for (const width of WIDTHS) {
      const { page, close } = await pageAt(width);
      for (const range of ['30d', '24h']) {
        await page.goto(`/usage?range=${range}`);
        const card = page.locator('section[aria-labelledby="usage-render"]');
        const chart = card.locator('svg[role="img"]');
        expect(await chart.count()).toBe(1);
        // Every axis label the reader sees: the size it is drawn at, and whether it stays inside the card's content box.
        const measured = await card.evaluate((section) => {
          const box = section.getBoundingClientRect();
          const pad = Number.parseFloat(getComputedStyle(section).paddingLeft);
          const labels = Array.from(section.querySelectorAll<SVGTextElement>('svg text'))
            .filter((t) => t.getBoundingClientRect().width > 0)
            .map((t) => {
              const svg = t.ownerSVGElement as SVGSVGElement;
              const view = svg.viewBox.baseVal;
              const scale = view && view.width > 0 ? svg.getBoundingClientRect().width / view.width : 1;
              const r = t.getBoundingClientRect();
              return {
                text: t.textContent,
                left: r.left,
                right: r.right,
                px: Number.parseFloat(getComputedStyle(t).fontSize) * scale,
              };
            });
          return { left: box.left + pad, right: box.right - pad, labels };
        });
        expect(measured.labels.length).toBeGreaterThan(5);
        for (const label of measured.labels) {
          expect(label.px, `"${label.text}" at ${width} px`).toBeGreaterThanOrEqual(11);
          expect(label.right, `"${label.text}" at ${width} px`).toBeLessThanOrEqual(measured.right + 0.5);
          expect(label.left, `"${label.text}" at ${width} px`).toBeGreaterThanOrEqual(measured.left - 0.5);
        }
        // Today is labelled, on the x-axis's right end.
        const today = measured.labels.at(-1);
        expect(today?.text).toMatch(range === '30d' ? /^[A-Z][a-z]{2} \d+$/ : /^\d\d:00$/);
        expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
        await card.screenshot({ path: path.join(ARTIFACTS, `layout-chart-${range}-${width}.png`) });
      }
      await close();
    }
  });
});
