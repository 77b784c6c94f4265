/**
 * veraPDF, the reference validator, on PDFs the tests made: the suite reads only the VERAPDF
 * variable (its path); without it the checks are skipped, said in one line. Files are checked in one
 * JVM per folder (about 4 s to start, then ~30 ms a file), so a test batches what it validates.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The validator's path, or undefined (then say so once and skip). */
export const VERAPDF = process.env.VERAPDF || undefined;

/** The line a suite prints when it skips veraPDF's checks. */
export const VERAPDF_SKIPPED = 'VERAPDF is not set: the veraPDF checks are skipped (see docs/standards.md)';

/**
 * Validates each PDF against `flavour` (`2b`, `3b`, `ua1`, …) and returns, by name, the rules it
 * fails (`7.3-1`, `6.2.4.3-2`…): an empty list means compliant.
 */
export function verapdf(pdfs: Record<string, Buffer>, flavour: string): Record<string, string[]> {
  if (Object.keys(pdfs).length === 0) throw new Error('no PDF to validate (the tests that make them failed)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-verapdf-'));
  try {
    for (const [name, pdf] of Object.entries(pdfs)) fs.writeFileSync(path.join(dir, `${name}.pdf`), pdf);
    return verapdfFolder(dir, flavour);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The JVM's options: the wrapper's own, with only the client compiler (C1). A run of a few hundred files
 * ends before C2's optimised code pays for its compiling: on 36 files C1 alone took half the CPU time.
 * A JAVA_OPTS of the caller's wins.
 */
const JAVA_OPTS = process.env.JAVA_OPTS ?? '-XX:+UseSerialGC -Xss8m -XX:TieredStopAtLevel=1';

function verapdfArgs(dir: string, flavour: string): string[] {
  return ['--flavour', flavour, '--format', 'text', '-v', '--recurse', dir];
}

/**
 * A JVM's environment and a temporary folder of its own, which the caller removes once it has ended:
 * veraPDF leaves a `logs….log` file in java.io.tmpdir on every run, some forty a suite in /tmp otherwise.
 */
function jvm(): { env: NodeJS.ProcessEnv; tmp: string } {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-verapdf-jvm-'));
  return { env: { ...process.env, JAVA_OPTS: `${JAVA_OPTS} -Djava.io.tmpdir=${tmp}` }, tmp };
}

/**
 * Validates every `*.pdf` in `dir` against `flavour` in one JVM and returns, by file name without
 * `.pdf`, the rules each fails; throws when veraPDF says nothing of a file (it could not read it).
 */
export function verapdfFolder(dir: string, flavour: string): Record<string, string[]> {
  if (!VERAPDF) throw new Error(VERAPDF_SKIPPED);
  const { env, tmp } = jvm();
  const run = spawnSync(VERAPDF, verapdfArgs(dir, flavour), { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env });
  fs.rmSync(tmp, { recursive: true, force: true });
  return verapdfResults(dir, run.stdout, run.stderr, run.status);
}

/** As `verapdfFolder`, without blocking: renders and other JVMs go on while this one validates. */
export function verapdfFolderAsync(dir: string, flavour: string): Promise<Record<string, string[]>> {
  if (!VERAPDF) return Promise.reject(new Error(VERAPDF_SKIPPED));
  const { env, tmp } = jvm();
  const child = spawn(VERAPDF, verapdfArgs(dir, flavour), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));
  return new Promise((resolve, reject) => {
    child.on('error', (e) => {
      fs.rmSync(tmp, { recursive: true, force: true });
      reject(e);
    });
    child.on('close', (status) => {
      fs.rmSync(tmp, { recursive: true, force: true });
      try {
        resolve(verapdfResults(dir, Buffer.concat(out).toString('utf8'), Buffer.concat(err).toString('utf8'), status));
      } catch (e) {
        reject(e);
      }
    });
  });
}

/** The rules each file of `dir` fails, read from veraPDF's text report; throws for a file it says nothing of. */
function verapdfResults(dir: string, stdout: string, stderr: string, status: number | null): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  let current: string | undefined;
  for (const line of stdout.split('\n')) {
    const file = /^(PASS|FAIL) (\S+\.pdf)/.exec(line);
    if (file) {
      current = path.basename(file[2], '.pdf');
      result[current] = [];
      continue;
    }
    const rule = /^\s+FAIL (\S+)/.exec(line);
    if (rule && current) result[current].push(rule[1]);
  }
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.pdf'))) {
    const name = path.basename(file, '.pdf');
    if (!result[name])
      throw new Error(`veraPDF said nothing of ${file} (status ${status}):\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`);
  }
  return result;
}
