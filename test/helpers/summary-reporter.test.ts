/**
 * `npm test` prints progress a person can follow: vitest run with the suite's reporters on two small
 * test files (one passes, one fails) prints a `[n/2]` line for each file as it ends, with its tests and
 * the failures so far, then each failed test by name with its error's first line, the closing count, and
 * exits 1.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
const work = fs.mkdtempSync(path.join(ROOT, 'test-artifacts', 'reporter-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

it('prints a [done/all] line per file as it finishes, then each failed test, then the totals', async () => {
  fs.writeFileSync(
    path.join(work, 'a.test.ts'),
    "import { it, expect } from 'vitest';\nit('one', () => expect(1).toBe(1));\nit('two', () => expect(2).toBe(2));\n",
  );
  fs.writeFileSync(
    path.join(work, 'b.test.ts'),
    "import { it, expect } from 'vitest';\nit('fails', () => expect(1).toBe(2));\nit.skip('later', () => {});\n",
  );
  const config = path.join(work, 'vitest.config.mjs');
  fs.writeFileSync(
    config,
    `export default { test: { include: ['*.test.ts'], maxWorkers: 1, reporters: [${JSON.stringify(path.join(ROOT, 'test/helpers/summary-reporter.ts'))}] } };\n`,
  );
  const vitest = path.join(ROOT, 'node_modules/vitest/vitest.mjs');
  const result = await promisify(execFile)(process.execPath, [vitest, 'run', '--config', config, '--root', work], {
    cwd: work,
    env: { ...process.env, CI: '1' },
  }).then(
    (out) => ({ code: 0, stdout: out.stdout }),
    (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
  );
  const lines = result.stdout.split('\n').filter((l) => l.startsWith('['));
  expect(lines).toHaveLength(2);
  const a = lines.find((l) => l.includes('a.test.ts')) ?? '';
  const b = lines.find((l) => l.includes('b.test.ts')) ?? '';
  expect(a).toMatch(/^\[[12]\/2\] ✓ a\.test\.ts · 2 tests · \d+\.\d s · \d+ min in/);
  expect(b).toMatch(/^\[[12]\/2\] ✗ 1 failed · b\.test\.ts · 2 tests · \d+\.\d s · \d+ min in · 1 failed so far$/);
  expect(lines.map((l) => l.slice(0, 5)).sort()).toEqual(['[1/2]', '[2/2]']);
  const tail = result.stdout.trim().split('\n').slice(-2);
  expect(tail[0]).toMatch(/^✗ b\.test\.ts > fails: expected 1 to be 2/);
  expect(tail[1]).toBe('2 passed, 1 failed, 1 skipped');
  expect(result.code).toBe(1);
}, 120_000);
