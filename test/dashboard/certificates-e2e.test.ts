/**
 * The Signing certificates page in Chromium on a real dashboard and store: a signed-in person uploads
 * PKCS#12 files made by `openssl` at test time through the form (a wrong password, a file without its
 * key and an expired certificate are refused with a sentence saying so; the password is never put back
 * in the page nor logged), sees the certificate listed with its subject and issuer, and deletes it after
 * a confirmation step. A server without a key (SECRETS_KEY) says so and disables the form. Every page fits
 * 375 px without sideways scrolling and passes axe-core at 375 and 1366 px; screenshots go to
 * test-artifacts/certificates-*.png.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CertificateService } from '../../src/accounts/certificates.js';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { newId } from '../../src/ids.js';
import { axeViolations, launchTestBrowser, sidewaysOverflow, signUpInBrowser } from '../helpers/browser.js';
import { makeTestCertificates, type TestCertificates } from '../helpers/certificates.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';

const ARTIFACTS = path.resolve('test-artifacts');
const PASSWORD = 'correct horse battery staple';
const PHONE = { width: 375, height: 740 };
const LAPTOP = { width: 1366, height: 900 };
const POLL = { timeout: 15_000 };
const SUBJECT = 'CN=Acme Signing Ltd, O=Acme, C=GB';

let certs: TestCertificates;
let files: Record<'rsa' | 'nokey' | 'expired' | 'garbage', string>;
let core: CoreDeps;
let bare: CoreDeps;
const logs: Array<Record<string, unknown>> = [];
let dashboard: FastifyInstance;
let bareDashboard: FastifyInstance;
let dashboardUrl: string;
let bareUrl: string;
let browser: Browser;
const contexts: BrowserContext[] = [];
// The files the browser uploads, private keys among them: removed after the suite.
const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-cert-files-'));

beforeAll(async () => {
  certs = makeTestCertificates();
  const write = (name: string, data: Buffer) => {
    fs.writeFileSync(path.join(certDir, name), data);
    return path.join(certDir, name);
  };
  files = {
    rsa: write('acme.p12', certs.rsaChain),
    nokey: write('nokey.pfx', certs.noKey),
    expired: write('old.p12', certs.expired),
    garbage: write('notes.p12', Buffer.from('not a certificate at all')),
  };
  core = await createTestCore({ CERTIFICATE_KEY: 'ab'.repeat(32), LOG_LEVEL: 'debug' }, logs);
  bare = await createTestCore();
  // The embedded store makes its own key: a server without one is a PostgreSQL one without SECRETS_KEY.
  bare.certificates = new CertificateService(bare.store, bare.activity, undefined);
  dashboard = await buildDashboardApp(core);
  dashboardUrl = await dashboard.listen({ host: '127.0.0.1', port: 0 });
  bareDashboard = await buildDashboardApp(bare);
  bareUrl = await bareDashboard.listen({ host: '127.0.0.1', port: 0 });
  browser = await launchTestBrowser();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await dashboard?.close();
  await bareDashboard?.close();
  if (core) await closeTestCore(core);
  if (bare) await closeTestCore(bare);
  fs.rmSync(certDir, { recursive: true, force: true });
});

async function signedInPage(baseURL: string, email: string): Promise<Page> {
  // bypassCSP: axe-core is injected as an inline script, which the dashboard's CSP rightly refuses.
  const context = await browser.newContext({ viewport: LAPTOP, baseURL, bypassCSP: true });
  contexts.push(context);
  const page = await context.newPage();
  await signUpInBrowser(page, email, PASSWORD);
  return page;
}

async function upload(page: Page, file: string, password: string, name = ''): Promise<void> {
  await page.getByLabel('Certificate file').setInputFiles(file);
  await page.getByLabel('File password').fill(password);
  await page.getByLabel('Name (optional)').fill(name);
  await page.getByRole('button', { name: 'Upload certificate' }).click();
  await page.waitForLoadState('domcontentloaded');
}

/** Both widths: no sideways scrolling, no axe violation, a screenshot each. */
async function checkLayouts(page: Page, name: string): Promise<void> {
  for (const [label, size] of [
    ['375', PHONE],
    ['1366', LAPTOP],
  ] as const) {
    await page.setViewportSize(size);
    await page.reload();
    await page.screenshot({ path: path.join(ARTIFACTS, `certificates-${name}-${label}.png`), fullPage: true });
    expect(await sidewaysOverflow(page), `${name} at ${label} px scrolls sideways`).toBeLessThanOrEqual(0);
    expect(await axeViolations(page), `${name} at ${label} px`).toEqual([]);
  }
}

