/**
 * The Jobs page in Chromium, on real servers: a render service (worker and webhook dispatcher on) and
 * the dashboard on one store, a loopback webhook receiver. A signed-in person sees their jobs, downloads
 * a PDF, redelivers a webhook, reveals the signing secret, and the page fits a phone without sideways
 * scrolling. Screenshots go to /tmp/jobs-*.png.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { JobsClient } from '../../src/client/index.js';
import { launchTestBrowser, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { type Delivery, startWebhookSink, type WebhookSink } from '../helpers/webhook-sink.js';
import { pdfInfo } from '../render/pdf-tools.js';

const EMAIL = 'jobs-browser@example.com';
const PASSWORD = 'correct horse battery staple';

let core: CoreDeps;
let render: FastifyInstance;
let dashboard: FastifyInstance;
let dashboardUrl: string;
let browser: Browser;
let context: BrowserContext;
let receiver: WebhookSink;
let hookUrl: string;
const hits: Delivery[] = [];
const jobIds: string[] = [];

beforeAll(async () => {
  receiver = await startWebhookSink(hits, { status: 200, path: '/hooks' });
  hookUrl = receiver.url;
  core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32', RENDER_CONCURRENCY: '1' });
  render = await buildRenderApp(core);
  await render.listen({ host: '127.0.0.1', port: 0 });
  dashboard = await buildDashboardApp(core);
  dashboardUrl = await dashboard.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchTestBrowser();
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await dashboard?.close();
  await render?.close();
  if (core) await closeTestCore(core);
  await receiver?.close();
});

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function overflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
}

describe('Jobs page in Chromium', () => {
  it('lists the jobs of the signed-in account after they ran through the API', async () => {
    context = await browser.newContext({ viewport: { width: 1366, height: 900 }, baseURL: dashboardUrl, acceptDownloads: true });
    const page = await context.newPage();
    await signUpInBrowser(page, EMAIL, PASSWORD);
    const account = await core.accounts.findByEmail(EMAIL);
    if (!account) throw new Error('signed-up account not found');
    const { key } = await core.keys.create(account.id, 'render', 'jobs test');
    const client = new JobsClient({ baseUrl: `http://127.0.0.1:${(render.server.address() as AddressInfo).port}`, apiKey: key });
    for (const [i, ref] of ['invoice-2025-0041', 'invoice-2025-0042 for a customer with a rather long name'].entries()) {
      const job = await client.submit({
        html: `<h1>Invoice ${41 + i}</h1>${i === 1 ? '<p style="page-break-before:always">2</p>' : ''}`,
        reference: ref,
        webhook: { url: hookUrl },
      });
      jobIds.push(job.id);
      expect((await client.wait(job.id, { timeoutMs: 90_000, intervalMs: 100 })).status).toBe('succeeded');
    }
    await until(
      async () => (await Promise.all(jobIds.map((id) => core.store.findJob(id)))).every((r) => r?.webhook_state === 'delivered'),
      'webhooks delivered',
    );

    await page.goto('/jobs');
    await expect(page.getByRole('heading', { name: 'Render jobs' }).isVisible()).resolves.toBe(true);
    const cards = page.locator('li.job');
    expect(await cards.count()).toBe(2);
    // Newest first.
    expect(await cards.nth(0).getAttribute('data-job-id')).toBe(jobIds[1]);
    const newest = cards.nth(0);
    expect(await newest.locator('.job-name').textContent()).toBe('invoice-2025-0042 for a customer with a rather long name');
    expect(await newest.locator('.status').textContent()).toBe('Succeeded');
    expect(await newest.locator('.job-facts').textContent()).toMatch(/Duration\s*[\d.]+ (ms|s)/);
    expect(await newest.locator('.job-facts').textContent()).toMatch(/Size\s*[\d.]+ KB · 2 pages/);
    expect(await newest.locator('summary').textContent()).toBe('Webhook: delivered · 1 attempt');
    await page.screenshot({ path: '/tmp/jobs-laptop.png', fullPage: true });
  }, 240_000);

  it('downloads a job’s PDF', async () => {
    const page = await context.newPage();
    await page.goto('/jobs');
    const card = page.locator(`li.job[data-job-id="${jobIds[1]}"]`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      card.getByRole('link', { name: 'Download PDF' }).click(),
    ]);
    const file = await download.path();
    const pdf = fs.readFileSync(file);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdfInfo(pdf).pages).toBe(2);
    expect(download.suggestedFilename()).toBe('invoice-2025-0042 for a customer with a rather long name.pdf');
    await page.close();
  });

  it('redelivers a webhook: the receiver gets it again with the same webhook-id, and the attempt is listed', async () => {
    const page = await context.newPage();
    await page.goto('/jobs');
    const id = jobIds[0] as string;
    const card = page.locator(`li.job[data-job-id="${id}"]`);
    await card.locator('summary').click();
    const before = hits.length;
    await card.getByRole('button', { name: /Redeliver/ }).click();
    await page.waitForURL(`**/jobs?redelivered=${id}`);
    expect(await page.getByRole('status').textContent()).toContain(`The webhook of ${id} is queued for delivery again.`);
    await until(() => hits.length > before, 'the redelivery');
    const again = hits.slice(before).filter((h) => JSON.parse(h.body).data.id === id);
    expect(again).toHaveLength(1);
    const firstTime = hits.slice(0, before).find((h) => JSON.parse(h.body).data.id === id);
    expect(again[0]?.headers['webhook-id']).toBe(firstTime?.headers['webhook-id']);
    await until(
      async () => (await core.store.listWebhookDeliveries((await core.accounts.findByEmail(EMAIL))?.id ?? '', [id])).length === 2,
      'two attempts stored',
    );
    await page.goto('/jobs');
    const summary = page.locator(`li.job[data-job-id="${id}"] summary`);
    expect(await summary.textContent()).toBe('Webhook: delivered · 2 attempts');
    await summary.click();
    const attempts = page.locator(`li.job[data-job-id="${id}"] li.delivery`);
    expect(await attempts.allTextContents()).toEqual([
      expect.stringMatching(/^\s*200\s*attempt 2\s*just now/),
      expect.stringMatching(/^\s*200\s*attempt 1\s*just now/),
    ]);
    await page.screenshot({ path: '/tmp/jobs-redelivered.png', fullPage: true });
    await page.close();
  });

  it('reveals the signing secret on demand; it verifies what the receiver got', async () => {
    const page = await context.newPage();
    await page.goto('/jobs');
    expect(await page.locator('#webhook-secret').count()).toBe(0);
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    const secret = (await page.locator('#webhook-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    const hit = hits[0];
    if (!hit) throw new Error('no webhook received');
    expect(() => new Webhook(secret).verify(hit.body, hit.headers)).not.toThrow();
    await page.close();
  });

  it('at 375 and 360 px wide the Jobs page does not scroll sideways', async () => {
    for (const width of [375, 360]) {
      const phone = await browser.newContext({
        viewport: { width, height: 740 },
        baseURL: dashboardUrl,
        storageState: await context.storageState(),
      });
      const page = await phone.newPage();
      await page.goto('/jobs');
      // The longest state of the page: the secret shown and every job's deliveries open.
      await page.getByRole('button', { name: 'Reveal secret' }).click();
      for (const summary of await page.locator('li.job summary').all()) await summary.click();
      expect(await overflow(page), `${width} px`).toEqual({ scrollWidth: width, innerWidth: width });
      await page.screenshot({ path: `/tmp/jobs-phone-${width}.png`, fullPage: true });
      await phone.close();
    }
  });
});
