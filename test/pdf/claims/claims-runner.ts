/**
 * The claims differential runner, behind the suite's fixed-seed test and `npm run bench -- claims-fuzz`:
 * renders each document with every declaration through POST /v1/render, reads what each PDF claims from
 * its XMP (`pdfaid`, `pdfuaid`), and checks every claim with veraPDF (claims-checker.ts: one JVM per
 * flavour per batch, alongside the renders). A false claim is a profile the PDF claims and veraPDF fails;
 * it is returned with its rules, and its document is written out so that it can become a fixture.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runChecker } from './claims-checker.js';

/** Every declaration the runner renders a document with. */
export const DECLARATIONS = ['PDF/A-2b', 'PDF/A-2u', 'PDF/A-3b', 'PDF/UA-1', 'PDF/A-3b, PDF/UA-1'] as const;

/** veraPDF's flavour for each profile a PDF can claim. */
export const FLAVOUR: Record<string, string> = {
  'PDF/A-2b': '2b',
  'PDF/A-2u': '2u',
  'PDF/A-3b': '3b',
  'PDF/A-3u': '3u',
  'PDF/UA-1': 'ua1',
};

/** A document to render with every declaration: `html(profiles)` is it declaring them. */
export interface ClaimsDocument {
  name: string;
  constructs: string[];
  html(profiles: string): string;
  /** The declarations it is rendered with, when not every one (DECLARATIONS). */
  declarations?: readonly string[];
  /** A Factur-X invoice: whether a reader sees its XML's amount due (a claim on one that does not is false). */
  invoice?: { shown: boolean };
}

/** What the render route answered: status, body (the PDF on a 200), X-Render-Warnings. */
export interface RenderAnswer {
  status: number;
  body: Buffer;
  warnings?: string;
}

/** A profile a PDF claimed that veraPDF fails, or claimed without being declared. */
export interface FalseClaim {
  document: string;
  declaration: string;
  profile: string;
  /** veraPDF's failed rules; `undeclared` when the profile was not declared at all. */
  rules: string[];
  constructs: string[];
  /** Where the document was written out (when the run has an `outDir`). */
  file?: string;
}

/** Claims made, and checked by veraPDF (all of them, unless veraPDF is missing), by profile. */
export interface ClaimTally {
  claims: Record<string, number>;
  checked: Record<string, number>;
}

/** A run's figures. */
export interface ClaimsSummary extends ClaimTally {
  documents: number;
  renders: number;
  falseClaims: FalseClaim[];
  /** Invoices a reader sees whole that were not claimed as Factur-X: the check is too strict for them. */
  missedInvoices: Array<{ document: string; declaration: string; warnings?: string }>;
  /** Renders that did not answer 200 (a document name, its declaration, the status and the start of the body). */
  failedRenders: Array<{ document: string; declaration: string; status: number; body: string }>;
  /** Wall time of the whole run, and until the last render answered (veraPDF runs alongside, then finishes). */
  ms: number;
  renderMs: number;
  /** veraPDF JVMs started, and their wall times summed (they overlap the renders and each other). */
  jvms: number;
  jvmMs: number;
}

/** How a claims run runs: requests at once, claimed PDFs per veraPDF JVM, and where to write what failed. */
export interface RunnerOptions {
  concurrency: number;
  /** PDFs of one flavour a veraPDF JVM validates at most (a JVM takes ~2 s to start). */
  batchSize: number;
  outDir?: string;
  /** Without veraPDF the claims are counted but not checked. */
  check: boolean;
  log?(line: string): void;
}

/** How to run: the render call, and the declarations each document is rendered with (default: all of DECLARATIONS). */
export interface ClaimsRunOptions extends RunnerOptions {
  render(html: string): Promise<RenderAnswer>;
  declarations?: readonly string[];
}

/**
 * Whether a PDF's XMP claims Factur-X: a ConformanceLevel property of the fx schema, as an element or an
 * attribute under any prefix. The extension schema's description alone (which names the property inside
 * `pdfaProperty:name`) claims nothing: an assembly that cuts the claim may leave it.
 */
export function claimsFacturX(pdf: Buffer): boolean {
  const text = pdf.toString('latin1');
  return (
    text.includes('urn:factur-x:pdfa:CrossIndustryDocument') && /<\w+:ConformanceLevel>|\s\w+:ConformanceLevel\s*=/.test(text)
  );
}

/** The profiles a PDF's XMP claims, in the names a document declares. */
export function claimsOf(pdf: Buffer): string[] {
  const text = pdf.toString('latin1');
  const start = text.lastIndexOf('<x:xmpmeta');
  if (start < 0) return [];
  const xmp = text.slice(start, text.indexOf('</x:xmpmeta>', start));
  const claims: string[] = [];
  const part = /<pdfaid:part>(\d)<\/pdfaid:part>|pdfaid:part="(\d)"/.exec(xmp);
  const level = /<pdfaid:conformance>([A-Za-z])<\/pdfaid:conformance>|pdfaid:conformance="([A-Za-z])"/.exec(xmp);
  if (part) claims.push(`PDF/A-${part[1] ?? part[2]}${(level?.[1] ?? level?.[2] ?? '').toLowerCase()}`);
  if (/<pdfuaid:part>1<\/pdfuaid:part>|pdfuaid:part="1"/.test(xmp)) claims.push('PDF/UA-1');
  return claims;
}

function slug(declaration: string): string {
  return declaration.replace(/[^A-Za-z0-9]+/g, '').toLowerCase();
}

/** Every document with every declaration, taken from `documents` only as the renders need them. */
function* renderJobs(
  documents: Iterable<ClaimsDocument>,
  declarations: readonly string[],
): Generator<{ doc: ClaimsDocument; declaration: string; first: boolean }> {
  for (const doc of documents) {
    let first = true;
    for (const declaration of doc.declarations ?? declarations) {
      yield { doc, declaration, first };
      first = false;
    }
  }
}

