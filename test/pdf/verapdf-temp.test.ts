/**
 * The suite's veraPDF runs leave nothing behind in the temporary folder: the validator writes a log file
 * (`logs….log`) into java.io.tmpdir on every run and never removes it, so verapdf.ts gives each JVM a
 * folder of its own and removes it. Skipped, in one line, without veraPDF.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERAPDF, VERAPDF_SKIPPED, verapdf, verapdfFolderAsync } from './verapdf.js';

const JVM_LOG = /^logs\d+\.log$/;
const logsInTmp = () => fs.readdirSync(os.tmpdir()).filter((name) => JVM_LOG.test(name));

describe('veraPDF in the suite', () => {
  it('leaves no log file in the temporary folder, run blocking or not', async () => {
    if (!VERAPDF) {
      console.log(VERAPDF_SKIPPED);
      return;
    }
    const before = new Set(logsInTmp());
    const pdf = fs.readFileSync(path.resolve('test/fixtures/assemble/terms-objstm.pdf'));
    expect(Object.keys(verapdf({ terms: pdf }, '2b'))).toEqual(['terms']);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-verapdf-temp-'));
    try {
      fs.writeFileSync(path.join(dir, 'terms.pdf'), pdf);
      expect(Object.keys(await verapdfFolderAsync(dir, '2b'))).toEqual(['terms']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(logsInTmp().filter((name) => !before.has(name))).toEqual([]);
  }, 60_000);
});
