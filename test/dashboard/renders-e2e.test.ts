/**
 * The Renders page in Chromium on a real dashboard and store: renders reported to the render log (as
 * the renderer and the job worker report them) are listed newest first, filtered, searched by id and
 * paged, searched by document title and job reference, filtered to claimed renders; one render's page explains each warning (the logo's URL, the refused address, the exception
 * text). Both pages fit 375 px without sideways scrolling and pass axe-core at 375 and 1366 px.
 * Screenshots go to test-artifacts/renders-*.png.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { RenderLog } from '../../src/render/log/render-log.js';
import type { RenderRecord, ReportEntry } from '../../src/report/report.js';
import { launchTestBrowser, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';

const ARTIFACTS = path.resolve('test-artifacts');
const EMAIL = 'renders-browser@example.com';
const PASSWORD = 'correct horse battery staple';
const PHONE = { width: 375, height: 740 };
const LAPTOP = { width: 1366, height: 900 };
/** Polls of what a page shows get long enough for a loaded machine. */
const POLL = { timeout: 15_000 };
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const LOGO = 'https://cdn.acme-invoices.example/brand/logo-2026.png';
const EXCEPTION = "TypeError: Cannot read properties of undefined (reading 'total')";
// The mixed document of issue 28, as the renderer reports it.
const MIXED: ReportEntry[] = [
  {
    kind: 'resource_blocked',
    url: 'http://10.20.30.40/styles/brand.css',
    reason: 'private_address',
    message: 'brand.css was not loaded: its address is on a private network (EGRESS_ALLOW lets an operator allow it)',
  },
  {
    kind: 'resource_blocked',
    url: 'https://theme.intranet.invalid/theme.css',
    reason: 'unresolvable',
    message: 'theme.css was not loaded: its host name does not resolve',
  },
  { kind: 'resource_failed', url: LOGO, status: 404, message: 'logo-2026.png was not loaded: the server answered 404' },
  {
    kind: 'font_failed',
    family: 'Acme Sans',
    url: 'https://cdn.acme-invoices.example/fonts/acme-sans.woff2',
    message: 'The font "Acme Sans" did not load: its file answered 404',
  },
  { kind: 'script_error', text: EXCEPTION, message: `A script of the document threw: ${EXCEPTION}` },
];

let core: CoreDeps;
let dashboard: FastifyInstance;
let dashboardUrl: string;
let browser: Browser;
let context: BrowserContext;
let renderLog: RenderLog;
let mixedId: string;
let failedId: string;
let otherAccountsId: string;
const ids: string[] = [];

const rndId = () => `rnd_${crypto.randomBytes(12).toString('hex')}`;

beforeAll(async () => {
  core = await createTestCore();
  dashboard = await buildDashboardApp(core);
  dashboardUrl = await dashboard.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchTestBrowser();
  renderLog = new RenderLog({ store: core.store, retentionDays: 7, log: pino({ level: 'silent' }) });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await renderLog?.close();
  await dashboard?.close();
  if (core) await closeTestCore(core);
});

async function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const result = await (
      window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> } }
    ).axe.run();
    return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
  return violations;
}

/** Both widths: no sideways scrolling, no axe violation, a screenshot each. */
async function checkLayouts(page: Page, name: string): Promise<void> {
  for (const [label, size] of [
    ['375', PHONE],
    ['1366', LAPTOP],
  ] as const) {
    await page.setViewportSize(size);
    await page.reload();
    expect(await overflow(page), `${name} at ${label} px scrolls sideways`).toBeLessThanOrEqual(0);
    expect(await axeViolations(page), `${name} at ${label} px`).toEqual([]);
    await page.screenshot({ path: path.join(ARTIFACTS, `renders-${name}-${label}.png`), fullPage: true });
    await page.screenshot({ path: path.join(ARTIFACTS, `renders-${name}-${label}-top.png`) });
  }
}

