/**
 * The render service a bench drives over HTTP: a core on a temp data folder, the render app on a loopback
 * port, and a render key, with limits raised so that the bench measures rendering, not the rate limiter.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { closeCore, createCore } from '../src/app/core.js';
import { buildRenderApp } from '../src/app/render-app.js';
import { type Config, loadConfig } from '../src/config.js';

/** A running bench service: where it listens, a render key, its config, and how to stop it. */
export interface BenchService {
  baseUrl: string;
  key: string;
  config: Config;
  close(): Promise<void>;
}

/**
 * Starts the render service for a bench named `name` (CHROMIUM_PATH from the environment applies);
 * `startJobWorker: false` holds its job worker, so submitted jobs stay queued.
 */
export async function startBenchService(name: string, opts: { startJobWorker?: boolean } = {}): Promise<BenchService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `pageworks-bench-${name}-`));
  const config = loadConfig({
    PAGEWORKS_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RENDER_RATE_LIMIT: '1000000',
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
  });
  const core = await createCore(config, pino({ level: 'warn' }));
  const app = await buildRenderApp(core, opts);
  const close = async (): Promise<void> => {
    await app.close();
    await closeCore(core);
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const account = await core.accounts.create(`bench-${name}-${process.pid}@example.com`);
    const { key } = await core.keys.create(account.id, 'render', 'bench');
    return { baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, key, config, close };
  } catch (err) {
    await close();
    throw err;
  }
}
