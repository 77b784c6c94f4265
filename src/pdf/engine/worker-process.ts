/**
 * One PDF worker process: how it is started (the compiled worker-entry.js in production; its V8 heap capped
 * to the memory bound) and how much memory it holds, read from /proc while it works.
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

/**
 * The worker's module, and the loader Node needs for it. Built, worker-entry.js beside this file. Run from
 * the TypeScript sources (the test suite, a bench): the one-file build of worker-entry.ts the suite's global
 * set-up names in PAGEWORKS_PDF_WORKER_BUNDLE (test/global-setup.ts), else worker-entry.ts through tsx, which
 * compiles the worker's modules again at every start (0.85 s of a core, against 0.2 s for the bundle).
 */
function workerModule(): { file: string; loader: string[] } {
  const ownUrl = import.meta.url;
  if (!ownUrl.endsWith('.ts')) return { file: fileURLToPath(new URL('./worker-entry.js', ownUrl)), loader: [] };
  const bundle = process.env.PAGEWORKS_PDF_WORKER_BUNDLE;
  if (bundle) return { file: bundle, loader: [] };
  return { file: fileURLToPath(new URL('./worker-entry.ts', ownUrl)), loader: ['--import', 'tsx'] };
}

/** Starts a worker process; it never keeps the service alive on its own (an operation's timer does while it runs). */
export function startWorker(limits: PdfWorkLimits): ChildProcess {
  const { file, loader } = workerModule();
  const { timeoutMs, inlineMaxBytes } = limits;
  const child = fork(file, [JSON.stringify({ timeoutMs, inlineMaxBytes })], {
    execArgv: [`--max-old-space-size=${limits.maxMemoryMb}`, ...loader],
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
