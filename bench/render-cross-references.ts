/**
 * Cross-references: a 100-page report with a 60-entry table of contents (leader dots, target-counter())
 * through the HTTP API, against the same report without those rules (one pass), alternating, one render
 * at a time. The goal: at most 2.3× the time of one pass.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { closeCore, createCore } from '../src/app/core.js';
import { buildRenderApp } from '../src/app/render-app.js';
import { loadConfig } from '../src/config.js';
import { crossReferenceReport } from '../test/fixtures/cross-reference-report.js';
import { serviceRender } from './render-loops.js';
import { fmt, heading, median, verdict } from './stats.js';

const RUNS = 7;
/** Paragraphs of the 60 parts: 100 pages of A4 in all. */
const PARTS = Array.from({ length: 60 }, (_, i) => [5, 14, 8, 19, 4][i % 5]);
const GOAL = 2.3;

/** Runs the cross-reference bench and prints its ratio. */
export async function runRenderCrossReferencesBench(): Promise<void> {
  heading('render: cross-references (100-page report, 60-entry table of contents)');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-bench-xref-'));
  const config = loadConfig({
    PAGEWORKS_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RENDER_RATE_LIMIT: '1000000',
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
  });
  const core = await createCore(config, pino({ level: 'warn' }));
  const app = await buildRenderApp(core);
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const account = await core.accounts.create(`bench-xref-${process.pid}@example.com`);
    const { key } = await core.keys.create(account.id, 'render', 'bench');
    const withReferences = serviceRender(baseUrl, key, crossReferenceReport({ parts: PARTS }));
    const onePass = serviceRender(baseUrl, key, crossReferenceReport({ parts: PARTS, references: false }));
    await withReferences();
    await onePass();
    const times = { references: [] as number[], plain: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      for (const [name, render] of [
        ['references', withReferences],
        ['plain', onePass],
      ] as const) {
        const t = performance.now();
        await render();
        times[name].push(performance.now() - t);
      }
    }
    const ratio = median(times.references) / median(times.plain);
    process.stdout.write(
      `one pass (no cross-references)  median ${fmt(median(times.plain), 0, 6)} ms\n` +
        `with cross-references           median ${fmt(median(times.references), 0, 6)} ms  (${RUNS} runs each, alternating)\n` +
        `goal: ≤ ${GOAL}× the time of one pass: ${fmt(ratio, 2, 0)}× — ${verdict(ratio <= GOAL)}\n`,
    );
  } finally {
    await app.close();
    await closeCore(core);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
