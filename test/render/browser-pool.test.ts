/**
 * The pool below the HTTP layer: recycling Chromium after N renders or above a memory threshold (renders
 * keep succeeding, the old process group is gone), and the per-render egress caps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressPolicy } from '../../src/net/policy.js';
import { processGroupMembers } from '../../src/render/browser/chromium.js';
import { BrowserPool, type BrowserPoolOptions } from '../../src/render/pool/browser-pool.js';
import { toPrintParams } from '../../src/render/request/options.js';
import { noDns } from '../helpers/render.js';
import { type Canary, startCanary } from './canary.js';
import { pdfText, pixel } from './pdf-tools.js';

const A4 = toPrintParams({});
let canary: Canary;

beforeAll(async () => {
  canary = await startCanary();
});
afterAll(async () => canary?.close());

async function withPool(options: Partial<BrowserPoolOptions>, fn: (pool: BrowserPool) => Promise<void>): Promise<void> {
  const pool = await BrowserPool.start({
    policy: createEgressPolicy({ allow: ['127.0.0.1/32'], lookup: noDns }),
    concurrency: 1,
    queueLimit: 4,
    timeoutMs: 10_000,
    ...options,
  });
  try {
    await fn(pool);
  } finally {
    await pool.close();
  }
}

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
}

/** A document that blocks for 1.5 s as it is left: its slot's reset to about:blank lasts as long. */
const slowToLeave = (text: string) =>
  `<p>${text}</p><script>addEventListener('pagehide', () => { const end = Date.now() + 1500; while (Date.now() < end); });</script>`;

describe('BrowserPool', () => {
  it('recycles Chromium after N renders; renders go on and the old processes are gone', async () => {
    await withPool({ maxRendersPerBrowser: 3 }, async (pool) => {
      const first = pool.browserPid as number;
      for (let i = 0; i < 3; i++)
        expect(pdfText((await pool.render('a', `<p>render ${i}</p>`, A4)).pdf)).toContain(`render ${i}`);
      await waitFor(() => pool.browserPid !== first && processGroupMembers(first).length === 0, 15_000);
      expect(pool.browserPid).not.toBe(first);
      expect(processGroupMembers(first)).toEqual([]);
      expect(pdfText((await pool.render('a', '<p>on the new browser</p>', A4)).pdf)).toContain('on the new browser');
    });
  });

  it('a render finishing on a replaced Chromium does not recycle its successor', async () => {
    const reasons: string[] = [];
    const events = {
      rendered: () => undefined,
      slotDiscarded: () => undefined,
      chromiumRestarted: (r: string) => void reasons.push(r),
    };
    await withPool({ concurrency: 2, maxRendersPerBrowser: 2, events }, async (pool) => {
      const first = pool.browserPid as number;
      // The short render reaches the count and starts the recycle; the long one ends on the old browser after the switch.
      const long = pool.render('a', '<p>long</p><script>const end = Date.now() + 4000; while (Date.now() < end) {}</script>', A4);
      expect(pdfText((await pool.render('a', '<p>short</p>', A4)).pdf)).toContain('short');
      await waitFor(() => pool.browserPid !== first, 15_000);
      const second = pool.browserPid;
      expect(second).not.toBe(first);
      expect(pdfText((await long).pdf)).toContain('long');
      await waitFor(() => processGroupMembers(first).length === 0, 10_000);
      await new Promise((r) => setTimeout(r, 1000));
      expect(reasons).toEqual(['renders']);
      expect(pool.browserPid).toBe(second);
    });
  });

  it('recycles Chromium above the memory threshold', async () => {
    await withPool({ memoryLimitBytes: 1, memoryCheckMs: 200 }, async (pool) => {
      const first = pool.browserPid as number;
      await waitFor(() => pool.browserPid !== first, 15_000);
      expect(pool.browserPid).not.toBe(first);
      expect(pdfText((await pool.render('a', '<p>still rendering</p>', A4)).pdf)).toContain('still rendering');
    });
  });

  it('a slot slow to reset does not hold up the next render: it takes the spare slot', async () => {
    await withPool({}, async (pool) => {
      expect(pdfText((await pool.render('a', slowToLeave('first'), A4)).pdf)).toContain('first');
      const started = Date.now();
      expect(pdfText((await pool.render('a', '<p>next</p>', A4)).pdf)).toContain('next');
      expect(Date.now() - started).toBeLessThan(1000);
    });
  });

  it('a render that gives up waiting for a slot leaves no slot behind: the next render gets one at once', async () => {
    await withPool({}, async (pool) => {
      // Both slots (one for the concurrency, one spare) are being reset when the next renders come.
      expect(pdfText((await pool.render('a', slowToLeave('first'), A4)).pdf)).toContain('first');
      expect(pdfText((await pool.render('a', slowToLeave('second'), A4)).pdf)).toContain('second');
      // Two renders give up while they wait for a slot (their clients left).
      for (const ms of [100, 150]) {
        await expect(pool.render('a', '<p>gone</p>', A4, { signal: AbortSignal.timeout(ms) })).rejects.toThrow();
      }
      // The slots reset later go to renders still waiting, not to those that gave up.
      const started = Date.now();
      const next = await pool.render('a', '<p>next</p>', A4, { signal: AbortSignal.timeout(8000) });
      expect(pdfText(next.pdf)).toContain('next');
      expect(Date.now() - started).toBeLessThan(5000);
    });
  });

  it('caps the requests of one render', async () => {
    await withPool({ maxRequestsPerRender: 5 }, async (pool) => {
      const before = canary.requests.length;
      const images = Array.from({ length: 30 }, (_, i) => `<img src="http://127.0.0.1:${canary.port}/red.svg?n=${i}">`).join('');
      await pool.render('a', `<p>many</p>${images}`, A4);
      const made = canary.requests.length - before;
      expect(made).toBeGreaterThan(0);
      expect(made).toBeLessThanOrEqual(5);
    });
  });

  it('caps the bytes of one render', async () => {
    const html = `<body style="margin:0"><img style="display:block;width:100vw;height:100vh" src="http://127.0.0.1:${canary.port}/big.svg"></body>`;
    await withPool({ maxBytesPerRender: 1024 * 1024 }, async (pool) => {
      expect(pixel((await pool.render('a', html, A4)).pdf, 60, 80)).toEqual([255, 255, 255]);
    });
    await withPool({}, async (pool) => {
      const [r, g, b] = pixel((await pool.render('a', html, A4)).pdf, 60, 80);
      expect([r > 240, g < 20, b < 20]).toEqual([true, true, true]);
    });
  });
});
