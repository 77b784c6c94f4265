/**
 * One PDF worker process: how it is started (the compiled worker-entry.js in production, the TypeScript
 * through tsx in tests; its V8 heap capped to the memory bound) and how much memory it holds, read from
 * /proc while it works.
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The limits of the PDF work (PDF_WORKERS, PDF_WORK_TIMEOUT_MS, PDF_WORK_MAX_MB). */
export interface PdfWorkLimits {
  workers: number;
  timeoutMs: number;
  maxMemoryMb: number;
  /** Bytes a message carries inline before they go through a file (INLINE_MAX_BYTES); a bench's baseline sets more. */
  inlineMaxBytes?: number;
}

const PAGE_BYTES = 4096;

/** Starts a worker process; it never keeps the service alive on its own (an operation's timer does while it runs). */
export function startWorker(limits: PdfWorkLimits): ChildProcess {
  const ownUrl = import.meta.url;
  const ts = ownUrl.endsWith('.ts');
  const file = fileURLToPath(new URL(ts ? './worker-entry.ts' : './worker-entry.js', ownUrl));
  const { timeoutMs, inlineMaxBytes } = limits;
  const child = fork(file, [JSON.stringify({ timeoutMs, inlineMaxBytes })], {
    execArgv: [`--max-old-space-size=${limits.maxMemoryMb}`, ...(ts ? ['--import', 'tsx'] : [])],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  child.unref();
  child.channel?.unref();
  return child;
}

/** Resident memory of a process in MiB, or undefined where /proc cannot say. */
export function residentMb(pid: number | undefined): number | undefined {
  try {
    const pages = Number(fs.readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]);
    return (pages * PAGE_BYTES) / (1024 * 1024);
  } catch {
    return undefined;
  }
}
