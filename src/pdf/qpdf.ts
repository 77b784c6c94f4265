/**
 * Debian's qpdf, run as a child process on temporary files: the product needs it (set-up, the image and CI
 * install it) to read PDFs laid out otherwise than Chromium writes them.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { scratchDir } from '../scratch-dirs.js';

/** What qpdf said: its exit status (0 clean, 2 error, 3 warnings), stderr and the output file's bytes. */
export interface QpdfRun {
  status: number;
  stderr: string;
  output?: Buffer;
}

/** qpdf is not installed (or not on PATH). */
export class QpdfMissing extends Error {
  constructor() {
    super('qpdf is not installed: assembling and protecting PDFs need it (apt-get install -y qpdf)');
  }
}

/** How long one qpdf run may take before it is killed (a PDF worker sets its deadline: qpdf outlives a terminated thread). */
let runLimitMs = 60_000;

/** Sets how long one qpdf run may take (ms) before it is killed. */
export function limitQpdfRuns(ms: number): void {
  runLimitMs = ms;
}

/**
 * Runs `qpdf ARGS… in.pdf out.pdf` on `input`; `args` come before the file names. A qpdf that cannot be
 * started is QpdfMissing; any exit status is returned, with the output when qpdf wrote one.
 */
export async function runQpdf(input: Uint8Array, args: string[], after: string[] = []): Promise<QpdfRun> {
  const dir = await scratchDir('qpdf');
  try {
    const inFile = path.join(dir, 'in.pdf');
    const outFile = path.join(dir, 'out.pdf');
    await fs.writeFile(inFile, input);
    const { status, stderr } = await new Promise<{ status: number; stderr: string }>((resolve, reject) => {
      execFile(
        'qpdf',
        [...args, inFile, ...after, outFile],
        { maxBuffer: 16 << 20, timeout: runLimitMs, killSignal: 'SIGKILL' },
        (error, _stdout, stderrText) => {
          if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') return reject(new QpdfMissing());
          const code: unknown = error?.code;
          resolve({ status: error ? (typeof code === 'number' ? code : 2) : 0, stderr: stderrText });
        },
      );
    });
    const output = await fs.readFile(outFile).catch(() => undefined);
    return { status, stderr, output };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Whether qpdf can be started here (for start-up's check). */
export async function qpdfAvailable(): Promise<boolean> {
  return new Promise((resolve) => execFile('qpdf', ['--version'], (error) => resolve(!error)));
}
