/**
 * What a newcomer meets on the dashboard, in Chromium at 375 and 1366 px, on real servers (render service
 * with its worker, dashboard, one store): a job that succeeded with warnings says so on its card and leads
 * to its report, which shows the job's reference and a download link and says each thing once; a canceled
 * job keeps its webhook with the note that none is sent, Cancel asks first, and the canceled job's id leads
 * to "canceled before it printed"; the navigation fits a phone with the signed-in email in view; the keys
 * made at the first start are in the activity log. Screenshots go to test-artifacts/newcomer-*.png.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { JobsClient, RenderClient } from '../../src/client/index.js';
import { bootstrapLocalAccount } from '../../src/main.js';
import { launchTestBrowser, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { type LogoServer, startLogoServer } from '../helpers/logo-server.js';
import { until } from '../helpers/webhook-jobs.js';
import { type Delivery, startWebhookSink, type WebhookSink } from '../helpers/webhook-sink.js';

const ARTIFACTS = path.resolve('test-artifacts');
const EMAIL = 'newcomer-at-acme@example.com';
const PASSWORD = 'correct horse battery staple';
const WIDTHS = [375, 1366] as const;

let core: CoreDeps;
let render: FastifyInstance;
let dashboard: FastifyInstance;
let dashboardUrl: string;
let browser: Browser;
let signedIn: BrowserContext;
let receiver: WebhookSink;
let files: LogoServer;
let filesUrl: string;
let client: JobsClient;
const hits: Delivery[] = [];

beforeAll(async () => {
  receiver = await startWebhookSink(hits, { status: 200 });
  // The developer's own file server: the logo is there, the three pictures are not.
  files = await startLogoServer();
  filesUrl = files.base;
  // Every resource here settles (200 or 404) or is refused at once; a longer idle cap than the 2 s default
  // keeps a loaded machine from printing before the file server answers, without outlasting the client's 30 s.
  core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32', RENDER_CONCURRENCY: '1', RENDER_IDLE_MAX_MS: '6000' });
  render = await buildRenderApp(core);
  await render.listen({ host: '127.0.0.1', port: 0 });
  dashboard = await buildDashboardApp(core);
  dashboardUrl = await dashboard.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchTestBrowser();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await signedIn?.close();
  await browser?.close();
  await dashboard?.close();
  await render?.close();
  if (core) await closeTestCore(core);
  await receiver?.close();
  await files?.close();
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

function sideways(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `newcomer-${name}.png`), fullPage: true });
}

describe('a newcomer on the dashboard (Chromium, 375 and 1366 px)', () => {
  let warnedId: string;
  let canceledId: string;

  it('a job that succeeded with 3 warnings says "Succeeded · 3 warnings" and links to its report', async () => {
    signedIn = await browser.newContext({ viewport: { width: 1366, height: 800 }, baseURL: dashboardUrl });
    await signUpInBrowser(await signedIn.newPage(), EMAIL, PASSWORD);
    const account = await core.accounts.findByEmail(EMAIL);
    const { key } = await core.keys.create(account?.id ?? '', 'render', 'invoices');
    client = new JobsClient({ baseUrl: `http://127.0.0.1:${(render.server.address() as AddressInfo).port}`, apiKey: key });
    const job = await client.submit({
      html: `<h1>Invoice 42</h1><img src="${filesUrl}/logo.svg" alt="logo"><img src="${filesUrl}/a.png" alt="a"><img src="${filesUrl}/b.png" alt="b"><img src="${filesUrl}/c.png" alt="c">`,
      reference: 'invoice-2026-0042',
      webhook: { url: receiver.url },
    });
    warnedId = job.id;
    const done = await client.wait(job.id, { timeoutMs: 90_000, intervalMs: 100 });
    expect(done.status).toBe('succeeded');
    expect(done.warnings.map((w) => w.message)).toEqual([
      'a.png was not loaded: its server answered HTTP 404',
      'b.png was not loaded: its server answered HTTP 404',
      'c.png was not loaded: its server answered HTTP 404',
    ]);

    for (const width of WIDTHS) {
      const { page, close } = await pageAt(width);
      await page.goto('/jobs');
      const card = page.locator(`li.job[data-job-id="${job.id}"]`);
      const status = card.locator('.status');
      expect(await status.textContent()).toBe('Succeeded · 3 warnings');
      expect(await status.getAttribute('href')).toBe(`/renders/${job.id}`);
      expect(await sideways(page)).toBeLessThanOrEqual(0);
      await shoot(page, `jobs-warnings-${width}`);
      await close();
    }
  }, 180_000);

  it('the job’s render page shows its reference and a download link, and says each thing once', async () => {
    for (const width of WIDTHS) {
      const { page, close } = await pageAt(width);
      await page.goto('/jobs');
      await page.locator(`li.job[data-job-id="${warnedId}"] .status`).click();
      await page.waitForURL(`**/renders/${warnedId}`);
      const main = (await page.locator('main').textContent()) ?? '';
      expect(await page.locator('.lead').textContent()).toMatch(
        /^Rendered (just now|1 minute ago) \(\d+ \w+ \d{4}, \d\d:\d\d UTC\), from the render job invoice-2026-0042\.$/,
      );
      expect(await page.locator('.job-facts dt').allTextContents()).toEqual(['Reference', 'Job', 'Key', 'Duration', 'PDF']);
      expect(await page.locator('.job-facts dd').first().textContent()).toBe('invoice-2026-0042');
      const download = page.getByRole('link', { name: 'Download PDF' });
      expect(await download.getAttribute('href')).toBe(`/jobs/${warnedId}/pdf`);
      expect(await page.getByRole('heading', { level: 2, name: '3 warnings' }).count()).toBe(1);
      // Each file is named once per warning (in its URL), not again in a sentence restating the heading.
      expect(main.split('a.png').length - 1).toBe(1);
      expect(main).not.toContain('was not loaded');
      expect(main).not.toContain('asked for');
      expect(await sideways(page)).toBeLessThanOrEqual(0);
      await shoot(page, `render-of-job-${width}`);
      if (width === 1366) {
        const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
        expect(file.suggestedFilename()).toBe('invoice-2026-0042.pdf');
      }
      await close();
    }
  }, 120_000);

  it('Cancel asks first; a canceled running job keeps its webhook, says none is sent, and its id says it never printed', async () => {
    const job = await client.submit({
      html: '<script>window.pageworksReady = new Promise(() => {});</script><h1>Never ready</h1>',
      reference: 'never-ready',
      webhook: { url: receiver.url },
    });
    canceledId = job.id;
    await until(async () => (await core.store.findJob(job.id))?.status === 'running', 'the job to run', 60_000);
    const { page, close } = await pageAt(375);
    await page.goto('/jobs');
    await page.getByRole('link', { name: 'Cancel the job never-ready…' }).click();
    await page.waitForURL(`**/jobs/${job.id}/cancel`);
    expect(await page.locator('h1').textContent()).toBe('Cancel this job?');
    expect(await page.locator('main').textContent()).toContain(
      'It is rendering now: the render is stopped and no PDF is kept. No webhook is sent for a canceled job.',
    );
    // Nothing is canceled by looking at the question.
    expect((await core.store.findJob(job.id))?.status).toBe('running');
    expect(await sideways(page)).toBeLessThanOrEqual(0);
    await shoot(page, 'cancel-confirm-375');
    const wide = await pageAt(1366);
    await wide.page.goto(`/jobs/${job.id}/cancel`);
    expect(await wide.page.locator('h1').textContent()).toBe('Cancel this job?');
    await shoot(wide.page, 'cancel-confirm-1366');
    await wide.close();
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await page.waitForURL('**/jobs?notice=canceled-running');
    expect(await page.getByRole('status').textContent()).toBe(
      'The job was canceled while it was rendering. Its render was stopped, no PDF is kept, and no webhook is sent for it.',
    );
    await page.screenshot({ path: path.join(ARTIFACTS, 'newcomer-canceled-notice-375.png') });
    await close();

    for (const width of WIDTHS) {
      const { page, close } = await pageAt(width);
      await page.goto('/jobs');
      const card = page.locator(`li.job[data-job-id="${job.id}"]`);
      expect(await card.locator('.status').textContent()).toBe('Canceled');
      expect(await card.locator('.webhook').textContent()).toBe(
        `Webhook: not sent. No webhook is sent for a canceled job.\n${receiver.url}`,
      );
      expect(await sideways(page)).toBeLessThanOrEqual(0);
      await card.scrollIntoViewIfNeeded();
      await shoot(page, `jobs-canceled-${width}`);
      await card.getByRole('link', { name: job.id }).click();
      await page.waitForURL(`**/renders/${job.id}`);
      expect(await page.locator('h1').textContent()).toBe('Canceled before it printed');
      expect(await page.locator('.job-facts').textContent()).toContain('never-ready');
      expect(await sideways(page)).toBeLessThanOrEqual(0);
      await shoot(page, `render-of-canceled-${width}`);
      await close();
    }
    expect(hits.some((h) => JSON.parse(h.body).data.id === canceledId)).toBe(false);
  }, 120_000);

  it('a logo on a loopback address: the render page says loopback and the EGRESS_ALLOW value, once', async () => {
    const account = await core.accounts.findByEmail(EMAIL);
    const { key } = await core.keys.create(account?.id ?? '', 'render', 'laptop');
    const renders = new RenderClient({
      baseUrl: `http://127.0.0.1:${(render.server.address() as AddressInfo).port}`,
      apiKey: key,
    });
    // 127.0.0.2 is loopback too, and outside EGRESS_ALLOW=127.0.0.1/32: refused before any connection.
    const pdf = await renders.render('<h1>Invoice 43</h1><img src="http://127.0.0.2:8080/logo.png" alt="logo">');
    expect(pdf.warnings).toBe(1);
    expect((await renders.getRender(pdf.renderId)).warnings.map((w) => w.message)).toEqual([
      'logo.png was not loaded: its address 127.0.0.2 is loopback, the machine that renders the document; EGRESS_ALLOW=127.0.0.2/32 lets an operator allow it',
    ]);
    for (const width of WIDTHS) {
      const { page, close } = await pageAt(width);
      // Opened straight from the answer's id, before the render log's next batch: the page waits for it.
      await page.goto(`/renders/${pdf.renderId}`);
      const warning = page.locator('ol.warnings > li');
      expect(await warning.locator('h3').textContent()).toBe(
        'Not loaded: the address is the render server’s own machine (loopback)',
      );
      const text = (await warning.textContent()) ?? '';
      expect(text).toContain("127.0.0.2 (loopback: the render server's own machine)");
      expect(text).toContain('start the server with EGRESS_ALLOW=127.0.0.2/32');
      expect(text.split('EGRESS_ALLOW').length - 1).toBe(2);
      expect(await page.locator('.lead').textContent()).toMatch(/, from POST \/v1\/render\.$/);
      expect(await sideways(page)).toBeLessThanOrEqual(0);
      await shoot(page, `render-loopback-${width}`);
      await close();
    }
  }, 120_000);

  it('the Get started page imports @pageworks/client and uses the docs’ variable names', async () => {
    for (const width of WIDTHS) {
      const { page, close } = await pageAt(width);
      await page.goto('/docs');
      const main = (await page.locator('main').textContent()) ?? '';
      expect(main).toContain("import { verifyWebhook, WebhookVerificationError } from '@pageworks/client';");
      expect(main).not.toMatch(/'pageworks\/client'/);
      expect(main).toContain('export PAGEWORKS_RENDER_KEY=pwr_live_…');
      expect(main).toContain('for (const warning of event.data.warnings)');
      expect(await sideways(page)).toBeLessThanOrEqual(0);
      await shoot(page, `docs-${width}`);
      await close();
    }
  });

  it('the navigation fits one row at 375 px with the signed-in email in view', async () => {
    for (const width of WIDTHS) {
      const { page, close } = await pageAt(width);
      await page.goto('/keys');
      const tops = await page.locator('nav.nav a').evaluateAll((as) => as.map((a) => a.getBoundingClientRect().top));
      expect(tops).toHaveLength(7);
      expect(new Set(tops).size, `nav rows at ${width} px`).toBe(1);
      const who = await page.locator('.who span').evaluate((el) => {
        const r = el.getBoundingClientRect();
        return { text: el.textContent, whole: el.scrollWidth <= el.clientWidth, left: r.left, right: r.right };
      });
      expect(who.text).toBe(EMAIL);
      expect(who.whole, `the email is cut at ${width} px`).toBe(true);
      expect(who.left).toBeGreaterThanOrEqual(0);
      expect(who.right).toBeLessThanOrEqual(width);
      expect(await sideways(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(ARTIFACTS, `newcomer-nav-${width}.png`) });
      await close();
    }
  });

  it('the keys made at the first start are in the Activity log', async () => {
    const fresh = await createTestCore();
    const app = await buildDashboardApp(fresh);
    try {
      let printed = '';
      await bootstrapLocalAccount(fresh, { print: (text) => (printed += text) });
      const password = /dashboard login : \S+ \/ (\S+)/.exec(printed)?.[1] ?? '';
      const keys = [...printed.matchAll(/(pw[rm]_live_[0-9a-f]{4})/g)].map((m) => m[1]);
      expect(printed).toContain('EGRESS_ALLOW=127.0.0.1/32');
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      for (const width of WIDTHS) {
        const context = await browser.newContext({ viewport: { width, height: 800 }, baseURL: url });
        const page = await context.newPage();
        await page.goto('/login');
        await page.getByLabel('Email').fill('local@pageworks.localhost');
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.waitForURL('**/keys');
        await page.goto('/activity');
        const rows = await page.locator('.activity-key_created').allTextContents();
        expect(
          rows.map((r) =>
            r
              .replace(/\s+/g, ' ')
              .trim()
              .replace(/ \d+ \w+ \d{4}, .*/, ''),
          ),
        ).toEqual([
          `API key created · ${keys[1]}… (metadata), at the first start`,
          `API key created · ${keys[0]}… (render), at the first start`,
        ]);
        expect(rows.every((r) => r.includes('by server'))).toBe(true);
        expect(await sideways(page)).toBeLessThanOrEqual(0);
        await shoot(page, `activity-first-start-${width}`);
        await context.close();
      }
    } finally {
      await app.close();
      await closeTestCore(fresh);
    }
  }, 120_000);
});
