/**
 * Once before the suite: the PDF worker (src/pdf/engine/worker-entry.ts) compiled into one JavaScript file,
 * which the services the tests start fork instead of the TypeScript through tsx (worker-process.ts reads
 * PAGEWORKS_PDF_WORKER_BUNDLE). Through tsx each worker compiled its modules again as it started, about
 * 0.85 s of a core against 0.2 s for the bundle, and its first Factur-X check compiled the checker too;
 * the suite starts a few hundred workers. Built from the sources as they are now, so an edit is in the
 * next run, as it was under tsx.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Inside the repository: the bundle's imports of packages resolve from its node_modules. */
const DIR = path.join(ROOT, 'node_modules', '.cache', 'pageworks-test');
/** Bundles older than this are another run's, long finished. */
const STALE_MS = 24 * 60 * 60 * 1000;

export default async function setup(): Promise<void> {
  const result = await build({
    entryPoints: [path.join(ROOT, 'src', 'pdf', 'engine', 'worker-entry.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Packages stay imports, loaded as the service loads them; only the worker's own modules are joined.
    packages: 'external',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  // Named by content, written whole then renamed: two runs in one checkout never read a half-written file.
  const file = path.join(DIR, `pdf-worker-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  fs.mkdirSync(DIR, { recursive: true });
  if (fs.existsSync(file)) {
    const now = new Date();
    fs.utimesSync(file, now, now);
  } else {
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, code);
    fs.renameSync(partial, file);
  }
  for (const name of fs.readdirSync(DIR)) {
    const other = path.join(DIR, name);
    if (other !== file && Date.now() - fs.statSync(other).mtimeMs > STALE_MS) fs.rmSync(other, { force: true });
  }
  // Set before the test processes start, which inherit it (and pass it on to the servers and CLIs they spawn).
  process.env.PAGEWORKS_PDF_WORKER_BUNDLE = file;
}
