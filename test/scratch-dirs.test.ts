/**
 * Temporary directories carry their process id, and a process's first directory of a kind removes those a
 * killed process left; what is not exactly ours, or belongs to a live process, stays. In a temp folder of
 * the test's own ($TMPDIR, which os.tmpdir() reads on every call).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { scratchDir, scratchDirSync, sweepScratchDirs } from '../src/scratch-dirs.js';

const realTmp = os.tmpdir();
const tmp = fs.mkdtempSync(path.join(realTmp, 'pw-scratch-dirs-'));
let live: ChildProcess;

beforeAll(() => {
  process.env.TMPDIR = tmp;
  live = spawn('sleep', ['60']);
});
afterAll(() => {
  process.env.TMPDIR = realTmp;
  live.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A directory with a file in it, as a process would leave it. */
function leave(name: string): string {
  fs.mkdirSync(path.join(tmp, name));
  fs.writeFileSync(path.join(tmp, name, 'part-0.pdf'), '%PDF-1.7 spilled');
  return name;
}

it('names a directory by kind and process id, private to this user', async () => {
  const dir = await scratchDir('upload');
  expect(path.dirname(dir)).toBe(tmp);
  expect(path.basename(dir)).toMatch(new RegExp(`^pageworks-upload-${process.pid}-[A-Za-z0-9]{6}$`));
  expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
});

it("the first directory of a kind removes that kind's directories of processes gone, and nothing else", async () => {
  const gone = spawnSync('true').pid as number;
  const killed = leave(`pageworks-assembly-${gone}-Ab12Cd`);
  // An earlier process's with this one's id, as a restarted container's service gets the same id again.
  const sameId = leave(`pageworks-assembly-${process.pid}-mine01`);
  const killedChromium = leave(`pageworks-chromium-${gone}-x9Y8z7`);
  const kept = [
    leave(`pageworks-assembly-${live.pid}-livE01`),
    // An older release's name (no process id), another tool's, and a name the pattern does not fit.
    leave('pageworks-assembly-Q1w2E3'),
    leave(`pageworks-assembly-fuzz-${gone}`),
    leave(`pageworks-assembly-${gone}-toolong`),
    leave(`other-assembly-${gone}-Ab12Cd`),
  ];
  const made = scratchDirSync('assembly');
  // The removal runs in the background, behind the directory just made.
  await vi.waitFor(() => expect(fs.readdirSync(tmp)).not.toContain(killed), { timeout: 5000 });
  await vi.waitFor(() => expect(fs.readdirSync(tmp)).not.toContain(sameId), { timeout: 5000 });
  const names = fs.readdirSync(tmp);
  for (const name of kept) expect(names).toContain(name);
  // Another kind waits for its own first directory.
  expect(names).toContain(killedChromium);
  expect(names).toContain(path.basename(made));
  scratchDirSync('chromium');
  await vi.waitFor(() => expect(fs.readdirSync(tmp)).not.toContain(killedChromium), { timeout: 5000 });
});

it('sweeps a kind once a process: later directories do not read the temp folder again', async () => {
  const gone = spawnSync('true').pid as number;
  const later = leave(`pageworks-assembly-${gone}-Later1`);
  scratchDirSync('assembly');
  await new Promise((r) => setTimeout(r, 200));
  expect(fs.readdirSync(tmp)).toContain(later);
  await sweepScratchDirs('assembly');
  expect(fs.readdirSync(tmp)).not.toContain(later);
});

it('sweeps nothing, and throws nothing, when the temp folder cannot be read', async () => {
  process.env.TMPDIR = '/dev/null/tmp';
  try {
    await expect(sweepScratchDirs('qpdf')).resolves.toBeUndefined();
  } finally {
    process.env.TMPDIR = tmp;
  }
});
