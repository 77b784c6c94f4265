/**
 * MetadataClient against the real metadata service on a port (real store, real limiter, a loopback
 * origin let through with EGRESS_ALLOW): typed fields, typed errors, 429 retried after Retry-After,
 * the retry bounds, the timeout and AbortSignal.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { MetadataApiError, MetadataClient } from '../../src/client/index.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { type Origin, startOrigin } from '../metadata/origin.js';

let core: CoreDeps;
let app: FastifyInstance;
let origin: Origin;
let baseUrl: string;

/**
 * A 10 s rate-limit window (RATE_LIMIT_WINDOW_S) instead of the default minute: the 429 test waits for a
 * real window to end, and a short one keeps that wait from dominating the file.
 */
const WINDOW_S = 10;

const PAGE = `<!doctype html><html><head><title>Invoice 42</title><meta name="description" content="Due in 30 days">
<meta property="og:title" content="OG Invoice"><link rel="canonical" href="/invoices/42"></head><body>hi</body></html>`;

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    if (req.url === '/slow') {
      setTimeout(() => res.end(PAGE), 3000);
      return;
    }
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(PAGE);
  });
  core = await createTestCore({
    EGRESS_ALLOW: '127.0.0.1/32',
    METADATA_CACHE_TTL_S: '0',
    RATE_LIMIT_WINDOW_S: String(WINDOW_S),
  });
  app = await buildMetadataApp(core);
  await app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  await origin?.close();
});

/** A key on a fresh account whose limit is `limit` requests per window (null: the default). */
async function keyWithLimit(limit: number | null): Promise<string> {
  const { accountId, key } = await createKey(core, 'metadata');
  if (limit !== null) await core.accounts.setLimit(accountId, 'metadata', limit);
  return key;
}

/** Runs `fn` and returns what it threw. */
async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

describe('MetadataClient', () => {
  it('returns the eight fields of the page', async () => {
    const client = new MetadataClient({ baseUrl: `${baseUrl}/`, apiKey: await keyWithLimit(null) });
    const metadata = await client.fetchMetadata(`${origin.base}/invoice`);
    expect(metadata).toEqual({
      title: 'Invoice 42',
      description: 'Due in 30 days',
      og_title: 'OG Invoice',
      og_description: null,
      og_image: null,
      og_url: null,
      canonical_url: `${origin.base}/invoices/42`,
      favicon_url: `${origin.base}/favicon.ico`,
    });
  });

  it('throws typed errors with status, code, the service detail and X-Request-ID', async () => {
    const bad = new MetadataClient({ baseUrl, apiKey: 'pwm_live_00000000000000000000000000000000' });
    const unauthorized = await thrown(() => bad.fetchMetadata(`${origin.base}/`));
    expect(unauthorized).toBeInstanceOf(MetadataApiError);
    expect(unauthorized).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect((unauthorized as Error).message).toBe('malformed API key');
    expect((unauthorized as MetadataApiError).requestId).toMatch(/^req_[0-9a-f]{24}$/);

    const client = new MetadataClient({ baseUrl, apiKey: await keyWithLimit(null) });
    const invalid = await thrown(() => client.fetchMetadata('ftp://example.com/'));
    expect(invalid).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect((invalid as Error).message).toMatch(/http/);
  });

  it('retries a 429 after the Retry-After the service sent, and then succeeds', { timeout: 60_000 }, async () => {
    const retries: Array<{ status: number; code: string; delayMs: number }> = [];
    const client = new MetadataClient({ baseUrl, apiKey: await keyWithLimit(1), onRetry: (e) => retries.push(e) });
    await client.fetchMetadata(`${origin.base}/first`);
    const started = Date.now();
    const metadata = await client.fetchMetadata(`${origin.base}/second`);
    const waited = Date.now() - started;
    expect(metadata.title).toBe('Invoice 42');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    // The window runs WINDOW_S from the first request: Retry-After says about that and the client waited it
    // (a loaded machine may take a few seconds between the two calls).
    expect(retries[0].delayMs).toBeGreaterThanOrEqual(4_000);
    // At most the window, plus the client's jitter of up to 250 ms.
    expect(retries[0].delayMs).toBeLessThanOrEqual(WINDOW_S * 1000 + 250);
    expect(waited).toBeGreaterThanOrEqual(retries[0].delayMs);
    expect(origin.requests.filter((p) => p === '/second')).toHaveLength(1);
  });

  it('gives up at once when Retry-After is past the wait budget, or when retrying is off', async () => {
    for (const retry of [{ maxWaitMs: 1_000 }, false] as const) {
      const client = new MetadataClient({ baseUrl, apiKey: await keyWithLimit(1), retry });
      await client.fetchMetadata(`${origin.base}/`);
      const started = Date.now();
      const limited = await thrown(() => client.fetchMetadata(`${origin.base}/`));
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(limited).toBeInstanceOf(MetadataApiError);
      expect(limited).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
      expect((limited as MetadataApiError).retryAfterS).toBeGreaterThanOrEqual(4);
      expect((limited as Error).message).toMatch(/^rate limit of 1 metadata requests per 10 s exceeded; retry in \d+ s$/);
    }
  });

  it('times out per try, and stops when the caller aborts', async () => {
    const client = new MetadataClient({ baseUrl, apiKey: await keyWithLimit(null) });
    let started = Date.now();
    const timedOut = await thrown(() => client.fetchMetadata(`${origin.base}/slow`, { timeoutMs: 300 }));
    expect(timedOut).toMatchObject({ code: 'TIMEOUT', status: undefined });
    expect(Date.now() - started).toBeLessThan(2_000);

    started = Date.now();
    const aborted = await thrown(() => client.fetchMetadata(`${origin.base}/slow`, { signal: AbortSignal.timeout(200) }));
    expect((aborted as Error).name).toBe('TimeoutError');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
