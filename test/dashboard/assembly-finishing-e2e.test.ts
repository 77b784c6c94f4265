/**
 * An assembly's render page in Chromium: a statement whose terms lose their cover page and are turned, a
 * "Page {{page}} of {{pages}}" footer, a watermark, its metadata and a stamp carrying a script. The page
 * shows each as text a person reads (the script as its source, never run, even with the page's CSP
 * bypassed), fits a phone and a laptop without sideways scrolling, passes axe, and is photographed
 * (test-artifacts/assembly-finishing-*.png).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { fixture, page as htmlPage, postAssemble } from '../assemble/helpers.js';
import { axeViolations, launchTestBrowser, sidewaysOverflow, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';

const SCREENS = process.env.SCREENS_DIR ?? path.resolve('test-artifacts');
const EMAIL = 'assembly-finishing@example.com';
const PASSWORD = 'correct horse battery staple';
const FOOTER =
  '<!doctype html><html><head><style>.n { position: absolute; bottom: 18pt; right: 30pt; font: 9pt sans-serif }</style></head>' +
  '<body><div class="n">Page {{page}} of {{pages}}</div></body></html>';
const PAID =
  '<div style="position:absolute; top:40%; width:100%; text-align:center; font: bold 60pt sans-serif; color: #d0e8d0">PAID</div>';
const SCRIPTED = '<p class="copy">COPY</p><script>document.title = "ran"; document.body.dataset.ran = "yes"</script>';

let core: CoreDeps;
let app: FastifyInstance;
let dashboard: FastifyInstance;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  core = await createTestCore({ RENDER_RATE_LIMIT: '1000' });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  dashboard = await buildDashboardApp(core);
  const baseURL = await dashboard.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchTestBrowser();
  // bypassCSP: axe-core is injected as an inline script; it also means a stamp's script, were it markup, would run.
  context = await browser.newContext({ viewport: { width: 1366, height: 900 }, baseURL, bypassCSP: true });
  fs.mkdirSync(SCREENS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.close();
  await dashboard?.close();
  if (core) await closeTestCore(core);
});

const cellTexts = (page: Page, row: string) => page.locator(`${row} td`).allTextContents();

describe('an assembly’s render page in Chromium', () => {
  it('shows the parts’ titles and page selections, the stamps and the metadata, and runs nothing of the stamp', async () => {
    const page = await context.newPage();
    await signUpInBrowser(page, EMAIL, PASSWORD);
    const account = await core.accounts.findByEmail(EMAIL);
    if (!account) throw new Error('signed-up account not found');
    const { key } = await core.keys.create(account.id, 'render', 'Statements');
    const res = await postAssemble(app, key, {
      parts: [
        { html: htmlPage('Account summary', 'Balance 1,204.50'), title: 'Summary' },
        { pdf: fixture('terms-objstm.pdf').toString('base64'), title: 'Terms and conditions', pages: '2-', rotate: 90 },
        { html: htmlPage('Annex') },
      ],
      stamps: [{ html: FOOTER }, { html: PAID, pages: '1', layer: 'under' }, { html: SCRIPTED, pages: '-1' }],
      metadata: { title: 'Statement November 2026', author: 'Northwind Savings', lang: 'en-GB' },
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    await app.renderLog.flush();

    await page.goto(`/renders/${res.headers['x-render-id']}`);
    expect(await cellTexts(page, 'tr[data-part="parts[1]"]')).toEqual([
      'parts[1]',
      'Terms and conditions',
      'PDF, sent with the request',
      '2- turned 90°',
      '1',
      '0',
    ]);
    expect(await page.locator('tr[data-part="parts[0]"] .part-title').textContent()).toBe('Summary');
    expect(await page.locator('tr[data-part="parts[2]"] .part-title').textContent()).toBe('Annex');
    expect(await page.locator('tr[data-part="parts[0]"] .part-pages').textContent()).toBe('all');

    expect(await page.locator('tr[data-stamp="0"] .stamp-text').textContent()).toBe('Page {{page}} of {{pages}}');
    expect(await page.locator('tr[data-stamp="0"] td[data-label="Pages"]').textContent()).toBe('every page (3 pages)');
    expect(await page.locator('tr[data-stamp="1"] td[data-label="Layer"]').textContent()).toBe('Under the content (watermark)');
    expect(await page.locator('tr[data-stamp="1"] td[data-label="Pages"]').textContent()).toBe('1 (1 page)');
    expect(await page.locator('tr[data-stamp="2"] .stamp-source').textContent()).toBe(SCRIPTED);
    expect(await page.locator('tr[data-stamp="2"] .stamp-text').textContent()).toBe('COPY');
    // The stamp's markup is text: no element of it exists and its script did not run.
    expect(await page.locator('p.copy').count()).toBe(0);
    expect(await page.evaluate(() => [document.title, document.body.dataset.ran ?? 'no'])).toEqual([
      `Render ${res.headers['x-render-id']} · Pageworks`,
      'no',
    ]);

    const metadata = await page.locator('.assembly-metadata > div').allTextContents();
    expect(metadata).toEqual(['TitleStatement November 2026', 'AuthorNorthwind Savings', 'Languageen-GB']);
    expect(await page.getByRole('heading', { name: 'How it was finished' }).isVisible()).toBe(true);

    for (const [label, viewport] of [
      ['375', { width: 375, height: 740 }],
      ['1366', { width: 1366, height: 900 }],
    ] as const) {
      await page.setViewportSize(viewport);
      expect(await sidewaysOverflow(page), `sideways at ${label} px`).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(SCREENS, `assembly-finishing-${label}.png`), fullPage: true });
    }
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  }, 120_000);
});
