/**
 * The same prints on Chromium's headless shell and on full Chromium: the render corpus, the saved documents
 * of test/fixtures/render, the cross-reference report (and PAGEWORKS_CORPUS_DIR's pages when set) are
 * printed by one pool on each browser, and each pair must have the same pages, the same page rasters
 * (documents with a raster image may differ by that image's resampling only), the same tags (structure
 * tree, marked-content count) and the same outline. Skips with one line when either browser is missing.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressPolicy } from '../../src/net/policy.js';
import { BrowserPool } from '../../src/render/pool/browser-pool.js';
import { toPrintParams } from '../../src/render/request/options.js';
import { corpusDocuments } from '../fixtures/corpus/documents.js';
import { extraCorpusDir } from '../fixtures/corpus/index.js';
import { crossReferenceReport } from '../fixtures/cross-reference-report.js';
import { pdfInfo, pdfOutline, pdfStructure } from './pdf-tools.js';

const SHELL = '/usr/lib/chromium/chromium-headless-shell';
const FULL = '/usr/bin/chromium';
const missing = [SHELL, FULL].filter((file) => !fs.existsSync(file));
if (missing.length > 0) console.log(`browser comparison SKIPPED: ${missing.join(' and ')} not installed`);

const DPI = '50';
/** Share of a page's pixels a raster image's resampling may change (the letter's photo: about 0.3 %). */
const IMAGE_TOLERANCE = 0.01;
/** A channel difference below this is anti-aliasing noise of the rasteriser, not a different print. */
const CHANNEL_NOISE = 16;

function documents(): Record<string, string> {
  const docs: Record<string, string> = {};
  for (const doc of corpusDocuments()) docs[doc.name.replace(/\.html$/, '')] = doc.html;
  const saved = path.resolve(import.meta.dirname, '../fixtures/render');
  for (const file of fs.readdirSync(saved).filter((f) => f.endsWith('.html'))) {
    docs[`fixture-${file.replace(/\.html$/, '')}`] = fs.readFileSync(path.join(saved, file), 'utf8');
  }
  docs['cross-reference-report'] = crossReferenceReport({ parts: [3, 9, 2, 6] });
  const extra = extraCorpusDir('render');
  for (const file of extra ? fs.readdirSync(extra).filter((f) => f.endsWith('.html')) : []) {
    docs[`saved-${file.replace(/\.html$/, '')}`] = fs.readFileSync(path.join(extra ?? '', file), 'utf8');
  }
  return docs;
}

let work: string;
const printed: Record<string, { shell: Buffer; full: Buffer }> = {};
const docs = documents();

beforeAll(async () => {
  if (missing.length > 0) return;
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-browsers-'));
  const start = (executablePath: string) =>
    BrowserPool.start({
      policy: createEgressPolicy({ allow: [] }),
      concurrency: 1,
      queueLimit: 0,
      timeoutMs: 60_000,
      executablePath,
    });
  const [shell, full] = await Promise.all([start(SHELL), start(FULL)]);
  try {
    expect([shell.browser?.build, full.browser?.build]).toEqual(['chromium-headless-shell', 'chromium']);
    for (const [name, html] of Object.entries(docs)) {
      // One document at a time on both browsers: the pair sees the same machine load.
      const [a, b] = await Promise.all([
        shell.render('compare', html, toPrintParams({})),
        full.render('compare', html, toPrintParams({})),
      ]);
      printed[name] = { shell: a.pdf, full: b.pdf };
    }
  } finally {
    await Promise.all([shell.close(), full.close()]);
  }
}, 600_000);

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** Page rasters (binary PPM) of a PDF, in page order. */
function rasters(pdf: Buffer, name: string): Buffer[] {
  const dir = fs.mkdtempSync(path.join(work, `${name}-`));
  fs.writeFileSync(path.join(dir, 'doc.pdf'), pdf);
  execFileSync('pdftoppm', ['-r', DPI, path.join(dir, 'doc.pdf'), path.join(dir, 'p')]);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ppm'))
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f)));
}

/** Share of pixels that differ by more than the rasteriser's noise in any channel (1 when the sizes differ). */
function differingShare(a: Buffer, b: Buffer): number {
  if (a.length !== b.length) return 1;
  const header = /^P6\s+\d+\s+\d+\s+\d+\s/.exec(a.subarray(0, 64).toString('latin1'))?.[0].length ?? 0;
  let differing = 0;
  for (let i = header; i < a.length; i += 3) {
    if (
      Math.abs(a[i] - b[i]) > CHANNEL_NOISE ||
      Math.abs(a[i + 1] - b[i + 1]) > CHANNEL_NOISE ||
      Math.abs(a[i + 2] - b[i + 2]) > CHANNEL_NOISE
    ) {
      differing++;
    }
  }
  return differing / ((a.length - header) / 3);
}

/** Marked-content ids in the page streams (uncompressed by qpdf): what the structure tree points at. */
function mcidCount(pdf: Buffer, name: string): number {
  const file = path.join(work, `${name}-mcid.pdf`);
  fs.writeFileSync(file, pdf);
  const qdf = execFileSync('qpdf', ['--qdf', '--object-streams=disable', file, '-'], { maxBuffer: 256 << 20 });
  return (qdf.toString('latin1').match(/\/MCID \d+/g) ?? []).length;
}

describe.skipIf(missing.length > 0)('the same prints on the headless shell and full Chromium', () => {
  it.each(Object.keys(docs))('%s: same pages and page rasters', (name) => {
    const { shell, full } = printed[name];
    const [a, b] = [rasters(shell, `${name}-shell`), rasters(full, `${name}-full`)];
    expect(a.length).toBeGreaterThan(0);
    expect(a.length).toBe(b.length);
    // Only a raster image may resample differently; text, rules, fills and vector art print alike.
    const tolerance = /<img\b|url\(\s*['"]?data:image\/(png|jpe?g|webp|gif)/i.test(docs[name]) ? IMAGE_TOLERANCE : 0;
    const shares = a.map((page, i) => differingShare(page, b[i]));
    expect(Math.max(...shares), `pages' differing shares: ${shares.map((s) => s.toFixed(4)).join(' ')}`).toBeLessThanOrEqual(
      tolerance,
    );
  });

  it.each(Object.keys(docs))('%s: same tags (structure tree, marked content) and outline', (name) => {
    const { shell, full } = printed[name];
    const [infoA, infoB] = [pdfInfo(shell), pdfInfo(full)];
    expect(infoA.tagged).toBe(true);
    expect(infoB).toEqual(infoA);
    // A table header cell's id is Blink's DOM node id (node00000623), which differs between any two renders.
    const tree = (pdf: Buffer) =>
      pdfStructure(pdf)
        .replace(/node\d{8}/g, 'node')
        .split('\n');
    const [treeA, treeB] = [tree(shell), tree(full)];
    const first = treeA.findIndex((line, i) => line !== treeB[i]);
    expect(first === -1 ? '' : `line ${first + 1}: ${treeA[first]} | ${treeB[first]}`).toBe('');
    expect(treeB.length).toBe(treeA.length);
    const mcids = mcidCount(shell, `${name}-shell`);
    expect(mcids).toBeGreaterThan(0);
    expect(mcidCount(full, `${name}-full`)).toBe(mcids);
    const outline = pdfOutline(shell);
    expect(pdfOutline(full)).toEqual(outline);
    // Every document with a heading gets an outline on both.
    if (/<h[1-6]\b/i.test(docs[name])) expect(outline.length).toBeGreaterThan(0);
  });
});
