/**
 * The Jobs page in Chromium, on real servers: a render service (worker and webhook dispatcher on) and
 * the dashboard on one store, a loopback webhook receiver. A signed-in person sees their jobs, downloads
 * a PDF, redelivers a webhook, reveals the signing secret, rotates it after a confirmation (the new one is
 * shown once, the old one still signs), cancels a running job, pages through older jobs, and the pages fit
 * a phone without sideways scrolling with no Copy button over code. Screenshots go to test-artifacts/jobs-*.png.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { JobsClient } from '../../src/client/index.js';
import { newTimeOrderedId } from '../../src/ids.js';
import { WebhookSecrets } from '../../src/jobs/webhook-secrets.js';
import { launchTestBrowser, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { queueJob } from '../helpers/webhook-jobs.js';
import { type Delivery, startWebhookSink, type WebhookSink } from '../helpers/webhook-sink.js';
import { pdfInfo } from '../render/pdf-tools.js';

/** Screenshots, for a person to look at after a run (as the other dashboard suites keep theirs). */
const ARTIFACTS = path.resolve('test-artifacts');

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
  fs.mkdirSync(ARTIFACTS, { recursive: true });
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
    await page.screenshot({ path: path.join(ARTIFACTS, 'jobs-laptop.png'), fullPage: true });
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
    await page.waitForURL('**/jobs?notice=redelivered');
    expect(await page.getByRole('status').textContent()).toContain('The webhook is queued for delivery again');
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
    await page.screenshot({ path: path.join(ARTIFACTS, 'jobs-redelivered.png'), fullPage: true });
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
      await page.screenshot({ path: path.join(ARTIFACTS, `jobs-phone-${width}.png`), fullPage: true });
      await phone.close();
    }
  });

  it('rotates the secret after a confirmation, shows the new one once; the next delivery verifies with both', async () => {
    const page = await context.newPage();
    await page.goto('/jobs');
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    const old = (await page.locator('#webhook-secret').textContent()) ?? '';
    await page.getByRole('link', { name: 'Rotate secret…' }).click();
    await page.waitForURL('**/jobs/webhook-secret/rotate');
    expect(await page.getByRole('heading', { name: 'Rotate the webhook secret?' }).isVisible()).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'jobs-rotate-confirm-1366.png'), fullPage: true });
    // Nothing changed yet.
    const accountId = (await core.accounts.findByEmail(EMAIL))?.id ?? '';
    expect(await new WebhookSecrets(core.store, core.secrets?.box).get(accountId)).toBe(old);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const fresh = (await page.locator('#webhook-secret').textContent()) ?? '';
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(old);
    expect(await page.getByRole('status').first().textContent()).toContain('This is the only time it is shown');
    await page.screenshot({ path: path.join(ARTIFACTS, 'jobs-rotated-1366.png'), fullPage: true });
    // Shown once: the page after it has the Reveal button again, not the secret.
    await page.goto('/jobs');
    expect(await page.locator('#webhook-secret').count()).toBe(0);
    // The next delivery carries both signatures; each secret verifies it alone.
    const before = hits.length;
    const id = jobIds[1] as string;
    const card = page.locator(`li.job[data-job-id="${id}"]`);
    await card.locator('summary').click();
    await card.getByRole('button', { name: /Redeliver/ }).click();
    await until(() => hits.length > before, 'the delivery after the rotation');
    const hit = hits.at(-1) as Delivery;
    expect(() => new Webhook(fresh).verify(hit.body, hit.headers)).not.toThrow();
    expect(() => new Webhook(old).verify(hit.body, hit.headers)).not.toThrow();
    await page.goto('/activity');
    const log = (await page.locator('main').textContent()) ?? '';
    expect(log).toContain('Webhook signing secret rotated');
    expect(log).toContain('Webhook signing secret revealed');
    await page.close();
  });

  it('cancels a running job with its Cancel button; the card says no webhook is sent', async () => {
    const account = await core.accounts.findByEmail(EMAIL);
    const { key } = await core.keys.create(account?.id ?? '', 'render', 'cancel test');
    const client = new JobsClient({ baseUrl: `http://127.0.0.1:${(render.server.address() as AddressInfo).port}`, apiKey: key });
    // A document that never says it is ready: the job runs until RENDER_TIMEOUT_MS unless canceled.
    const job = await client.submit({
      html: '<script>window.pageworksReady = new Promise(() => {});</script><h1>Never ready</h1>',
      reference: 'never-ready',
      webhook: { url: hookUrl },
    });
    await until(async () => (await core.store.findJob(job.id))?.status === 'running', 'the job to run');
    for (const width of [1366, 375]) {
      const narrow = await browser.newContext({
        viewport: { width, height: 900 },
        baseURL: dashboardUrl,
        storageState: await context.storageState(),
      });
      const page = await narrow.newPage();
      await page.goto('/jobs');
      const card = page.locator(`li.job[data-job-id="${job.id}"]`);
      if (width === 375) {
        expect(await card.locator('.status').textContent()).toBe('Canceled');
        expect(await card.textContent()).toContain('No webhook is sent for a canceled job');
        expect(await overflow(page)).toEqual({ scrollWidth: width, innerWidth: width });
        await card.scrollIntoViewIfNeeded();
        await page.screenshot({ path: path.join(ARTIFACTS, 'jobs-canceled-375.png') });
      } else {
        expect(await card.locator('.status').textContent()).toBe('Running');
        await card.scrollIntoViewIfNeeded();
        await page.screenshot({ path: path.join(ARTIFACTS, 'jobs-running-1366.png') });
        await card.getByRole('link', { name: /Cancel the job never-ready/ }).click();
        await page.getByRole('button', { name: 'Cancel job' }).click();
        await page.waitForURL('**/jobs?notice=canceled-running');
        expect(await page.getByRole('status').textContent()).toContain('The job was canceled');
        expect(await page.locator(`li.job[data-job-id="${job.id}"] .job-actions`).count()).toBe(0);
      }
      await narrow.close();
    }
    expect((await client.get(job.id)).status).toBe('canceled');
    await new Promise((r) => setTimeout(r, 1500));
    expect(hits.some((h) => JSON.parse(h.body).data.id === job.id)).toBe(false);
  }, 120_000);

  it('pages through older jobs with Older jobs / Newest jobs', async () => {
    const accountId = (await core.accounts.findByEmail(EMAIL))?.id ?? '';
    // 50 more jobs, submitted before the others (older), straight into the store.
    for (let i = 0; i < 50; i++) {
      const at = Date.UTC(2026, 0, 1) + i * 1000;
      await queueJob(core.store, accountId, {
        id: newTimeOrderedId('job', at),
        createdAt: at,
        reference: `january-${String(i + 1).padStart(2, '0')}`,
        webhookUrl: null,
      });
    }
    const page = await context.newPage();
    await page.goto('/jobs');
    expect(await page.locator('li.job').count()).toBe(50);
    await page.getByRole('link', { name: 'Older jobs' }).click();
    await page.waitForURL('**/jobs?cursor=*');
    const names = await page.locator('li.job .job-name').allTextContents();
    // 53 jobs in all: the three oldest of January on the second page, oldest last.
    expect(names).toEqual(['january-03', 'january-02', 'january-01']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'jobs-page2-1366.png'), fullPage: true });
    await page.getByRole('link', { name: 'Newest jobs' }).click();
    await page.waitForURL(/\/jobs$/);
    expect(await page.locator('li.job').count()).toBe(50);
    await page.close();
  });

  it('Copy buttons never cover code (Get started, the new key panel) at 360, 375 and 1366 px', async () => {
    for (const width of [360, 375, 1366]) {
      const ctx = await browser.newContext({
        viewport: { width, height: 800 },
        baseURL: dashboardUrl,
        storageState: await context.storageState(),
      });
      const page = await ctx.newPage();
      await page.goto('/docs');
      expect(await page.getByRole('heading', { name: 'Render jobs and webhooks' }).isVisible()).toBe(true);
      expect(await page.locator('#verify-webhook').textContent()).toContain('verifyWebhook(process.env.PAGEWORKS_WEBHOOK_SECRET');
      expect(await page.locator('#curl-job').textContent()).toContain('"webhook": {"url":');
      await expectNoCopyOverCode(page, width);
      await page.screenshot({ path: path.join(ARTIFACTS, `jobs-docs-${width}.png`), fullPage: true });
      await page
        .locator('section[aria-labelledby="docs-jobs"]')
        .screenshot({ path: path.join(ARTIFACTS, `jobs-docs-jobs-${width}.png`) });
      await page.goto('/keys');
      await page.getByRole('button', { name: 'Create render key' }).click();
      await page.waitForURL('**/keys?created=*');
      await expectNoCopyOverCode(page, width);
      await page.locator('#new-key').screenshot({ path: path.join(ARTIFACTS, `jobs-keypanel-${width}.png`) });
      await ctx.close();
    }
  }, 120_000);
});

/** Every visible Copy button lies outside the box of every code block (and the page does not scroll sideways). */
async function expectNoCopyOverCode(page: Page, width: number): Promise<void> {
  const overlaps = await page.evaluate(() => {
    const boxes = (sel: string) => Array.from(document.querySelectorAll(sel)).map((e) => ({ e, r: e.getBoundingClientRect() }));
    const buttons = boxes('[data-copy]').filter(({ e }) => !(e as HTMLElement).hidden);
    const code = boxes('pre, input[data-select-on-focus]');
    const found: string[] = [];
    for (const b of buttons) {
      for (const c of code) {
        const apart = b.r.right <= c.r.left || b.r.left >= c.r.right || b.r.bottom <= c.r.top || b.r.top >= c.r.bottom;
        if (!apart) found.push(`${b.e.getAttribute('data-copy')} over ${c.e.id}`);
      }
    }
    return { found, buttons: buttons.length };
  });
  expect(overlaps.buttons, `${width} px: copy buttons shown`).toBeGreaterThan(0);
  expect(overlaps.found, `${width} px`).toEqual([]);
  expect(await overflow(page), `${width} px`).toEqual({ scrollWidth: width, innerWidth: width });
}
