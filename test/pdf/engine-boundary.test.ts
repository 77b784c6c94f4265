/**
 * The boundary around untrusted bytes: outside `src/pdf/`, code reaches PDF, PKCS#12 and XML reading only
 * through `src/pdf/engine.ts` (which runs it in workers). Types cross freely; the few values that do cross
 * otherwise are listed here, each with why it does not read a customer's bytes on the event loop.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');
const PDF = path.join(SRC, 'pdf');

/** Values of src/pdf that code outside it may import, by module, and why. */
const ALLOWED: Record<string, Record<string, string>> = {
  'pdf/engine.ts': { '*': 'the one face: it runs the work in workers' },
  'pdf/index.ts': {
    withPdfProperties: "Chromium's own PDF of a render, bounded by the render's deadline",
    readDestinationPages: "Chromium's own PDF of a render",
    countPdfPages: "Chromium's own PDF of a render (a customer's PDF is counted through the engine)",
    qpdfAvailable: 'start-up check, no bytes',
    rfc3161Timestamper: 'the network call a worker asks the service for (egress stays on the service)',
    protectionClaims: 'a list of claims, no bytes',
    signatureClaims: "a list of claims and the certificate chain's length, no bytes",
    zipFiles: "stores the engine's finished PDFs in a zip, reading none of them",
    splitPlan: 'page numbers from the request, no bytes',
    isLanguageTag: "a request field's text",
    legalText: "a request field's text (a part's title, as a stamp fills it in)",
    MAX_SELECTION_LENGTH: 'a constant',
    PageSelectionError: 'an error class',
    parsePageSelection: "a request field's text",
    pageIndexes: 'page numbers, no bytes',
  },
  'pdf/info-title.ts': {
    infoTitle: "one object of the merge's own output, read within a fixed byte bound (the record's title)",
  },
  'pdf/factur-x/factur-x.ts': {
    planFacturX:
      "the plan's order only: the customer's XML is examined in a worker (document-profiles.ts passes the engine's examine)",
  },
  'pdf/profiles/apply-profiles.ts': { applyProfiles: "Chromium's own PDF of a render, within the render's deadline" },
  'pdf/profiles/types.ts': { PDF_PROFILES: 'a constant' },
  'pdf/factur-x/levels.ts': { parseFacturXLevel: "a meta tag's text", FACTUR_X_FILE_NAME: 'a constant' },
};

function sourceFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f));
}

/** Every value (not type-only) imported or re-exported from src/pdf by a file outside it: `file → module: name`. */
function crossings(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SRC).filter((f) => !f.startsWith(PDF + path.sep))) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    for (const node of source.statements) {
      const isImport = ts.isImportDeclaration(node);
      if (!isImport && !ts.isExportDeclaration(node)) continue;
      const spec = node.moduleSpecifier;
      if (!spec || !ts.isStringLiteral(spec) || !spec.text.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), spec.text).replace(/\.js$/, '.ts');
      if (!target.startsWith(PDF + path.sep)) continue;
      const module = path.relative(SRC, target);
      const names: string[] = [];
      if (isImport) {
        const clause = node.importClause;
        if (!clause || clause.isTypeOnly) continue;
        if (clause.name) names.push('default');
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
        if (bindings && ts.isNamedImports(bindings))
          for (const el of bindings.elements) if (!el.isTypeOnly) names.push((el.propertyName ?? el.name).text);
      } else {
        if (node.isTypeOnly) continue;
        const clause = node.exportClause;
        if (!clause || !ts.isNamedExports(clause)) names.push('*');
        else for (const el of clause.elements) if (!el.isTypeOnly) names.push((el.propertyName ?? el.name).text);
      }
      for (const name of names) found.push(`${path.relative(ROOT, file)} → ${module}: ${name}`);
    }
  }
  return found;
}

describe('the untrusted-bytes boundary', () => {
  it('code outside src/pdf imports PDF work only through src/pdf/engine.ts (or a value listed with its reason)', () => {
    const all = crossings();
    // The scan sees the crossings that exist (it would pass vacuously if it saw none).
    expect(all.some((c) => c.includes('→ pdf/engine.ts:'))).toBe(true);
    const refused = all.filter((c) => {
      const [, module, name] = /→ (.+): (.+)$/.exec(c) as RegExpExecArray;
      const allowed = ALLOWED[module];
      return !(allowed && ('*' in allowed || name in allowed));
    });
    expect(refused).toEqual([]);
  });
});