describe('Renders page in Chromium', () => {
  it('lists the account’s renders newest first, with key name, status, duration, pages and warnings', async () => {
    // bypassCSP: axe-core is injected as an inline script, which the dashboard's CSP rightly refuses.
    context = await browser.newContext({ viewport: LAPTOP, baseURL: dashboardUrl, bypassCSP: true });
    const page = await context.newPage();
    await signUpInBrowser(page, EMAIL, PASSWORD);
    const account = await core.accounts.findByEmail(EMAIL);
    if (!account) throw new Error('signed-up account not found');
    const { record: key } = await core.keys.create(account.id, 'render', 'Invoices (production)');
    const now = Date.now();
    const base = (at: number, extra: Partial<RenderRecord> = {}): RenderRecord => ({
      id: rndId(),
      accountId: account.id,
      keyId: key.id,
      createdAt: at,
      durationMs: 640,
      source: 'api',
      jobId: null,
      status: 'succeeded',
      error: null,
      pages: 1,
      bytes: 21_000,
      warnings: [],
      claims: [],
      ...extra,
    });
    // 52 older clean renders (a second page), then a timed-out one, a job, and the mixed document last.
    for (let i = 52; i >= 1; i--) {
      const r = base(now - 3_600_000 - i * 60_000);
      ids.push(r.id);
      renderLog.record(r);
    }
    const failed = base(now - 120_000, {
      status: 'failed',
      error: { code: 'RENDER_TIMEOUT', message: 'render exceeded RENDER_TIMEOUT_MS (30000 ms)' },
      durationMs: 30_002,
      pages: null,
      bytes: null,
    });
    const jobId = `job_${crypto.randomBytes(16).toString('hex')}`;
    const job = base(now - 60_000, { id: jobId, source: 'job', jobId, pages: 3, durationMs: 1_900 });
    const mixed = base(now - 5_000, { warnings: MIXED, pages: 2, durationMs: 2_310 });
    for (const r of [failed, job, mixed]) renderLog.record(r);
    mixedId = mixed.id;
    failedId = failed.id;
    // Another account's render, which this account must never see.
    const other = await createKey(core, 'render');
    otherAccountsId = rndId();
    renderLog.record({ ...base(now), id: otherAccountsId, accountId: other.accountId, keyId: null });
    await renderLog.flush();

    await page.goto('/renders');
    const rows = page.locator('table.renders tbody tr');
    await expect.poll(() => rows.count(), POLL).toBe(50);
    expect(await rows.nth(0).getAttribute('data-render-id')).toBe(mixedId);
    expect(await rows.nth(1).getAttribute('data-render-id')).toBe(jobId);
    expect(await rows.nth(2).getAttribute('data-render-id')).toBe(failedId);
    const first = await rows.nth(0).textContent();
    expect(first).toContain('Invoices (production)');
    expect(first).toContain('Succeeded');
    expect(first).toContain('2.3 s');
    expect(await rows.nth(0).locator('td[data-label="Pages"]').textContent()).toBe('2');
    expect(await rows.nth(0).locator('td[data-label="Warnings"]').textContent()).toBe('5');
    expect(await rows.nth(2).locator('td[data-label="Status"]').textContent()).toBe('Failed RENDER_TIMEOUT');
    expect(await page.locator(`tr[data-render-id="${otherAccountsId}"]`).count()).toBe(0);
    await checkLayouts(page, 'list');
    // Ids are not split while the table has room, and the job's tag never is.
    const lines = (selector: string) =>
      rows
        .nth(1)
        .locator(selector)
        .evaluate((el) => {
          const range = document.createRange();
          range.selectNodeContents(el);
          return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
        });
    await page.setViewportSize(LAPTOP);
    expect(await lines('td.render-id a')).toBe(1);
    await page.setViewportSize(PHONE);
    expect(await lines('td.render-id .small')).toBe(1);

    // Older renders are one click away, and the way back.
    await page.getByRole('link', { name: 'Older' }).click();
    await page.waitForURL(/\/renders\?before=/);
    const older = await page
      .locator('table.renders tbody tr')
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-render-id')));
    // 3 + 47 on the first page; the 5 oldest, newest first, on the second.
    expect(older).toEqual(ids.slice(0, 5).reverse());
    await page.getByRole('link', { name: 'Newest' }).click();
    await page.waitForURL(/\/renders$/);
    await expect.poll(() => page.locator('table.renders tbody tr').count(), POLL).toBe(50);
  });

  it('filters to the renders with warnings or that failed', async () => {
    const page = await context.newPage();
    await page.setViewportSize(LAPTOP);
    await page.goto('/renders');
    await page.getByLabel('Only renders with warnings or that failed').check();
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL('**/renders?problems=1');
    const shown = await page
      .locator('table.renders tbody tr')
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-render-id')));
    expect(shown).toEqual([mixedId, failedId]);
    await page.close();
  });

  it('finds a render by its id and explains each warning in plain words', async () => {
    const page = await context.newPage();
    await page.setViewportSize(LAPTOP);
    await page.goto('/renders');
    await page.getByLabel('Render id').fill(` ${mixedId} `);
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForURL(`**/renders/${mixedId}`);
    await expect.poll(() => page.getByRole('heading', { level: 2, name: '5 warnings' }).count(), POLL).toBe(1);
    const warnings = page.locator('ol.warnings > li');
    expect(await warnings.count()).toBe(5);
    const text = await page.locator('ol.warnings').textContent();
    // The logo's URL, the refused address and the exception text, each where a person looks for it.
    expect(await warnings.nth(2).textContent()).toContain(LOGO);
    expect(await warnings.nth(2).textContent()).toContain('HTTP 404');
    expect(await warnings.nth(0).textContent()).toContain('10.20.30.40');
    expect(await warnings.nth(0).textContent()).toContain('EGRESS_ALLOW lets an operator allow a private address');
    expect(await warnings.nth(1).textContent()).toContain('theme.intranet.invalid');
    expect(await warnings.nth(3).textContent()).toContain('Acme Sans');
    expect(await warnings.nth(4).textContent()).toContain(EXCEPTION);
    expect((text ?? '').match(/What to do:/g)).toHaveLength(5);
    // Beside "Succeeded", the badge says it printed without everything and leads to the warnings.
    const badge = page.locator('.page-head .status');
    expect(await badge.textContent()).toBe('Succeeded · 5 warnings');
    expect(await badge.getAttribute('href')).toBe('#warnings-title');
    expect(await page.locator('main').textContent()).toContain('Invoices (production)');
    await checkLayouts(page, 'detail');

    // A failed render shows its code and message.
    await page.goto(`/renders/${failedId}`);
    expect(await page.locator('.job-error').textContent()).toBe('RENDER_TIMEOUT render exceeded RENDER_TIMEOUT_MS (30000 ms)');
    expect(await page.getByRole('heading', { level: 2, name: 'No warnings' }).count()).toBe(1);

    // A strict render refused for its warnings printed a PDF that nobody received: the page says so.
    const account = await core.accounts.findByEmail(EMAIL);
    // A render of this account, reported as the renderer reports one; `extra` says how it differs.
    const recordOwn = (id: string, extra: Partial<RenderRecord>) =>
      renderLog.record({
        id,
        accountId: account?.id ?? '',
        keyId: null,
        createdAt: Date.now() - 1000,
        durationMs: 700,
        source: 'api',
        jobId: null,
        status: 'succeeded',
        error: null,
        pages: 1,
        bytes: 10_521,
        warnings: [],
        claims: [],
        ...extra,
      });
    const strictId = rndId();
    recordOwn(strictId, {
      status: 'failed',
      error: { code: 'RENDER_INCOMPLETE', message: 'the document could not get everything (1 warning)' },
      warnings: MIXED.slice(2, 3),
    });
    await renderLog.flush();
    await page.goto(`/renders/${strictId}`);
    expect(await page.locator('dd', { hasText: 'KB' }).textContent()).toBe('10.5 KB · 1 page (printed, not delivered)');
    // The red block says why nothing was delivered; the warning itself is listed once, below it.
    expect(await page.locator('.job-error').textContent()).toBe(
      'RENDER_INCOMPLETE Strict handling was asked for and the document could not get everything, so no PDF was delivered. The warning below is why.',
    );
    expect(await page.locator('.page-head .status').textContent()).toBe('Failed');

    // A profile the document declared and could not meet: what to do is the entry's own words.
    const declaredId = rndId();
    const lang =
      'The document does not say its language (<html lang="…">), so a screen reader cannot tell which language to read it in: add lang to <html>';
    recordOwn(declaredId, {
      warnings: [{ kind: 'conformance', profile: 'PDF/UA-1', clause: '7.2-34', element: 'html', message: lang }],
      claims: ['PDF/A-3b'],
    });
    await renderLog.flush();
    await page.goto(`/renders/${declaredId}`);
    expect(await page.locator('ol.warnings > li h3').textContent()).toBe('The PDF does not claim PDF/UA-1');
    expect(await page.locator('.warning-advice').textContent()).toBe(
      `What to do: ${lang}. The PDF was made without that claim. What PDF/UA-1 needs, and how to check a PDF.`,
    );
    // The advice links to the standards section of the Docs page, which says the claim rule and how to verify.
    await page.getByRole('link', { name: 'What PDF/UA-1 needs, and how to check a PDF' }).click();
    await page.waitForURL(/\/docs#docs-standards$/);
    const standards = page.locator('section', { has: page.locator('#docs-standards') });
    expect(await standards.isVisible()).toBe(true);
    expect(await standards.textContent()).toContain('the PDF claims a standard only when it meets it');
    expect(await standards.textContent()).toContain('verapdf --flavour 3b invoice.pdf');

    // Refused by strict handling for a claim alone: the page names the claim and speaks of no PDF made.
    const refusedId = rndId();
    recordOwn(refusedId, {
      status: 'failed',
      error: { code: 'RENDER_INCOMPLETE', message: 'PDF/UA-1 could not be claimed (1 warning, strict handling): …' },
      warnings: [{ kind: 'conformance', profile: 'PDF/UA-1', clause: '7.2-34', element: 'html', message: lang }],
    });
    await renderLog.flush();
    await page.goto(`/renders/${refusedId}`);
    expect(await page.locator('.job-error').textContent()).toBe(
      'RENDER_INCOMPLETE Strict handling was asked for and PDF/UA-1 could not be claimed, so no PDF was delivered. The warning below is why.',
    );
    expect(await page.locator('.warning-advice').textContent()).toBe(
      `What to do: ${lang}. No PDF was delivered, so nothing was claimed. What PDF/UA-1 needs, and how to check a PDF.`,
    );
    expect(await page.locator('main').textContent()).not.toMatch(/PDF was made|could not get everything/);
    for (const [label, viewport] of [
      ['375', PHONE],
      ['1366', LAPTOP],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.screenshot({ path: path.join(ARTIFACTS, `renders-refused-claim-${label}.png`), fullPage: true });
    }
    await page.close();
  });

  it('says so for an id it does not know, and never shows another account’s render', async () => {
    const page = await context.newPage();
    await page.setViewportSize(PHONE);
    await page.goto('/renders');
    await page.getByLabel('Render id').fill(otherAccountsId);
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForURL(/\/renders\?q=/);
    await expect
      .poll(() => page.getByRole('status').textContent(), POLL)
      .toContain(`No render ${otherAccountsId} in your account`);
    const res = await page.goto(`/renders/${otherAccountsId}`);
    expect(res?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Render not found');
    expect((await page.goto('/renders/not-a-render-id'))?.status()).toBe(404);
    await page.close();
  });

  it('shows each render’s title and claims, searches by title and reference, and filters to claimed renders', async () => {
    const page = await context.newPage();
    const account = await core.accounts.findByEmail(EMAIL);
    if (!account) throw new Error('signed-up account not found');
    const now = Date.now();
    const own = (id: string, at: number, extra: Partial<RenderRecord>): RenderRecord => ({
      id,
      accountId: account.id,
      keyId: null,
      createdAt: at,
      durationMs: 800,
      source: 'api',
      jobId: null,
      status: 'succeeded',
      error: null,
      pages: 1,
      bytes: 30_000,
      warnings: [],
      claims: [],
      ...extra,
    });
    // A titled PDF/A-3b invoice; a job with a reference whose document has a 300-character one-word title
    // and markup in it (escaped, never markup); and an untitled render.
    const invoiceId = rndId();
    const jobId = `job_${crypto.randomBytes(16).toString('hex')}`;
    const untitledId = rndId();
    const longTitle = `<b>Lieferschein</b>${'Ü'.repeat(282)}`;
    renderLog.record(own(invoiceId, now + 3_000, { title: 'Invoice 2026-0042 Müller & Söhne', claims: ['PDF/A-3b'] }));
    renderLog.record(own(jobId, now + 2_000, { source: 'job', jobId, reference: 'PO-7731', title: longTitle }));
    renderLog.record(own(untitledId, now + 1_000, {}));
    await renderLog.flush();

    await page.setViewportSize(LAPTOP);
    await page.goto('/renders');
    const head = await page.locator('table.renders thead th').allTextContents();
    expect(head).toEqual(['Time', 'Render', 'Title', 'Key', 'Status', 'Claims', 'Duration', 'Pages', 'Warnings']);
    const cell = (id: string, label: string) =>
      page.locator(`tr[data-render-id="${id}"] td[data-label="${label}"]`).textContent();
    expect(await cell(invoiceId, 'Title')).toBe('Invoice 2026-0042 Müller & Söhne');
    expect(await cell(invoiceId, 'Claims')).toBe('PDF/A-3b');
    // Kept to 300 characters, as a record keeps a title.
    expect(await cell(jobId, 'Title')).toBe(`${longTitle.slice(0, 300)}Reference PO-7731`);
    expect(await page.locator(`tr[data-render-id="${jobId}"] td[data-label="Title"] b`).count()).toBe(0);
    expect(await cell(jobId, 'Claims')).toBe('none');
    expect(await cell(untitledId, 'Title')).toBe('untitled');
    // The title wraps within its column: nothing scrolls sideways at either width.
    for (const [label, size] of [
      ['1366', LAPTOP],
      ['375', PHONE],
    ] as const) {
      await page.setViewportSize(size);
      expect(await overflow(page), `the list at ${label} px scrolls sideways`).toBeLessThanOrEqual(0);
      expect(await axeViolations(page), `the list at ${label} px`).toEqual([]);
      await page.screenshot({ path: path.join(ARTIFACTS, `renders-titles-${label}-top.png`) });
    }

    const shown = () =>
      page.locator('table.renders tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-render-id')));
    // By part of the title, in another case: the invoice, not the others.
    await page.getByLabel('Render id, title or reference').fill('invoice 2026');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForURL(/\/renders\?q=invoice\+2026$/);
    expect(await shown()).toEqual([invoiceId]);
    expect(await page.getByLabel('Render id, title or reference').inputValue()).toBe('invoice 2026');
    await page.screenshot({ path: path.join(ARTIFACTS, 'renders-search-375.png'), fullPage: true });
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    // By a job's reference.
    await page.getByLabel('Render id, title or reference').fill('po-7731');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForURL(/\/renders\?q=po-7731$/);
    expect(await shown()).toEqual([jobId]);
    // Nothing found says what was searched for.
    await page.goto('/renders?q=%25nothing_');
    expect(await shown()).toEqual([]);
    expect(await page.locator('p.empty').textContent()).toBe('No render whose title or reference contains “%nothing_”.');

    // The claims filter: only the claimed invoice of all this account's renders.
    await page.setViewportSize(LAPTOP);
    await page.goto('/renders');
    await page.getByLabel('Only renders that claim a standard').check();
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL('**/renders?claims=1');
    // The invoice and the PDF/A-3b render of the warnings test above; none of the 50-odd that claim nothing.
    const claimed = await shown();
    expect(claimed).toHaveLength(2);
    expect(claimed[0]).toBe(invoiceId);
    expect(await page.locator('td[data-label="Claims"]').allTextContents()).toEqual(['PDF/A-3b', 'PDF/A-3b']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'renders-claimed-1366.png'), fullPage: true });
    // One render's page shows its title too.
    await page.goto(`/renders/${invoiceId}`);
    expect(await page.locator('dd.doc-title').textContent()).toBe('Invoice 2026-0042 Müller & Söhne');
    await page.close();
  });
});
