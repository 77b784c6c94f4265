/**
 * The /docs page of both services in real Chromium, reached over plain HTTP by a host name that is not
 * loopback (mapped to 127.0.0.1 by the browser's resolver, so nothing leaves the machine): it shows the
 * service's operations, and the page logs no error (no request upgraded to https, no style refused).
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

let core: CoreDeps;
let browser: Browser;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '1' });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      ...(isRoot ? ['--no-sandbox'] : []),
      '--host-resolver-rules=MAP docs.test 127.0.0.1',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-gpu',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  for (const app of apps) await app.close();
  if (core) await closeTestCore(core);
});

/** Starts the app on a free port of 127.0.0.1 and gives the address Chromium reaches it by as docs.test. */
async function listen(app: FastifyInstance): Promise<string> {
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://docs.test:${(app.server.address() as AddressInfo).port}`;
}

/** Opens /docs, waits for its operations, and says which it shows and what the page logged as errors. */
async function openDocs(base: string): Promise<{ operations: string[]; errors: string[]; csp: string | undefined }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('requestfailed', (request) => errors.push(`${request.url()}: ${request.failure()?.errorText}`));
  try {
    const answer = await page.goto(`${base}/docs`);
    await page
      .locator('.opblock-summary-path')
      .first()
      .waitFor({ timeout: 10_000 })
      .catch(() => undefined);
    const operations = await page.locator('.opblock-summary').evaluateAll((nodes) =>
      nodes.map((node) => {
        const method = node.querySelector('.opblock-summary-method')?.textContent ?? '';
        const path = node.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '';
        return `${method} ${path}`;
      }),
    );
    return { operations, errors, csp: answer?.headers()['content-security-policy'] };
  } finally {
    await context.close();
  }
}

describe('/docs over plain HTTP on a host name other than loopback', () => {
  it('the render service shows its operations, with no error on the page', async () => {
    const base = await listen(await buildRenderApp(core, { lookup: noDns, startJobWorker: false }));
    const { operations, errors, csp } = await openDocs(base);
    expect(operations).toEqual(expect.arrayContaining(['POST /v1/render', 'POST /v1/jobs', 'GET /v1/renders/{id}']));
    expect(errors).toEqual([]);
    expect(csp).not.toMatch(/upgrade-insecure-requests/);
  });

  it('the metadata service shows its operations, with no error on the page', async () => {
    const base = await listen(await buildMetadataApp(core));
    const { operations, errors, csp } = await openDocs(base);
    expect(operations).toEqual(expect.arrayContaining(['GET /v1/fetch', 'GET /v1/health']));
    expect(errors).toEqual([]);
    expect(csp).not.toMatch(/upgrade-insecure-requests/);
  });
});

describe('/docs over TLS', () => {
  it('asks the browser to upgrade insecure requests only when the request came over https', async () => {
    const behindProxy = await createTestCore({ TRUST_PROXY: '127.0.0.1' });
    const app = await buildMetadataApp(behindProxy);
    try {
      const viaTls = await app.inject({ url: '/docs', headers: { 'x-forwarded-proto': 'https' } });
      expect(viaTls.statusCode).toBe(200);
      expect(viaTls.headers['content-security-policy']).toMatch(/; upgrade-insecure-requests$/);
      const plain = await app.inject({ url: '/docs' });
      expect(plain.headers['content-security-policy']).toMatch(/^default-src 'self'/);
      expect(plain.headers['content-security-policy']).not.toMatch(/upgrade-insecure-requests/);
    } finally {
      await app.close();
      await closeTestCore(behindProxy);
    }
  });
});
