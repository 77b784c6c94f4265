/**
 * docs/deploy.md's configuration reference is checked against the loader itself, so neither can move
 * alone: the variables loadConfig reads (seen through the environment it is handed) and the ones the
 * rest of the program reads are exactly the table's rows; a default written as a literal gives the same
 * configuration as leaving the variable unset; the "allowed" cell is what the loader's own error says.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/config-env.js';
import { codeLiteral, plain, ROOT, tableUnder } from './markdown.js';

const DOC = 'docs/deploy.md';
const HEADING = 'Configuration reference';

/** The variables loadConfig asks the environment for. */
function readByLoader(): Set<string> {
  const read = new Set<string>();
  const env = new Proxy({} as Record<string, string | undefined>, {
    get(_target, name) {
      if (typeof name === 'string') read.add(name);
      return undefined;
    },
  });
  loadConfig(env);
  return read;
}

/** Variables the rest of the program reads directly (`env.X`, `process.env.X`): the S3 region, the health check, the set-up. */
function readElsewhere(): Map<string, string> {
  const found = new Map<string, string>();
  // readdirSync, not globSync: the suite runs on Node 20 too.
  const under = (dir: string, ext: string) =>
    (fs.readdirSync(path.join(ROOT, dir), { recursive: true }) as string[])
      .filter((f) => f.endsWith(ext))
      .map((f) => path.join(dir, f));
  // The dashboard's examples are code a customer runs (their receiver reads its own variables), not ours.
  const files = [...under('src', '.ts'), ...under('bin', '.js'), ...under('scripts', '.mjs')].filter(
    (f) => f !== path.join('src', 'dashboard', 'views', 'examples.ts'),
  );
  for (const file of files) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]+)\b|\[['"]([A-Z][A-Z0-9_]+)['"]\])/g)) {
      const name = m[1] ?? m[2];
      if (!found.has(name)) found.set(name, file);
    }
  }
  return found;
}

/** What the loader says a value may be: the "(allowed: …)" of its error for a value nothing accepts, or "any". */
function allowedByLoader(name: string): string {
  try {
    loadConfig({ [name]: '!x' });
    return 'any';
  } catch (err) {
    if (!(err instanceof ConfigError) || err.variable !== name) throw err;
    const allowed = /\(allowed: (.*)\)$/.exec(err.message)?.[1];
    if (allowed === undefined) throw new Error(`${name}: the loader's error names no allowed values: "${err.message}"`);
    return allowed;
  }
}

const rows = tableUnder(DOC, HEADING);
const header = rows[0].map((c) => c.toLowerCase());
const documented = new Map(
  rows.slice(1).map((r) => [plain(r[0]), { default: r[1] ?? '', allowed: r[2] ?? '', meaning: r[3] ?? '' }] as const),
);
const loader = readByLoader();
const elsewhere = readElsewhere();

describe(`${DOC} "${HEADING}"`, () => {
  it('has the columns variable, default, allowed, meaning, one variable a row', () => {
    expect(header).toEqual(['variable', 'default', 'allowed', 'meaning']);
    for (const row of rows.slice(1)) expect(row[0], 'one variable per row, in backticks').toMatch(/^`[A-Z][A-Z0-9_]*`$/);
    expect(documented.size, 'a variable listed twice').toBe(rows.length - 1);
  });

  it('lists every variable the program reads', () => {
    const missing = [
      ...[...loader].filter((v) => !documented.has(v)).map((v) => `${v} (read by loadConfig, src/config*.ts)`),
      ...[...elsewhere].filter(([v]) => !documented.has(v) && !loader.has(v)).map(([v, file]) => `${v} (read in ${file})`),
    ];
    expect(missing, `variables without a row in ${DOC} "${HEADING}"`).toEqual([]);
  });

  it('lists no variable the program does not read', () => {
    const stale = [...documented.keys()].filter((v) => !loader.has(v) && !elsewhere.has(v));
    expect(stale, `rows in ${DOC} "${HEADING}" that nothing in src/, bin/ or scripts/ reads`).toEqual([]);
  });

  it.each([...loader].filter((v) => documented.has(v)))('%s: documented default and allowed values are the loader’s', (name) => {
    const doc = documented.get(name)!;
    expect(plain(doc.meaning), `${name}: no meaning`).not.toBe('');
    expect(plain(doc.default), `${name}: no default`).not.toBe('');
    const literal = codeLiteral(doc.default);
    if (literal !== undefined) {
      let withDefault: unknown;
      try {
        withDefault = loadConfig({ [name]: literal });
      } catch (err) {
        throw new Error(`${name}: the documented default ${JSON.stringify(literal)} is refused: ${(err as Error).message}`);
      }
      expect(withDefault, `${name}=${literal} (the documented default) configures otherwise than leaving it unset`).toEqual(
        loadConfig({}),
      );
    }
    expect(plain(doc.allowed), `${name}: the "allowed" cell differs from the loader's own error message`).toBe(
      allowedByLoader(name),
    );
  });
});
