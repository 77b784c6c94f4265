/**
 * One link around 20,000 words declared PDF/UA-1 (test/pdf/link-amplification.test.ts's document), rendered
 * on a pool of two slots while another account renders a one-line document every 250 ms: how long the big
 * render takes, how much the process's RSS grows (sampled every 50 ms) and the small renders' worst and median
 * latency. Goals: within RENDER_TIMEOUT_MS (30 s), RSS growth < 400 MB, the other account's renders < 5 s.
 */
import { loadConfig } from '../src/config.js';
import { createEgressPolicy } from '../src/net/policy.js';
import { BrowserPool } from '../src/render/pool/browser-pool.js';
import { toPrintParams } from '../src/render/request/options.js';
import { heading, median } from './stats.js';

const words = Array.from({ length: 20_000 }, (_, i) => `word${i % 997}`).join(' ');
const BIG =
  '<!doctype html><html lang="en"><head><meta name="pdf-profile" content="PDF/UA-1"><title>Book</title></head>' +
  `<body><h1>Book</h1><p><a href="https://example.com/book">${words}</a></p></body></html>`;
const SMALL = '<!doctype html><html lang="en"><head><title>Note</title></head><body><p>Thank you.</p></body></html>';

/** Runs the bench and prints its figures. */
export async function runLinkAmplificationBench(): Promise<void> {
  heading('link amplification: one <a> around 20,000 words, PDF/UA-1, beside another account');
  const config = loadConfig({
    LOG_LEVEL: 'warn',
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
  });
  const pool = await BrowserPool.start({
    policy: createEgressPolicy({ allow: [] }),
    concurrency: 2,
    queueLimit: 100,
    timeoutMs: 30_000,
    executablePath: config.chromiumPath,
  } as never);
  const params = toPrintParams({ printBackground: true });
  try {
    for (let i = 0; i < 2; i++) await pool.render('acct_small', SMALL, params);
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 50);
    const latencies: number[] = [];
    let running = true;
    const others = (async () => {
      while (running) {
        const t = Date.now();
        await pool.render('acct_small', SMALL, params);
        latencies.push(Date.now() - t);
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    const started = Date.now();
    const result = (await pool.render('acct_big', BIG, params)) as { pdf: Buffer };
    const took = Date.now() - started;
    running = false;
    await others;
    clearInterval(sampler);
    console.log(`big render: ${took} ms, ${(result.pdf.length / 1e6).toFixed(2)} MB PDF`);
    console.log(
      `RSS: ${(base / 1e6).toFixed(0)} MB before, peak ${(peak / 1e6).toFixed(0)} MB (+${((peak - base) / 1e6).toFixed(0)} MB)`,
    );
    console.log(`other account: ${latencies.length} renders, median ${median(latencies)} ms, worst ${Math.max(...latencies)} ms`);
  } finally {
    await pool.close();
  }
}
