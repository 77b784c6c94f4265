/**
 * The render service's error tables (README "Errors", docs/api.md "Render errors") are checked against
 * the one registry, src/errors.ts: every code with its status, no code the registry lacks.
 */
import { describe, expect, it } from 'vitest';
import { RENDER_ERRORS } from '../../src/errors.js';
import { plain, tableUnder } from './markdown.js';

const TABLES = [
  { file: 'README.md', heading: 'Errors' },
  { file: 'docs/api.md', heading: 'Render errors' },
];

/** `status code` pairs of a table whose rows read `400 | INVALID_REQUEST` or `404 / 405 | NOT_FOUND / METHOD_NOT_ALLOWED`. */
function documentedPairs(file: string, heading: string): string[] {
  const [header, ...rows] = tableUnder(file, heading);
  expect(header.slice(0, 2).map((c) => c.toLowerCase())).toEqual(['status', 'code']);
  return rows.flatMap(([statusCell, codeCell]) => {
    const statuses = plain(statusCell)
      .split('/')
      .map((s) => s.trim());
    const codes = plain(codeCell)
      .split('/')
      .map((c) => c.trim());
    if (statuses.length === codes.length) return codes.map((code, i) => `${statuses[i]} ${code}`);
    if (statuses.length === 1) return codes.map((code) => `${statuses[0]} ${code}`);
    throw new Error(`${file} "${heading}": cannot pair statuses ${statusCell} with codes ${codeCell}`);
  });
}

const registry = Object.entries(RENDER_ERRORS).map(([code, status]) => `${status} ${code}`);

describe.each(TABLES)('$file "$heading"', ({ file, heading }) => {
  const documented = documentedPairs(file, heading);

  it('lists every code of the registry (src/errors.ts) with its status', () => {
    const missing = registry.filter((pair) => !documented.includes(pair));
    expect(missing, `codes of RENDER_ERRORS (src/errors.ts) missing from ${file} "${heading}", as "status CODE"`).toEqual([]);
  });

  it('lists no code or status the registry does not have', () => {
    const extra = documented.filter((pair) => !registry.includes(pair));
    expect(extra, `rows of ${file} "${heading}" that RENDER_ERRORS (src/errors.ts) does not have, as "status CODE"`).toEqual([]);
  });
});
