#!/usr/bin/env node
// Builds @pageworks/client from the repository's src/client into dist/: each module transpiled on its own
// (the client imports nothing of the server at run time: checked below), and one declaration file with
// every type it names inlined, the server's request and answer schemas included, so the package needs
// no dependency for its types either. Runs on `npm pack` (prepack); tools come from the repository's
// node_modules (npm puts their .bin on PATH for run-scripts).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const source = path.join(root, 'src', 'client');
const out = path.join(here, 'dist');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

for (const file of fs.readdirSync(source).filter((f) => f.endsWith('.ts'))) {
  const text = fs.readFileSync(path.join(source, file), 'utf8');
  const { outputText } = ts.transpileModule(text, {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
  });
  for (const [, spec] of outputText.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/gm)) {
    if (!spec.startsWith('./') && !spec.startsWith('node:')) {
      throw new Error(`src/client/${file} imports ${spec} at run time: the client package must stand alone`);
    }
  }
  fs.writeFileSync(path.join(out, file.replace(/\.ts$/, '.js')), outputText);
}

const res = spawnSync(
  'dts-bundle-generator',
  [
    '--project',
    path.join(here, 'tsconfig.json'),
    '--no-check',
    '--external-inlines',
    '@sinclair/typebox',
    '--export-referenced-types=false',
    '--silent',
    '-o',
    path.join(out, 'index.d.ts'),
    path.join(source, 'index.ts'),
  ],
  { stdio: 'inherit', cwd: here },
);
if (res.status !== 0) throw new Error(`dts-bundle-generator failed (exit ${res.status ?? res.signal})`);
const dts = fs.readFileSync(path.join(out, 'index.d.ts'), 'utf8');
const foreign = [...dts.matchAll(/from\s+['"]([^'"]+)['"]/g)].map((m) => m[1]).filter((s) => !s.startsWith('node:'));
if (foreign.length > 0) throw new Error(`index.d.ts still imports ${foreign.join(', ')}`);
process.stderr.write(`[client] built ${path.relative(root, out)}\n`);
