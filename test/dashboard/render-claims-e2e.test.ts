/**
 * What a PDF claims, from the document to the dashboard: a document declaring PDF/A-3b is rendered for
 * real through POST /v1/render, its record goes through the render log to the store, and the render's
 * page in Chromium says what the PDF claims; a plain render's page says nothing about standards.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { createEgressPolicy } from '../../src/net/policy.js';
import { RenderLog } from '../../src/render/log/render-log.js';
import { launchTestBrowser, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { postRender } from '../helpers/render.js';
import { startRenderService } from '../helpers/render-service.js';

const SCREENS = process.env.SCREENS_DIR ?? path.resolve('test-artifacts');
const EMAIL = 'render-claims@example.com';
const PASSWORD = 'correct horse battery staple';
const POLL = { timeout: 15_000 };

let core: CoreDeps;
let service: FastifyInstance;
let dashboard: FastifyInstance;
let dashboardUrl: string;
let renderLog: RenderLog;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  core = await createTestCore();
  renderLog = new RenderLog({ store: core.store, retentionDays: 7, log: pino({ level: 'silent' }) });
  const policy = createEgressPolicy({ allow: [] });
  service = await startRenderService(core, { policy, concurrency: 1, queueLimit: 4, timeoutMs: 30_000 }, renderLog);
  dashboard = await buildDashboardApp(core);
  dashboardUrl = await dashboard.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchTestBrowser();
  fs.mkdirSync(SCREENS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await service?.close();
  await renderLog?.close();
  await dashboard?.close();
  if (core) await closeTestCore(core);
});

describe('a render page in Chromium', () => {
  it('says what the PDF claims, and nothing about standards for a plain render', async () => {
    context = await browser.newContext({ viewport: { width: 1366, height: 900 }, baseURL: dashboardUrl });
    const page = await context.newPage();
    await signUpInBrowser(page, EMAIL, PASSWORD);
    const account = await core.accounts.findByEmail(EMAIL);
    if (!account) throw new Error('signed-up account not found');
    const { key } = await core.keys.create(account.id, 'render', 'Archive');

    const archived = await postRender(service, key, {
      html: '<html lang="en"><head><title>Statement</title><meta name="pdf-profile" content="PDF/A-3b"></head><body><h1>Statement 2026-11</h1></body></html>',
    });
    expect(archived.statusCode).toBe(200);
    const plain = await postRender(service, key, { html: '<p>Plain</p>' });
    expect(plain.statusCode).toBe(200);
    await renderLog.flush();

    await page.goto(`/renders/${archived.headers['x-render-id']}`);
    const facts = page.locator('.job-facts');
    await expect.poll(() => facts.locator('div', { hasText: 'Standards' }).textContent(), POLL).toBe('StandardsClaims PDF/A-3b');
    expect(await page.getByText('Claims PDF/A-3b', { exact: true }).isVisible()).toBe(true);
    for (const [label, viewport] of [
      ['375', { width: 375, height: 740 }],
      ['1366', { width: 1366, height: 900 }],
    ] as const) {
      await page.setViewportSize(viewport);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(SCREENS, `render-claims-${label}.png`), fullPage: true });
    }

    await page.goto(`/renders/${plain.headers['x-render-id']}`);
    await expect.poll(() => page.locator('h1').textContent(), POLL).toContain(String(plain.headers['x-render-id']));
    expect(await page.locator('.job-facts').textContent()).not.toMatch(/Standards|claimed|Claims/);
  });
});
