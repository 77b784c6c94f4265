/**
 * Documents that use no cross-references print as they did before cross-references existed: the render
 * corpus (and PAGEWORKS_CORPUS_DIR's pages when set) is printed by this tree's renderer and by the
 * renderer of a baseline commit (PAGEWORKS_BASELINE_REF, default the last commit before cross-references,
 * extracted into a temp folder),
 * and every page of each document that does not use them must rasterise to the same pixels (the saved
 * WeasyPrint report does use them: its table of contents now gets its titles and pages). Every PDF of this tree must also be free of the
 * browser's name and of about:blank, and sound for qpdf.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mentionsCrossReferences } from '../../src/render/document/cross-references.js';
import { corpusDocuments } from '../fixtures/corpus/documents.js';
import { extraCorpusDir } from '../fixtures/corpus/index.js';
import { qpdfCheck } from './pdf-tools.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
// The last commit whose renderer had no cross-references: comparing against main would compare this tree with itself.
const BASELINE_REF = process.env.PAGEWORKS_BASELINE_REF ?? 'e07b799263d8ef056950295d9c7eff1f9cd82cd5';
const RASTER_DPI = '50';

/** Renders every document of `input` (name → HTML, JSON) with the renderer under `root`, one PDF per name. */
const DRIVER = `
import fs from 'node:fs';
import path from 'node:path';
const [root, input, out] = process.argv.slice(2);
// The baseline is an earlier commit, from before render/ had its layers: each module is taken from where
// this tree keeps it, else from where the baseline did.
const first = (...rels) => {
  const found = rels.map((rel) => path.join(root, rel)).find((file) => fs.existsSync(file));
  if (!found) throw new Error('none of ' + rels.join(', ') + ' under ' + root);
  return found;
};
const { BrowserPool } = await import(first('src/render/pool/browser-pool.ts', 'src/render/browser-pool.ts'));
const { createEgressPolicy } = await import(first('src/net/policy.ts'));
const { toPrintParams } = await import(first('src/render/request/options.ts', 'src/render/options.ts'));
const pool = await BrowserPool.start({ policy: createEgressPolicy({ allow: [] }), concurrency: 1, queueLimit: 0, timeoutMs: 30000, executablePath: process.env.CHROMIUM_PATH || undefined });
try {
  for (const [name, html] of Object.entries(JSON.parse(fs.readFileSync(input, 'utf8')))) {
    const printed = await pool.render('corpus', html, toPrintParams({}), undefined, { warn() {} });
    fs.writeFileSync(path.join(out, name + '.pdf'), Buffer.isBuffer(printed) ? printed : printed.pdf);
  }
} finally {
  await pool.close();
}
`;

let work: string;
let baselineAvailable = true;

function documents(): Record<string, string> {
  const docs: Record<string, string> = {};
  for (const doc of corpusDocuments()) docs[doc.name.replace(/\.html$/, '')] = doc.html;
  const extra = extraCorpusDir('render');
  for (const file of extra ? fs.readdirSync(extra).filter((f) => f.endsWith('.html')) : []) {
    docs[`saved-${file.replace(/\.html$/, '')}`] = fs.readFileSync(path.join(extra ?? '', file), 'utf8');
  }
  return docs;
}

/** Page rasters of a PDF, in order (pdftoppm's PPM files). */
function rasters(pdf: string): Buffer[] {
  const dir = fs.mkdtempSync(path.join(work, 'raster-'));
  execFileSync('pdftoppm', ['-r', RASTER_DPI, pdf, path.join(dir, 'p')]);
  return fs
    .readdirSync(dir)
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f)));
}

function render(root: string, out: string): void {
  fs.mkdirSync(out);
  execFileSync(process.execPath, ['--import', 'tsx', path.join(work, 'driver.mts'), root, path.join(work, 'docs.json'), out], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-xref-corpus-'));
  fs.writeFileSync(path.join(work, 'driver.mts'), DRIVER);
  fs.writeFileSync(path.join(work, 'docs.json'), JSON.stringify(documents()));
  render(ROOT, path.join(work, 'after'));
  const baseline = path.join(work, 'baseline');
  fs.mkdirSync(baseline);
  try {
    const archive = execFileSync('git', ['-C', ROOT, 'archive', BASELINE_REF, 'src', 'package.json'], { maxBuffer: 256 << 20 });
    execFileSync('tar', ['-x', '-C', baseline], { input: archive });
  } catch {
    baselineAvailable = false;
    console.warn(`\n*** ${BASELINE_REF} cannot be read from git: the comparison with the baseline renderer is SKIPPED ***\n`);
    return;
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(baseline, 'node_modules'));
  render(baseline, path.join(work, 'before'));
}, 300_000);

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('documents without cross-references', () => {
  it('print with the same page count and page rasters as the baseline renderer', (ctx) => {
    if (!baselineAvailable) ctx.skip();
    const docs = documents();
    const names = Object.keys(docs).filter((name) => !mentionsCrossReferences(docs[name] ?? ''));
    expect(names.length).toBeGreaterThanOrEqual(6);
    for (const name of names) {
      const before = rasters(path.join(work, 'before', `${name}.pdf`));
      const after = rasters(path.join(work, 'after', `${name}.pdf`));
      expect(after.length, name).toBe(before.length);
      for (const [i, page] of after.entries()) expect(page.equals(before[i]), `${name} page ${i + 1}`).toBe(true);
    }
  });

  it('print no byte naming the browser or about:blank, and qpdf --check passes', () => {
    for (const name of Object.keys(documents())) {
      const pdf = fs.readFileSync(path.join(work, 'after', `${name}.pdf`));
      expect(pdf.includes('HeadlessChrome'), name).toBe(false);
      expect(pdf.includes('about:blank'), name).toBe(false);
      expect(qpdfCheck(pdf), name).toMatchObject({ status: 0 });
    }
  });
});
