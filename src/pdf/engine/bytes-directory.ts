/**
 * Where the bytes that cross to the PDF workers through files live: one private directory per process
 * (mode 0700), there only while an operation uses it, so a process that ends leaves nothing behind. A
 * process killed mid-operation cannot remove its own; the next one removes the directories of processes
 * gone before it makes its own (scratch-dirs.ts).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { scratchDirSync } from '../../scratch-dirs.js';

/** An operation's two files: its arguments' bytes in, its result's bytes out. */
export interface ByteFiles {
  in: string;
  out: string;
}

let dir: string | undefined;
let using = 0;
let nextFile = 1;
let exitHooked = false;

/** Two names no other operation uses, in the private directory (made now if no operation holds it). */
export function byteFiles(): ByteFiles {
  if (!dir) {
    if (!exitHooked) {
      exitHooked = true;
      // A process that exits mid-operation (its ordered shutdown included) takes its files with it.
      process.once('exit', () => dir && fs.rmSync(dir, { recursive: true, force: true }));
    }
    dir = scratchDirSync('pdf');
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
