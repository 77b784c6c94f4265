/**
 * docs/architecture.md draws `src/` as layers, each importing only those before it; Biome's cycle rule
 * cannot see an import that points up without closing a circle. So every import in `src/` (type-only and
 * dynamic ones too) is checked here against the doc's own table, its order of `render/`'s sub-folders and
 * its rules for `render/index.ts` and the client: a file the table does not place, or an arrow that points
 * up, fails with the file and the import.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');
const DOC = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');

/** Folders of one layer that import a neighbour of the same layer, as the doc allows: `from → to`. */
const SIDEWAYS_ALLOWED = ['render/ → pdf/'];

interface Import {
  /** Both relative to src/, `.ts` paths (`render/index.ts`). */
  from: string;
  to: string;
  typeOnly: boolean;
}

/** The layer table: each `folder/` or `file.ts` the doc names, with its layer's number. */
function layerTable(): Map<string, number> {
  const table = new Map<string, number>();
  for (const [, layer, cell] of DOC.matchAll(/^\| (\d+) \| ([^|]+) \|/gm)) {
    for (const [, name] of cell!.matchAll(/`([^`]+)`/g)) table.set(name!, Number(layer));
  }
  return table;
}

/** `render/`'s sub-folders in the doc's order, from the paragraph that lists them. */
function renderOrder(): string[] {
  const paragraph = /Inside `render\/`[\s\S]*?\n\n/.exec(DOC)?.[0] ?? '';
  const listed = /sub-folders are layers of\s+their own[\s\S]*$/.exec(paragraph)?.[0] ?? '';
  return [...listed.matchAll(/`([a-z-]+\/)`/g)].map((m) => m[1]!);
}

function sourceFiles(): string[] {
  return (fs.readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).sort();
}

/** Every relative import, `export … from` and `import('…')` of the file. */
function importsOf(file: string): Import[] {
  const text = fs.readFileSync(path.join(SRC, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    if (!specifier.startsWith('.')) return;
    const to = path.relative(SRC, path.resolve(SRC, path.dirname(file), specifier)).replace(/\.js$/, '.ts');
    found.push({ from: file, to, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const allTypes =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name && !!bindings && ts.isNamedImports(bindings) && bindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier.text, allTypes);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The doc's entry for a file of src/: its top folder (`render/`) or, at the top of src/, its name. */
const placeOf = (file: string) => (file.includes('/') ? `${file.split('/')[0]}/` : file);

const table = layerTable();
const files = sourceFiles();
const imports = files.flatMap(importsOf);
const arrow = (i: Import) => `${i.from} → ${i.to}`;

describe('the layers of docs/architecture.md hold for every import in src/', () => {
  it('the doc places every file of src/ (the client, a package of its own, aside) and names nothing that is gone', () => {
    // The scan reads the table it checks against (it would pass vacuously on an empty one).
    expect(table.get('store/')).toBe(1);
    expect(table.get('main.ts')).toBe(8);
    const unplaced = [...new Set(files.map(placeOf))].filter((p) => p !== 'client/' && !table.has(p));
    expect(unplaced).toEqual([]);
    const gone = [...table.keys()].filter((name) => !fs.existsSync(path.join(SRC, name)));
    expect(gone).toEqual([]);
  });

  it('no import points to a later layer, and a layer’s folders import their neighbours only where the doc says', () => {
    const checked = imports.filter((i) => placeOf(i.from) !== 'client/' && placeOf(i.from) !== placeOf(i.to));
    expect(checked.length).toBeGreaterThan(200);
    const up = checked.filter((i) => table.get(placeOf(i.to))! > table.get(placeOf(i.from))!).map(arrow);
    expect(up).toEqual([]);
    const sideways = checked.filter((i) => {
      const layer = table.get(placeOf(i.from))!;
      // Layer 0's pieces and the entry chain's files (layer 8) use one another.
      if (layer === 0 || layer === 8 || table.get(placeOf(i.to)) !== layer) return false;
      return !SIDEWAYS_ALLOWED.includes(`${placeOf(i.from)} → ${placeOf(i.to)}`);
    });
    expect(sideways.map(arrow)).toEqual([]);
    // The one sideways arrow allowed is one the doc states.
    expect(DOC).toMatch(/`render\/` uses\s+`pdf\/`/);
  });

  it('outside render/, code imports render/ only through render/index.ts', () => {
    const reaching = imports.filter((i) => !i.from.startsWith('render/') && i.to.startsWith('render/'));
    expect(reaching.length).toBeGreaterThan(5);
    expect(reaching.filter((i) => i.to !== 'render/index.ts').map(arrow)).toEqual([]);
  });

  it("render/'s sub-folders import only those the doc lists before them; none imports render's top", () => {
    const order = renderOrder();
    expect(order).toEqual(expect.arrayContaining(['request/', 'browser/', 'document/', 'report/', 'pool/', 'log/']));
    const inRender = (f: string) => f.startsWith('render/');
    // render/x/… → 'x/', a file at render's top → its name (the top, after every sub-folder).
    const part = (f: string) => {
      const rest = f.slice('render/'.length);
      return rest.includes('/') ? `${rest.split('/')[0]}/` : rest;
    };
    const rank = (f: string) => (part(f).endsWith('/') ? order.indexOf(part(f)) : order.length);
    const unlisted = [...new Set(files.filter(inRender).map(part))].filter((p) => p.endsWith('/') && !order.includes(p));
    expect(unlisted).toEqual([]);
    const up = imports.filter(
      (i) => inRender(i.from) && inRender(i.to) && part(i.from).endsWith('/') && rank(i.to) > rank(i.from),
    );
    expect(up.map(arrow)).toEqual([]);
  });

  it('the client imports only types from the rest of src/, so it runs in a browser', () => {
    const outward = imports.filter((i) => i.from.startsWith('client/') && !i.to.startsWith('client/'));
    expect(outward.length).toBeGreaterThan(3);
    expect(outward.filter((i) => !i.typeOnly).map(arrow)).toEqual([]);
  });
});
