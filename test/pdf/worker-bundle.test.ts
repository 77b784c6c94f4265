/**
 * The suite's PDF workers run the one-file build of the worker that test/global-setup.ts made from the
 * sources, not the TypeScript through tsx: a worker's start through tsx cost four times the CPU, and the
 * suite starts a few hundred.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { PDFDocument } from '@cantoo/pdf-lib';
import { afterAll, expect, it } from 'vitest';
import { PdfEngine } from '../../src/pdf/engine.js';

const engine = new PdfEngine({ workers: 1, timeoutMs: 10_000, maxMemoryMb: 256 });
afterAll(() => engine.close());

it('forks the bundle the global set-up built, with no loader, and it answers', async () => {
  const bundle = process.env.PAGEWORKS_PDF_WORKER_BUNDLE;
  expect(bundle).toMatch(/node_modules\/\.cache\/pageworks-test\/pdf-worker-[0-9a-f]{16}\.mjs$/);
  expect(fs.existsSync(bundle as string)).toBe(true);
  const doc = await PDFDocument.create();
  doc.addPage();
  doc.addPage();
  const pdf = await doc.save({ useObjectStreams: false });
  expect(await engine.run('count-pages', { pdf }, { label: 'parts[0]' })).toBe(2);
  const [pid] = engine.pids;
  const args = execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  expect(args).toBe(`${process.execPath} --max-old-space-size=256 ${bundle} {"timeoutMs":10000}`);
});
