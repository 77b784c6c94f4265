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
  if (!VERAPDF) throw new Error(VERAPDF_SKIPPED);
  if (Object.keys(pdfs).length === 0) throw new Error('no PDF to validate (the tests that make them failed)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-verapdf-'));
  try {
    for (const [name, pdf] of Object.entries(pdfs)) fs.writeFileSync(path.join(dir, `${name}.pdf`), pdf);
    const run = spawnSync(VERAPDF, ['--flavour', flavour, '--format', 'text', '-v', '--recurse', dir], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
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
    for (const name of Object.keys(pdfs)) {
      if (!result[name])
        throw new Error(`veraPDF said nothing of ${name}.pdf (status ${run.status}):\n${run.stdout}\n${run.stderr}`);
    }
    return result;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
