/**
 * @pageworks/client as an integrator gets it: `npm pack` in clients/js, the tarball installed offline into
 * a scratch project outside the repository, a strict TypeScript file type-checked against the package's
 * own declarations (`tsc --noEmit`, library checks on), then run against started render and metadata
 * services: a PDF is written and the page's metadata printed.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { type Origin, startOrigin } from '../metadata/origin.js';
import { pdfInfo, pdfText } from '../render/pdf-tools.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const PACKAGE = path.join(ROOT, 'clients', 'js');

const SCRIPT = `import fs from 'node:fs';
import { type Metadata, MetadataClient, RenderApiError, RenderClient } from '@pageworks/client';

const [renderUrl, renderKey, metadataUrl, metadataKey, pageUrl, out] = process.argv.slice(2) as [string, string, string, string, string, string];
const render = new RenderClient({ baseUrl: renderUrl, apiKey: renderKey });
const pdf: Buffer = await render.render('<h1>Packed client invoice</h1>', { format: 'A5', landscape: true });
fs.writeFileSync(out, pdf);
const metadata = new MetadataClient({ baseUrl: metadataUrl, apiKey: metadataKey });
const page: Metadata = await metadata.fetchMetadata(pageUrl);
console.log(JSON.stringify(page));
try {
  await render.render('<p>x</p>', { scale: 3 });
} catch (err) {
  if (err instanceof RenderApiError) console.log(\`refused: \${err.status} \${err.code}\`);
}
`;

let core: CoreDeps;
let apps: FastifyInstance[] = [];
let origin: Origin;
let scratch: string;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-client-install-'));
  origin = await startOrigin((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end('<!doctype html><title>Packed page</title><meta property="og:title" content="From the tarball">');
  });
  core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32', METADATA_CACHE_TTL_S: '0' });
  apps = [await buildRenderApp(core, { lookup: noDns }), await buildMetadataApp(core)];
  for (const app of apps) await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  for (const app of apps) await app.close();
  if (core) await closeTestCore(core);
  await origin?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

it('packs, installs offline into another project, type-checks strictly and renders and fetches', {
  timeout: 600_000,
}, async () => {
  // npm pack runs the package's prepack build; npm puts the repository's node_modules/.bin on its PATH.
  const packed = await run('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: PACKAGE });
  const [{ filename, files }] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'README.md']));

  const project = path.join(scratch, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(scratch, filename)], { cwd: project });
  const installed = JSON.parse(fs.readFileSync(path.join(project, 'node_modules/@pageworks/client/package.json'), 'utf8'));
  expect(installed.dependencies ?? {}).toEqual({});
  expect(fs.readdirSync(path.join(project, 'node_modules')).filter((d) => !d.startsWith('.'))).toEqual(['@pageworks']);

  fs.writeFileSync(path.join(project, 'check.ts'), SCRIPT);
  // A file that misuses the types must fail the same check: the declarations are real, not `any`.
  fs.writeFileSync(
    path.join(project, 'misuse.ts'),
    "import type { Metadata } from '@pageworks/client';\nexport const wrong = (m: Metadata): number => m.title;\n",
  );
  // Strict, library declarations checked too (no skipLibCheck); Node's types as an integrator has them.
  const tsconfig = {
    compilerOptions: {
      strict: true,
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      noEmit: true,
      typeRoots: [path.join(ROOT, 'node_modules/@types')],
      types: ['node'],
    },
    files: ['check.ts', 'misuse.ts'],
  };
  fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const checked = await run(process.execPath, [tsc, '--noEmit', '-p', '.'], { cwd: project }).catch(
    (err: { stdout: string }) => err,
  );
  // Exactly one error, in misuse.ts: check.ts and the package's own declarations are clean.
  expect(checked.stdout.split('\n').filter((line) => line.includes('error TS'))).toEqual([
    expect.stringMatching(/^misuse\.ts\(2,\d+\): error TS2322: Type 'string \| null' is not assignable to type 'number'/),
  ]);

  fs.writeFileSync(
    path.join(project, 'check.js'),
    ts.transpileModule(SCRIPT, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText,
  );
  const [renderBase, metadataBase] = apps.map((app) => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
  const pdfFile = path.join(project, 'out.pdf');
  const { stdout } = await run(
    process.execPath,
    [
      'check.js',
      renderBase!,
      (await createKey(core, 'render')).key,
      metadataBase!,
      (await createKey(core, 'metadata')).key,
      `${origin.base}/page`,
      pdfFile,
    ],
    { cwd: project },
  );
  const [json, refused] = stdout.trim().split('\n');
  expect(JSON.parse(json!)).toMatchObject({
    title: 'Packed page',
    og_title: 'From the tarball',
    favicon_url: `${origin.base}/favicon.ico`,
  });
  expect(refused).toBe('refused: 400 INVALID_REQUEST');
  const pdf = fs.readFileSync(pdfFile);
  const info = pdfInfo(pdf);
  expect(info.pages).toBe(1);
  // A5 landscape: 210 × 148 mm.
  expect(Math.round(info.width / (72 / 25.4))).toBe(210);
  expect(pdfText(pdf)).toContain('Packed client invoice');
});
