import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { PAGEWORKS } from './pageworks-command.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** What one `pageworks …` run printed and returned. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `pageworks …` (pageworks-command.ts says which build) on the embedded store of `dataDir` (DATABASE_URL and REDIS_URL
 * removed, so a CI run with both set still tests the SQLite path), with `env` added.
 */
export function runPageworks(dataDir: string, args: string[], env: Record<string, string> = {}): CliResult {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PAGEWORKS_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env };
  delete childEnv.DATABASE_URL;
  delete childEnv.REDIS_URL;
  const res = spawnSync(process.execPath, [...PAGEWORKS, ...args], {
    cwd: ROOT,
    env: childEnv,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}
