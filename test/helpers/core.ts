import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { type CoreDeps, closeCore, createCore } from '../../src/app/core.js';
import { type ApiService, loadConfig } from '../../src/config.js';

const tempDirs = new WeakMap<CoreDeps, string>();

/**
 * A real core on a temporary SQLite store with the in-memory limiter (unless env overrides say
 * otherwise). Logs are silent unless LOG_LEVEL is passed, or `logTo` is: then each line is pushed onto
 * it as an object (at info unless LOG_LEVEL says otherwise), for tests that read what was logged.
 */
export async function createTestCore(
  env: Record<string, string> = {},
  logTo?: Array<Record<string, unknown>>,
): Promise<CoreDeps> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-test-'));
  const config = loadConfig({
    PAGEWORKS_DATA_DIR: dir,
    LOG_LEVEL: logTo ? 'info' : 'silent',
    RENDER_CONCURRENCY: '2',
    // vitest.config.ts sets 14 for the whole run (spawned servers and CLIs too): log-ins are not the subject.
    ...(process.env.PASSWORD_HASH_COST ? { PASSWORD_HASH_COST: process.env.PASSWORD_HASH_COST } : {}),
    // The browser the run was asked for (CI runs a set of render files again with CHROMIUM_PATH=/usr/bin/chromium).
    ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
    ...env,
  });
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logTo?.push(JSON.parse(line));
      done();
    },
  });
  const core = await createCore(config, logTo ? pino({ level: config.logLevel }, sink) : pino({ level: config.logLevel }));
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
