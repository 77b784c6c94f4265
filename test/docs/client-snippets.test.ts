/**
 * The client examples of README.md, docs/client.md and clients/js/README.md (```ts blocks) type-check as
 * written under `strict`, importing `@pageworks/client` as an installed client is imported. The name is
 * mapped to the client's sources, which the package is built from (test/client/package-install.test.ts
 * checks the built package itself); a copy that misuses `renderId` must fail the same check.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = ['README.md', 'docs/client.md', 'clients/js/README.md'];

/** The ```ts blocks of one Markdown file. */
function snippets(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

// Inside the repository (test-artifacts/ is ignored by git), so Node's types resolve as in a project.
fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
const work = fs.mkdtempSync(path.join(ROOT, 'test-artifacts', 'client-snippets-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Type-checks the files strictly; the error lines tsc printed. */
async function typeCheck(files: Record<string, string>): Promise<string[]> {
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(work, name), text);
  const tsconfig = {
    compilerOptions: {
      strict: true,
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [path.join(ROOT, 'node_modules/@types')],
      paths: { '@pageworks/client': [path.join(ROOT, 'src/client/index.ts')] },
      allowImportingTsExtensions: true,
    },
    files: Object.keys(files),
  };
  fs.writeFileSync(path.join(work, 'tsconfig.json'), JSON.stringify(tsconfig));
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  const out = await promisify(execFile)(process.execPath, [tsc, '-p', '.'], { cwd: work }).catch(
    (err: { stdout: string }) => err,
  );
  return out.stdout.split('\n').filter((line) => line.includes('error TS'));
}

describe('client examples in the docs', () => {
  it('every doc imports the installed package name; each example, getRender(pdf.renderId) included, compiles under strict', async () => {
    const files: Record<string, string> = {};
    for (const doc of DOCS) {
      const blocks = snippets(doc);
      expect(blocks.length, `${doc} has a client example`).toBeGreaterThan(0);
      blocks.forEach((block, i) => {
        expect(block).toContain("from '@pageworks/client'");
        files[`${doc.replace(/\W+/g, '-')}-${i}.mts`] = block;
      });
    }
    expect(Object.values(files).join('\n')).toContain('render.getRender(pdf.renderId)');
    // The same call with a stream's id (a job's PDF may carry none) must be refused: the check is real.
    files['render-id.mts'] = `import { RenderClient } from '@pageworks/client';
const render = new RenderClient({ baseUrl: 'http://127.0.0.1:3001', apiKey: 'pwr_live_x' });
const pdf = await render.render('<p>x</p>');
await render.getRender(pdf.renderId);
const stream = await render.renderStream('<p>x</p>');
await render.getRender(stream.renderId);
`;
    expect(await typeCheck(files)).toEqual([expect.stringMatching(/^render-id\.mts\(6,\d+\): error TS2345/)]);
  }, 240_000);
});
