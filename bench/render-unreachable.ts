/**
 * Documents with resources they cannot get, through the HTTP API, side by side with bare Chromium whose
 * network refuses everything (its proxy is a closed port, as in chromiumArgs): many images on unreachable
 * hosts, fonts, stylesheets, a script, a request that never answers, late data, reachable images on a
 * loopback server; then the saved real pages of PAGEWORKS_CORPUS_DIR, rendered as documents.
 *
 * The service resolves names with a resolver that says no name exists (a network that refuses, like the
 * bare side); BENCH_DNS=system uses the machine's resolver instead, as a deployment without internet would.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { BrowserContext } from 'puppeteer-core';
import { closeCore, createCore } from '../src/app/core.js';
import { buildRenderApp } from '../src/app/render-app.js';
import { loadConfig } from '../src/config.js';
import { launchChromium, shutdownChromium } from '../src/render/browser/chromium.js';
import { imagesOn, unreachableDocuments } from '../test/fixtures/render/unreachable.js';
import { fmt, heading, median } from './stats.js';

/** Measured renders of each document per side (after one warm-up each), alternating service and bare. */
const RUNS = 3;
/** Saved pages rendered (each once per side, no warm-up): the first BENCH_CORPUS_PAGES by name, or those named in BENCH_CORPUS_ONLY (comma-separated). */
const CORPUS_PAGES = Number(process.env.BENCH_CORPUS_PAGES ?? 30);
const CORPUS_ONLY = process.env.BENCH_CORPUS_ONLY?.split(',').map((name) => name.trim());
/** How long the loopback image server holds each answer (a CDN's latency). */
const IMAGE_DELAY_MS = 20;

async function noSuchHost(): Promise<never> {
  throw Object.assign(new Error('no such host'), { code: 'ENOTFOUND' });
}

/** Where the saved pages are: PAGEWORKS_CORPUS_DIR itself, its pages/ or its metadata/pages/ folder. */
function corpusPages(): Array<{ name: string; file: string }> {
  const root = process.env.PAGEWORKS_CORPUS_DIR;
  if (!root) return [];
  const dir = [path.join(root, 'metadata', 'pages'), path.join(root, 'pages'), root].find((d) => fs.existsSync(d));
  if (!dir) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.html') && (!CORPUS_ONLY || CORPUS_ONLY.includes(f.slice(0, -5))))
    .sort()
    .slice(0, CORPUS_PAGES)
    .map((f) => ({ name: f.slice(0, -5), file: path.join(dir, f) }));
}

