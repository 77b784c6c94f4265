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
  return withInput(input, async (inFile, dir) => {
    const outFile = path.join(dir, 'out.pdf');
    const { status, stderr } = await execQpdf([...args, inFile, ...after, outFile]);
    const output = await fs.readFile(outFile).catch(() => undefined);
    return { status, stderr, output };
  });
}

/** Runs `qpdf ARGS… in.pdf` for what it prints (`--json`, `--show-encryption`): its exit status, stdout and stderr. */
export async function inspectQpdf(
  input: Uint8Array,
  args: string[],
): Promise<{ status: number; stdout: string; stderr: string }> {
  return withInput(input, (inFile) => execQpdf([...args, inFile]));
}

/** `input` written to a fresh scratch folder as `in.pdf` while `work` runs; the folder is removed after. */
async function withInput<T>(input: Uint8Array, work: (inFile: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await scratchDir('qpdf');
  try {
    const inFile = path.join(dir, 'in.pdf');
    await fs.writeFile(inFile, input);
    return await work(inFile, dir);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

function execQpdf(argv: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('qpdf', argv, { maxBuffer: 16 << 20, timeout: runLimitMs, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') return reject(new QpdfMissing());
      const code: unknown = error?.code;
      resolve({ status: error ? (typeof code === 'number' ? code : 2) : 0, stdout, stderr });
    });
  });
}

/** Whether qpdf can be started here (for start-up's check). */
export async function qpdfAvailable(): Promise<boolean> {
  return new Promise((resolve) => execFile('qpdf', ['--version'], (error) => resolve(!error)));
}