/**
 * Renders `documents` with every declaration and checks every claim. Documents are taken lazily; each
 * claimed PDF goes to veraPDF's queue for its flavour as it comes, so validation overlaps rendering.
 */
export async function runClaims(documents: Iterable<ClaimsDocument>, opts: ClaimsRunOptions): Promise<ClaimsSummary> {
  const started = performance.now();
  const seconds = (): string => ((performance.now() - started) / 1000).toFixed(0);
  const summary: ClaimsSummary = {
    documents: 0,
    renders: 0,
    claims: {},
    checked: {},
    falseClaims: [],
    missedInvoices: [],
    failedRenders: [],
    ms: 0,
    renderMs: 0,
    jvms: 0,
    jvmMs: 0,
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-claims-'));
  /** Who each queued PDF is, by flavour and file name. */
  const made = new Map<string, { doc: ClaimsDocument; declaration: string; profile: string }>();
  const checker = runChecker(dir, opts.batchSize, (flavour, name, rules) => {
    const who = made.get(`${flavour}/${name}`) as { doc: ClaimsDocument; declaration: string; profile: string };
    made.delete(`${flavour}/${name}`);
    summary.checked[who.profile] = (summary.checked[who.profile] ?? 0) + 1;
    if (rules.length > 0) fail(summary, opts, { ...who, rules: [...new Set(rules)] });
  });
  const declarations = opts.declarations ?? DECLARATIONS;
  const jobs = renderJobs(documents, declarations);
  let rendered = 0;
  const lane = async (): Promise<void> => {
    for (let job = jobs.next(); !job.done; job = jobs.next()) {
      const { doc, declaration, first } = job.value;
      if (first) summary.documents += 1;
      const answer = await opts.render(doc.html(declaration));
      summary.renders += 1;
      if (++rendered % (100 * declarations.length) === 0)
        opts.log?.(
          `${summary.documents} documents rendered, claims ${JSON.stringify(summary.claims)}, ` +
            `${summary.falseClaims.length} false, ${summary.failedRenders.length} renders failed, ${seconds()} s`,
        );
      if (answer.status !== 200) {
        summary.failedRenders.push({
          document: doc.name,
          declaration,
          status: answer.status,
          body: answer.body.toString('utf8', 0, 300),
        });
        continue;
      }
      const declared = declaration.split(', ');
      const facturX = claimsFacturX(answer.body);
      if (facturX) {
        summary.claims['Factur-X'] = (summary.claims['Factur-X'] ?? 0) + 1;
        if (!doc.invoice?.shown)
          fail(summary, opts, { doc, declaration, profile: 'Factur-X', rules: [doc.invoice ? 'not shown' : 'undeclared'] });
      } else if (doc.invoice?.shown) {
        summary.missedInvoices.push({ document: doc.name, declaration, warnings: answer.warnings });
      }
      for (const profile of claimsOf(answer.body)) {
        summary.claims[profile] = (summary.claims[profile] ?? 0) + 1;
        if (!declared.includes(profile)) {
          fail(summary, opts, { doc, declaration, profile, rules: ['undeclared'] });
          continue;
        }
        if (!opts.check) continue;
        const flavour = FLAVOUR[profile] as string;
        const name = `${doc.name}--${slug(declaration)}`;
        made.set(`${flavour}/${name}`, { doc, declaration, profile });
        checker.add(flavour, name, answer.body);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, lane));
    summary.renderMs = performance.now() - started;
    if (opts.check) Object.assign(summary, await checker.drain());
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  summary.ms = performance.now() - started;
  opts.log?.(
    `${summary.documents} documents, ${summary.renders} renders, claims ${JSON.stringify(summary.claims)}, ${summary.falseClaims.length} false, ` +
      `${summary.failedRenders.length} renders failed, ${seconds()} s (renders ${(summary.renderMs / 1000).toFixed(0)} s, ${summary.jvms} veraPDF JVMs)`,
  );
  return summary;
}

function fail(
  summary: ClaimsSummary,
  opts: ClaimsRunOptions,
  f: { doc: ClaimsDocument; declaration: string; profile: string; rules: string[] },
): void {
  const entry: FalseClaim = {
    document: f.doc.name,
    declaration: f.declaration,
    profile: f.profile,
    rules: f.rules,
    constructs: f.doc.constructs,
  };
  if (opts.outDir) {
    fs.mkdirSync(opts.outDir, { recursive: true });
    entry.file = path.join(opts.outDir, `${f.doc.name}--${slug(f.declaration)}.html`);
    fs.writeFileSync(entry.file, f.doc.html(f.declaration));
  }
  summary.falseClaims.push(entry);
  opts.log?.(
    `FALSE CLAIM ${f.profile} (declared ${f.declaration}) on ${f.doc.name}: ${f.rules.join(' ')} [${f.doc.constructs.join(', ')}]`,
  );
}

/** The fixtures of past false claims (test/fixtures/claims/*.html), each rendered with every declaration. */
export function fixtureDocuments(dir: string): ClaimsDocument[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.html'))
    .sort()
    .map((file) => {
      const html = fs.readFileSync(path.join(dir, file), 'utf8');
      const meta = /<meta name="pdf-profile" content="[^"]*">/;
      if (!meta.test(html)) throw new Error(`${file} has no <meta name="pdf-profile" content="…"> to vary`);
      return {
        name: `fixture-${path.basename(file, '.html')}`,
        constructs: [`fixture:${file}`],
        html: (profiles: string) => html.replace(meta, `<meta name="pdf-profile" content="${profiles}">`),
      };
    });
}
