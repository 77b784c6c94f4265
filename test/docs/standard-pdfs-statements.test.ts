/**
 * What the docs say to someone making standard PDFs from a fresh clone, against what the code does:
 * veraPDF with explicit flavours (not `0`, which fails PDF/A-3b + PDF/UA-1 files), the X-Render-Claims
 * header and the counted `conformance` entries in api.md, `claims` and `@types/node` in client.md, the
 * first start's measured cost in README, and package.json's decision on xsd-schema-validator's script.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLAIMS_HEADER, claimsHeaderValue } from '../../src/render/report/claims-header.js';
import { warningCount } from '../../src/report/report.js';
import { ROOT, readDoc, withoutFences } from './markdown.js';

/** The section of a markdown file under `heading`, up to the next heading of its level or higher. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  expect(start, `has "${heading}"`).toBeGreaterThanOrEqual(0);
  const level = heading.split(' ')[0];
  const rest = text.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return next < 0 ? rest : rest.slice(0, next);
}

describe('docs/standards.md, veraPDF', () => {
  const verify = section(readDoc('docs/standards.md'), '## Check a PDF yourself with veraPDF');

  it('validates with explicit flavours and never recommends --flavour 0', () => {
    const commands = verify.split('\n').filter((l) => l.startsWith('verapdf '));
    expect(commands.some((c) => c.includes('--flavour 3b'))).toBe(true);
    expect(commands.some((c) => c.includes('--flavour ua1'))).toBe(true);
    expect(commands.filter((c) => /--flavour 0\b/.test(c))).toEqual([]);
  });

  it('says why 0 misleads on a PDF that claims two profiles', () => {
    expect(withoutFences(verify)).toMatch(/`--flavour 0`[\s\S]*two profiles[\s\S]*`7\.21\.7-1`/);
  });
});

describe('docs/api.md, the answer headers', () => {
  const api = readDoc('docs/api.md');

  it('counts conformance entries in X-Render-Warnings, as the code does', () => {
    const warnings = section(api, '### What a document could not get: X-Render-Warnings and strict renders');
    expect(warnings.slice(0, warnings.indexOf('The render'))).toContain('`conformance`');
    expect(
      warningCount([{ kind: 'conformance', profile: 'PDF/UA-1', clause: '7.2-34', element: 'html', message: 'no lang' }]),
    ).toBe(1);
  });

  it('shows X-Render-Claims with the value the service sends', () => {
    const value = claimsHeaderValue(['PDF/A-3b', 'PDF/UA-1']);
    expect(api).toContain(`\`${CLAIMS_HEADER}: ${value}\``);
    expect(api).toMatch(/`GET \/v1\/jobs\/\{id\}\/pdf`\s+carries both headers/);
    expect(api).toMatch(/\| `claims` \| the standards its PDF claims/);
  });
});

describe('docs/client.md', () => {
  const client = readDoc('docs/client.md');

  it("lists claims among getRender's fields and on RenderedPdf", () => {
    expect(client).toMatch(/`getRender\(renderId\)` returns[^.]*the `warnings` entries and `claims`/);
    expect(client).toMatch(/and `claims` \(the standards the PDF claims, from `X-Render-Claims`/);
  });

  it('says type-checking needs @types/node, since its types name Buffer and node:stream', () => {
    expect(client).toContain('needs `@types/node`');
    const types = fs.readFileSync(path.join(ROOT, 'src/client/render-client.ts'), 'utf8');
    expect(types).toMatch(/from 'node:stream'/);
  });
});

describe('README, deploy.md and package.json, the first start', () => {
  const readme = readDoc('README.md');
  // README links to the measured figures; they live in deploy.md, "What a first start costs".
  const deploy = readDoc('docs/deploy.md');

  it('gives the first start as measured on each Node line, not "a minute or two"', () => {
    expect(readme).not.toMatch(/a minute or two/);
    expect(fs.readFileSync(path.join(ROOT, 'scripts/setup.mjs'), 'utf8')).not.toMatch(/a minute or two/);
    expect(readme).toContain('[docs/deploy.md](docs/deploy.md#what-a-first-start-costs)');
    expect(deploy).toMatch(/\| 24 \(npm 11\) \| 3 min[^|]*\| 2\.5 min \| 5\.5 min/);
    expect(deploy).toMatch(/\| 20 \| 7 min[^|]*better-sqlite3 compiled from source/);
  });

  it("denies xsd-schema-validator's install script, as deploy.md says", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.allowScripts['xsd-schema-validator']).toBe(false);
    expect(deploy).toContain("`xsd-schema-validator`'s install script");
  });
});