/** A loopback server: /img/* answers a 1×1 GIF after IMAGE_DELAY_MS, /hang never answers, /late answers after 800 ms. */
async function startLoopback(): Promise<{ base: string; close: () => Promise<void> }> {
  const gif = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
  const server = http.createServer((req, res) => {
    res.setHeader('access-control-allow-origin', '*');
    if (req.url?.startsWith('/img/')) {
      setTimeout(() => res.end(gif), IMAGE_DELAY_MS);
    } else if (req.url === '/late') {
      setTimeout(() => res.end('late data'), 800);
    } else if (req.url !== '/hang') {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Runs the unreachable-resources bench and prints its tables. */
export async function runRenderUnreachableBench(): Promise<void> {
  heading('render: documents with unreachable resources, service vs bare Chromium (network refused)');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-bench-unreachable-'));
  const config = loadConfig({
    PAGEWORKS_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RENDER_RATE_LIMIT: '1000000',
    EGRESS_ALLOW: '127.0.0.1/32',
    RENDER_CONCURRENCY: '1',
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
  });
  const core = await createCore(config, pino({ level: 'warn' }));
  const app = await buildRenderApp(core, process.env.BENCH_DNS === 'system' ? {} : { lookup: noSuchHost });
  const loopback = await startLoopback();
  const bare = await launchChromium(config.chromiumPath);
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const account = await core.accounts.create(`bench-unreachable-${process.pid}@example.com`);
    const { key } = await core.keys.create(account.id, 'render', 'bench');
    const viaService = async (html: string): Promise<number | string> => {
      const t = performance.now();
      const res = await fetch(`${baseUrl}/v1/render`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ html }),
      });
      await res.arrayBuffer();
      return res.status === 200 ? performance.now() - t : `HTTP ${res.status}`;
    };
    // Bare: a fresh context per render; "refused" goes through the browser's closed-port proxy, "direct"
    // reaches the loopback server without one.
    const viaBare = async (html: string, direct: boolean): Promise<number> => {
      const context: BrowserContext = await bare.browser.createBrowserContext(direct ? { proxyServer: 'direct://' } : {});
      try {
        const page = await context.newPage();
        const t = performance.now();
        await page.setContent(html, { waitUntil: 'load', timeout: 60_000 });
        await page.pdf({ format: 'A4' });
        return performance.now() - t;
      } finally {
        await context.close();
      }
    };
    process.stdout.write(
      `service: 1 render slot, resolver: ${process.env.BENCH_DNS === 'system' ? 'the system resolver' : 'no name exists'}; ` +
        `${RUNS} runs per side after a warm-up\n`,
    );
    process.stdout.write('document                                   service ms   bare ms   ratio\n');
    const documents = [
      ...unreachableDocuments(),
      { name: 'a fetch() that never answers', html: `<p>x</p><script>fetch('${loopback.base}/hang')</script>`, bare: false },
      {
        name: 'data fetched at load, answered 0.8 s later',
        html: `<p id="o">waiting</p><script>onload = () => fetch('${loopback.base}/late').then((r) => r.text()).then((t) => (o.textContent = t))</script>`,
        bare: false,
      },
      {
        name: `100 reachable images (${IMAGE_DELAY_MS} ms each)`,
        html: imagesOn(100, () => `${loopback.base.slice(7)}/img`, 'http'),
        bare: true,
        direct: true,
      },
    ];
    for (const doc of documents) {
      await viaService(doc.html);
      if (doc.bare) await viaBare(doc.html, doc.direct === true);
      const service: number[] = [];
      const bareMs: number[] = [];
      let failed: string | undefined;
      for (let i = 0; i < RUNS; i++) {
        const s = await viaService(doc.html);
        if (typeof s === 'string') failed = s;
        else service.push(s);
        if (doc.bare) bareMs.push(await viaBare(doc.html, doc.direct === true));
      }
      const ratio = doc.bare ? fmt(median(service) / median(bareMs), 2, 7) : '      —';
      process.stdout.write(
        `${doc.name.padEnd(42)} ${failed ?? fmt(median(service), 0, 10)}  ${doc.bare ? fmt(median(bareMs), 0, 8) : '       —'}  ${ratio}\n`,
      );
    }

    const pages = corpusPages();
    if (pages.length === 0) {
      process.stdout.write('\n(saved real pages: set PAGEWORKS_CORPUS_DIR to the corpus folder to render them)\n');
      return;
    }
    heading(`render: ${pages.length} saved real pages as documents, service vs bare Chromium (network refused)`);
    process.stdout.write('page                              service ms   bare ms   ratio\n');
    const ratios: number[] = [];
    for (const page of pages) {
      const html = fs.readFileSync(page.file, 'utf8');
      const s = await viaService(html);
      const b = await viaBare(html, false).catch(() => Number.NaN);
      const ratio = typeof s === 'number' ? s / b : Number.NaN;
      if (Number.isFinite(ratio)) ratios.push(ratio);
      process.stdout.write(
        `${page.name.padEnd(32)} ${typeof s === 'number' ? fmt(s, 0, 10) : s.padStart(10)}  ${fmt(b, 0, 8)}  ${fmt(ratio, 2, 6)}\n`,
      );
    }
    process.stdout.write(`median ratio service/bare over ${ratios.length} pages: ${fmt(median(ratios), 2, 0)}\n`);
  } finally {
    await app.close();
    await closeCore(core);
    await shutdownChromium(bare);
    await loopback.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
