/**
 * What a PDF claims, from the document to the dashboard: a document declaring PDF/A-3b is rendered for
 * real through POST /v1/render, its record goes through the render log to the store, and the render's
 * page in Chromium says what the PDF claims; a plain render's page says nothing about standards. A strict
 * render refused for a claim delivered nothing, so its record claims nothing and the "claim a standard"
 * filter leaves it out; an assembly is listed by its title.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { createEgressPolicy } from '../../src/net/policy.js';
import { RenderLog } from '../../src/render/log/render-log.js';
import { launchTestBrowser, signUpInBrowser } from '../helpers/browser.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { startRenderService } from '../helpers/render-service.js';

/** Declares PDF/UA-1 and shows an image without alternative text: not claimable, so strict handling refuses it. */
const NO_ALT =
  '<html lang="en"><head><title>Refused statement</title><meta name="pdf-profile" content="PDF/UA-1"></head><body><h1>Statement</h1>' +
  '<img width="8" height="8" src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="></body></html>';
const titled = (title: string) =>
  `<html lang="en"><head><title>${title}</title><meta name="pdf-profile" content="PDF/A-3b"></head><body><h1>${title}</h1></body></html>`;

const SCREENS = process.env.SCREENS_DIR ?? path.resolve('test-artifacts');
const EMAIL = 'render-claims@example.com';
const PASSWORD = 'correct horse battery staple';
const POLL = { timeout: 15_000 };

let core: CoreDeps;
let service: FastifyInstance;
/** The render app as it runs (POST /v1/assemble, GET /v1/renders/{id}), recording to the same render log. */
let assembler: FastifyInstance;
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
  assembler = await buildRenderApp(core, { lookup: noDns, startJobWorker: false, recorder: renderLog });
  dashboard = await buildDashboardApp(core);
  dashboardUrl = await dashboard.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchTestBrowser();
  fs.mkdirSync(SCREENS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await service?.close();
  await assembler?.close();
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

  it("lists an assembly by its first part's title, and a strict render refused for a claim as claiming nothing", async () => {
    const page = await context.newPage();
    const account = await core.accounts.findByEmail(EMAIL);
    if (!account) throw new Error('signed-up account not found');
    const { key } = await core.keys.create(account.id, 'render', 'Assemblies');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const assembled = await assembler.inject({
      method: 'POST',
      url: '/v1/assemble',
      headers,
      payload: JSON.stringify({ parts: [{ html: titled('Quarterly statement Q3') }, { html: titled('Annex') }] }),
    });
    expect(assembled.statusCode, assembled.body.slice(0, 300)).toBe(200);
    expect(assembled.headers['x-render-claims']).toBe('PDF/A-3b');
    const refused = await postRender(service, key, { html: NO_ALT }, { prefer: 'handling=strict' });
    expect(refused.statusCode).toBe(422);
    await renderLog.flush();
    const assemblyId = String(assembled.headers['x-render-id']);
    const refusedId = String(refused.headers['x-render-id']);

    const record = await assembler.inject({ method: 'GET', url: `/v1/renders/${refusedId}`, headers });
    expect(record.json()).toMatchObject({ status: 'failed', pages: null, bytes: null, claims: [] });
    expect(record.json().warnings.map((w: { kind: string }) => w.kind)).toEqual(['conformance']);

    await page.goto('/renders');
    const title = (id: string) => page.locator(`tr[data-render-id="${id}"] .doc-title`).textContent();
    await expect.poll(() => title(assemblyId), POLL).toBe('Quarterly statement Q3');
    expect(await title(refusedId)).toBe('Refused statement');
    expect(await page.locator(`tr[data-render-id="${refusedId}"] .claims`).textContent()).toBe('none');
    await page.goto('/renders?claims=1');
    await expect.poll(() => page.locator(`tr[data-render-id="${assemblyId}"]`).count(), POLL).toBe(1);
    expect(await page.locator(`tr[data-render-id="${refusedId}"]`).count()).toBe(0);
    await page.close();
  });
});
