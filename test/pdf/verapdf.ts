/**
 * veraPDF, the reference validator, on PDFs the tests made: the suite reads only the VERAPDF
 * variable (its path); without it the checks are skipped, said in one line. Files are checked in one
 * JVM per folder (about 4 s to start, then ~30 ms a file), so a test batches what it validates.
 */
import { spawnSync } from 'node:child_process';
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
 * Validates every `*.pdf` in `dir` against `flavour` in one JVM and returns, by file name without
 * `.pdf`, the rules each fails; throws when veraPDF says nothing of a file (it could not read it).
 */
export function verapdfFolder(dir: string, flavour: string): Record<string, string[]> {
  if (!VERAPDF) throw new Error(VERAPDF_SKIPPED);
  const run = spawnSync(VERAPDF, ['--flavour', flavour, '--format', 'text', '-v', '--recurse', dir], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const result: Record<string, string[]> = {};
  let current: string | undefined;
  for (const line of run.stdout.split('\n')) {
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
      throw new Error(
        `veraPDF said nothing of ${file} (status ${run.status}):\n${run.stdout.slice(-4000)}\n${run.stderr.slice(-4000)}`,
      );
  }
  return result;
}
