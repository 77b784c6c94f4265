/**
 * Render bench: the corpus's 40-row invoice (test/fixtures) through the HTTP API (real port, real key) at concurrency 1, 2, 4,
 * side by side with a bare puppeteer loop and a browser-per-request loop in the same run.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { closeCore, createCore } from '../src/app/core.js';
import { buildRenderApp } from '../src/app/render-app.js';
import { loadConfig } from '../src/config.js';
import { invoiceDocument } from '../test/fixtures/corpus/documents.js';
import { extraCorpusDir } from '../test/fixtures/corpus/index.js';
import { drive, emptyResult, type LoopResult, launchPerRequest, rate, serviceRender, startBare } from './render-loops.js';
import { runReportCostBench } from './render-report.js';
import { fmt, heading, median, quantile, verdict } from './stats.js';

/** The saved real invoice when PAGEWORKS_CORPUS_DIR is set (the figures of earlier runs), else the corpus's own. */
function benchDocument(): { name: string; html: string } {
  const extra = extraCorpusDir('render');
  if (extra)
    return { name: 'saved invoice-40-rows.html', html: fs.readFileSync(path.join(extra, 'invoice-40-rows.html'), 'utf8') };
  return { name: 'invoice-40-rows (test/fixtures)', html: invoiceDocument(40) };
}
/**
 * Measured renders per loop and concurrency, in alternating chunks, and the wall-time cap of one chunk.
 * Launch-per-request runs in the same alternation (c=1 and c=2), so machine noise hits it alike too.
 */
const COUNT = 40;
const CHUNKS = 4;
const CHUNK_MAX_MS = 5000;
const LAUNCHES_PER_CHUNK = 2;
const LAUNCH_CHUNK_MAX_MS = 30_000;

function row(r: LoopResult): string {
  return `${r.label.padEnd(22)} c=${r.concurrency}  ${fmt(rate(r), 2, 7)} PDF/s  p50 ${fmt(median(r.latencies), 1, 7)} ms  p95 ${fmt(quantile(r.latencies, 0.95), 1, 7)} ms  (${r.renders} renders)`;
}

/** Runs the render bench and prints its table and goals. */
export async function runRenderBench(): Promise<void> {
  const { name, html } = benchDocument();
  heading(`render: ${name}`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-bench-render-'));
  const config = loadConfig({
    PAGEWORKS_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RENDER_RATE_LIMIT: '1000000',
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
    ...(process.env.RENDER_CONCURRENCY ? { RENDER_CONCURRENCY: process.env.RENDER_CONCURRENCY } : {}),
  });
  const core = await createCore(config, pino({ level: 'warn' }));
  const app = await buildRenderApp(core);
  const results: Array<{ service: LoopResult; bare: LoopResult }> = [];
  const launches: LoopResult[] = [];
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const account = await core.accounts.create(`bench-${process.pid}@example.com`);
    const { key } = await core.keys.create(account.id, 'render', 'bench');
    process.stdout.write(
      `service: ${config.renderConcurrency} render slots; up to ${COUNT} renders per loop in ${CHUNKS} alternating chunks` +
        ` (launch per request: ${LAUNCHES_PER_CHUNK}×c per chunk, c=1 and c=2)\n`,
    );
    const viaApi = serviceRender(baseUrl, key, html);
    for (const c of [1, 2, 4]) {
      const bareRenderer = await startBare(html, c);
      try {
        const service = emptyResult('service (HTTP API)', c);
        const bare = emptyResult('bare puppeteer loop', c);
        const launch = c <= 2 ? emptyResult('launch per request', c) : undefined;
        // Warm both, then alternate short chunks so machine noise (other processes) hits all loops alike.
        await drive(emptyResult('warm-up', c), 2 * c, CHUNK_MAX_MS, viaApi);
        await drive(emptyResult('warm-up', c), 2 * c, CHUNK_MAX_MS, bareRenderer.render);
        for (let i = 0; i < CHUNKS; i++) {
          await drive(service, COUNT / CHUNKS, CHUNK_MAX_MS, viaApi);
          await drive(bare, COUNT / CHUNKS, CHUNK_MAX_MS, bareRenderer.render);
          if (launch) await drive(launch, LAUNCHES_PER_CHUNK * c, LAUNCH_CHUNK_MAX_MS, () => launchPerRequest(html));
        }
        process.stdout.write(`${row(service)}\n${row(bare)}\n${launch ? `${row(launch)}\n` : ''}`);
        results.push({ service, bare });
        if (launch) launches.push(launch);
      } finally {
        await bareRenderer.close();
      }
    }
  } finally {
    await app.close();
    await closeCore(core);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  process.stdout.write('\nconcurrency  service PDF/s  bare PDF/s  ratio   service p50  bare p50  Δp50 ms\n');
  for (const { service, bare } of results) {
    const d = median(service.latencies) - median(bare.latencies);
    process.stdout.write(
      `${String(service.concurrency).padStart(11)}  ${fmt(rate(service), 2, 13)}  ${fmt(rate(bare), 2, 10)}  ${fmt(rate(service) / rate(bare), 2, 5)}  ${fmt(median(service.latencies), 1, 11)}  ${fmt(median(bare.latencies), 1, 8)}  ${fmt(d, 1, 7)}\n`,
    );
  }
  const [c1, c2] = results;
  const ratio2 = rate(c2.service) / rate(c2.bare);
  const delta1 = median(c1.service.latencies) - median(c1.bare.latencies);
  const vsLaunch1 = rate(c1.service) / rate(launches[0]);
  const vsLaunch = rate(c2.service) / rate(launches[1]);
  process.stdout.write(`\ngoal: service ≥ 0.95× bare throughput at c=2: ${fmt(ratio2, 2, 0)}× — ${verdict(ratio2 >= 0.95)}\n`);
  process.stdout.write(`goal: p50 at c=1 within 15 ms of bare: ${fmt(delta1, 1, 0)} ms — ${verdict(delta1 <= 15)}\n`);
  process.stdout.write(
    `goal: ≥ 8× launch-per-request throughput (both c=2): ${fmt(vsLaunch, 1, 0)}× — ${verdict(vsLaunch >= 8)}\n`,
  );
  process.stdout.write(`      (same comparison at c=1: ${fmt(vsLaunch1, 1, 0)}×)\n`);
  // What the minimum itself reaches: the bare loop pays the same per-render Chromium work as the service.
  const bareVsLaunch = rate(c2.bare) / rate(launches[1]);
  process.stdout.write(`      (bare puppeteer loop ÷ launch per request at c=2: ${fmt(bareVsLaunch, 1, 0)}×)\n`);
  await runReportCostBench(name, html);
}

/** Only the report on/off comparison of the render bench (`npm run bench -- render-report`). */
export async function runRenderReportBench(): Promise<void> {
  const { name, html } = benchDocument();
  await runReportCostBench(name, html);
}