describe('Signing certificates page in Chromium', () => {
  let page: Page;

  it('refuses a wrong password, a file without its key, an expired certificate and a non-PKCS#12 file, saying why', async () => {
    page = await signedInPage(dashboardUrl, 'certs-browser@example.com');
    await page.getByRole('link', { name: 'Signing', exact: true }).click();
    await page.waitForURL('**/certificates');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent(), POLL).toBe('Signing certificates');
    expect(await page.locator('p.empty').textContent()).toContain('No signing certificates yet');

    await upload(page, files.rsa, 'not the password', 'Invoices');
    const alert = page.locator('.alert-error');
    expect(await alert.textContent()).toBe('Wrong password (the file does not open with it).');
    // The name typed is kept; the password is not put back in the page.
    expect(await page.getByLabel('Name (optional)').inputValue()).toBe('Invoices');
    expect(await page.getByLabel('File password').inputValue()).toBe('');
    expect(await page.content()).not.toContain('not the password');

    await upload(page, files.nokey, certs.password);
    expect(await alert.textContent()).toBe('The file holds no private key (export the certificate together with its key).');
    await upload(page, files.expired, certs.password);
    expect(await alert.textContent()).toMatch(/^The certificate expired on 2021-01-01T/);
    await upload(page, files.garbage, certs.password);
    expect(await alert.textContent()).toBe('Not a PKCS#12 file (choose the .p12 or .pfx file).');
    expect(await page.locator('table.certs').count()).toBe(0);
  });

  it('uploads a PKCS#12 chain and lists it with its subject, issuer and expiry', async () => {
    await upload(page, files.rsa, certs.password, 'Invoices');
    await page.waitForURL('**/certificates?uploaded=crt_*');
    const row = page.locator('table.certs tbody tr');
    expect(await row.count()).toBe(1);
    expect(await row.locator('td[data-label="Name"]').textContent()).toMatch(/^Invoices\s*crt_[0-9a-f]{32}$/);
    expect(await row.locator('td[data-label="Subject"]').textContent()).toBe(SUBJECT);
    expect(await row.locator('td[data-label="Issuer"]').textContent()).toBe('CN=Test CA, O=Acme');
    const expires = await row.locator('td[data-label="Expires"] time').getAttribute('datetime');
    expect(new Date(expires ?? 0).getTime()).toBeGreaterThan(Date.now());
    expect(await page.locator('.alert-ok').textContent()).toContain(`(${SUBJECT}) was uploaded`);
    // A form without the session's CSRF token changes nothing.
    const forged = await page.request.post('/certificates', {
      multipart: {
        _csrf: 'not-the-token',
        password: certs.password,
        pkcs12: { name: 'acme.p12', mimeType: 'application/x-pkcs12', buffer: certs.rsaChain },
      },
    });
    expect(forged.status()).toBe(403);
    const account = await core.accounts.findByEmail('certs-browser@example.com');
    expect((await core.certificates.list(account?.id ?? '')).length).toBe(1);
    // Neither the password nor the key ever reach a log line.
    const logged = JSON.stringify(logs);
    expect(logged).not.toContain(certs.password);
    expect(logged).not.toContain('not the password');
    expect(logged).not.toContain(certs.rsaKeyPem.split('\n')[1]);
  });

  it('marks an expired certificate and fits 375 and 1366 px with no axe violation', async () => {
    const account = await core.accounts.findByEmail('certs-browser@example.com');
    if (!account) throw new Error('signed-up account not found');
    // One that expired since its upload (an upload of an expired one is refused, so it goes in directly).
    await core.store.insertCertificate({
      id: newId('crt'),
      accountId: account.id,
      name: 'Last year’s seal, with a long name that has to wrap on a phone',
      subject: 'CN=Acme Payroll Signing Department of the Northern Region Ltd, OU=Payroll, O=Acme, C=GB',
      issuer: 'CN=Test CA, O=Acme',
      notAfter: Date.parse('2025-06-30T00:00:00Z'),
      chain: [Buffer.from('unused')],
      sealedKey: 'v1.unused',
      createdAt: Date.parse('2024-07-01T00:00:00Z'),
    });
    await page.goto('/certificates');
    const expired = page.locator('table.certs tbody tr.expired');
    expect(await expired.count()).toBe(1);
    expect(await expired.locator('td[data-label="Expires"]').textContent()).toMatch(/^Expired /);
    await checkLayouts(page, 'list');
    await page.getByRole('link', { name: /^Delete certificate Invoices/ }).click();
    await page.waitForURL('**/certificates/crt_*/delete');
    await checkLayouts(page, 'delete');
  });

  it('deletes a certificate after a confirmation step', async () => {
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Delete this certificate?');
    expect(await page.locator('.lead').textContent()).toContain(SUBJECT);
    await page.getByRole('button', { name: 'Delete certificate' }).click();
    await page.waitForURL('**/certificates?deleted');
    expect(await page.locator('.alert-ok').textContent()).toContain('The certificate was deleted');
    expect(await page.locator('table.certs tbody tr').count()).toBe(1);
    expect(await page.locator(`table.certs td[data-label="Subject"]`).textContent()).not.toBe(SUBJECT);
    const account = await core.accounts.findByEmail('certs-browser@example.com');
    const kinds = (await core.activity.page(account?.id ?? '', 1)).entries.map((e) => e.kind);
    expect(kinds).toContain('certificate_uploaded');
    expect(kinds).toContain('certificate_deleted');
  });

  it('says a server without SECRETS_KEY cannot take certificates, with the form disabled', async () => {
    const bp = await signedInPage(bareUrl, 'certs-bare@example.com');
    await bp.goto('/certificates');
    const warning = bp.locator('.alert-warn');
    expect(await warning.textContent()).toContain('Signing is not enabled on this server');
    expect(await warning.textContent()).toContain('SECRETS_KEY');
    expect(await bp.getByLabel('Certificate file').isDisabled()).toBe(true);
    expect(await bp.getByRole('button', { name: 'Upload certificate' }).isDisabled()).toBe(true);
    // A form sent anyway (an old tab, a script) gets the same sentence.
    const csrf = await bp.locator('input[name="_csrf"]').first().inputValue();
    const answer = await bp.request.post('/certificates', {
      multipart: {
        _csrf: csrf,
        password: certs.password,
        pkcs12: { name: 'acme.p12', mimeType: 'application/x-pkcs12', buffer: certs.rsaChain },
      },
    });
    expect(answer.status()).toBe(503);
    expect(await answer.text()).toContain('SECRETS_KEY is not set');
    await checkLayouts(bp, 'disabled');
  });
});
