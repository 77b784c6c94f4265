import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { type CoreDeps, closeCore, createCore } from '../../src/app/core.js';
import { type ApiService, loadConfig } from '../../src/config.js';

const tempDirs = new WeakMap<CoreDeps, string>();

/**
 * A real core on a temporary SQLite store with the in-memory limiter (unless env overrides say
 * otherwise). Logs are silent unless LOG_LEVEL is passed; `log` receives them (JSON lines) instead of stdout.
 */
export async function createTestCore(env: Record<string, string> = {}, log?: pino.DestinationStream): Promise<CoreDeps> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-test-'));
  const config = loadConfig({ PAGEWORKS_DATA_DIR: dir, LOG_LEVEL: 'silent', RENDER_CONCURRENCY: '2', ...env });
  const core = await createCore(config, log ? pino({ level: config.logLevel }, log) : pino({ level: config.logLevel }));
  tempDirs.set(core, dir);
  return core;
}

/** Closes the core and removes its temporary directory. */
export async function closeTestCore(core: CoreDeps): Promise<void> {
  await closeCore(core);
  const dir = tempDirs.get(core);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

let counter = 0;

/** Creates an account (or reuses it by email) and a fresh key for the service. */
export async function createKey(
  core: CoreDeps,
  service: ApiService,
  email = `user${++counter}-${process.pid}@example.com`,
): Promise<{ accountId: string; key: string }> {
  const account = (await core.accounts.findByEmail(email)) ?? (await core.accounts.create(email));
  const { key } = await core.keys.create(account.id, service, 'test');
  return { accountId: account.id, key };
}
