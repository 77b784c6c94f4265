/**
 * Where the bytes that cross to the PDF workers through files live: one private directory per process
 * (mode 0700), there only while an operation uses it, so a process that ends leaves nothing behind. A
 * process killed mid-operation cannot remove its own; the next one removes the directories of processes
 * gone (their names carry the process id) before it makes its own.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** An operation's two files: its arguments' bytes in, its result's bytes out. */
export interface ByteFiles {
  in: string;
  out: string;
}

const PREFIX = 'pageworks-pdf-';
let dir: string | undefined;
let using = 0;
let nextFile = 1;
let swept = false;

/** Whether process `pid` is alive (one of another user's counts). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the directories that processes gone left behind (another user's are not ours to remove). */
function sweep(): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split('-')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || alive(pid)) continue;
    try {
      fs.rmSync(path.join(os.tmpdir(), name), { recursive: true, force: true });
    } catch {
      // Another user's.
    }
  }
}

/** Two names no other operation uses, in the private directory (made now if no operation holds it). */
export function byteFiles(): ByteFiles {
  if (!dir) {
    if (!swept) {
      sweep();
      swept = true;
      // A process that exits mid-operation (its ordered shutdown included) takes its files with it.
      process.once('exit', () => dir && fs.rmSync(dir, { recursive: true, force: true }));
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `${PREFIX}${process.pid}-`));
  }
  using++;
  const n = nextFile++;
  return { in: path.join(dir, `${n}.in`), out: path.join(dir, `${n}.out`) };
}

/**
 * The operation is done with `files`: removed when `remove` (one that did not end well may have left
 * them; one that did has removed them as it read them), and the directory when no operation holds it.
 */
export async function releaseFiles(files: ByteFiles, remove: boolean): Promise<void> {
  if (remove) await Promise.all([fsp.rm(files.in, { force: true }), fsp.rm(files.out, { force: true })]).catch(() => undefined);
  if (--using > 0 || !dir) return;
  try {
    fs.rmdirSync(dir);
    dir = undefined;
  } catch {
    // Something is still in it: kept for the next operation, removed at exit.
  }
}
