/**
 * The differential runner: writes generated invoices to a folder, runs the published Schematron (XSLT
 * 2.0) over all of them in one Saxon JVM, runs Pageworks' rule table over the same files, and lists the
 * invoices on which the two name different failed rules. Used by the suite and by the bench.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { evaluateRules } from '../../../src/pdf/factur-x/rules/en16931.js';
import { readInvoice } from '../../../src/pdf/factur-x/xsd-validator.js';
import { prng } from '../../helpers/prng.js';
import { FAULTS } from './faults.js';
import { validInvoice } from './generate-invoices.js';
import { invoiceXml, type Model } from './invoice-model.js';

const run = promisify(execFile);

/** Where Saxon-HE is (Debian's libsaxonhe-java), or SAXON_JAR. */
export const SAXON_JAR = process.env.SAXON_JAR ?? '/usr/share/java/Saxon-HE.jar';

/** Why the differential test cannot run here, or null when Java, Saxon and the Schematron are present. */
export async function schematronMissing(): Promise<string | null> {
  const xsl = process.env.FACTURX_SCHEMATRON;
  if (!xsl) return 'FACTURX_SCHEMATRON is not set (the Factur-X EN 16931 Schematron as XSLT; .ci/run sets it)';
  if (!existsSync(xsl)) return `FACTURX_SCHEMATRON=${xsl} does not exist`;
  if (!existsSync(SAXON_JAR)) return `Saxon-HE is not at ${SAXON_JAR} (apt-get install libsaxonhe-java)`;
  try {
    await run('java', ['-version']);
  } catch {
    return 'no Java runtime (apt-get install default-jre-headless)';
  }
  return null;
}

/** A generated invoice: its file name, what was done to it, and its XML. */
export interface Case {
  file: string;
  fault: string | null;
  xml: string;
}

/** `count` invoices from `seed`: alternately a valid one and a copy of it with one fault (faults in turn). */
export function generateCases(seed: number, count: number): Case[] {
  const r = prng(seed);
  const cases: Case[] = [];
  let f = 0;
  for (let n = 0; cases.length < count; n++) {
    const model = validInvoice(r, n);
    cases.push({ file: `valid-${n}.xml`, fault: null, xml: invoiceXml(model) });
    if (cases.length >= count) break;
    for (let tries = 0; tries < FAULTS.length; tries++) {
      const fault = FAULTS[f++ % FAULTS.length];
      if (!fault || (fault.applies && !fault.applies(model))) continue;
      const copy = structuredClone(model) as Model;
      fault.apply(copy);
      cases.push({ file: `fault-${n}.xml`, fault: fault.name, xml: invoiceXml(copy) });
      break;
    }
  }
  return cases;
}

/**
 * The failed rules of an SVRL report, error level (warnings are not rules a receiver rejects on): the
 * business rules by their name (`BR-CO-15`); the Schematron's structural asserts (an element's
 * cardinality or code list, unnamed, `FX-SCH-A-…`) as `structure`, which the XSD check covers.
 */
export function failedRules(svrl: string): string[] {
  const names = new Set<string>();
  for (const m of svrl.matchAll(/<svrl:failed-assert([\s\S]*?)<\/svrl:failed-assert>/g)) {
    const body = m[1] ?? '';
    if (/flag="warning"/.test(body)) continue;
    const text = /<svrl:text>\s*([\s\S]*?)<\/svrl:text>/.exec(body)?.[1] ?? '';
    const id = /id="([^"]*)"/.exec(body)?.[1] ?? '?';
    names.add(/^\[([^\]]+)\]/.exec(text)?.[1] ?? (id.startsWith('FX-SCH-A-') ? 'structure' : id));
  }
  return [...names].sort();
}

/** One invoice on which the Schematron and the table differ. */
export interface Disagreement {
  file: string;
  fault: string | null;
  schematron: string[];
  table: string[];
}

/**
 * Runs both on `cases`: the disagreements on business rules, the rules the Schematron saw fail (to show
 * the cases exercised them), and the invoices only the Schematron's structural asserts reject while the
 * XSD and the table accept them (which Pageworks would claim and a receiver refuse).
 */
export async function compare(
  cases: Case[],
): Promise<{ disagreements: Disagreement[]; failedRules: Set<string>; structureMissed: string[]; schematronMs: number }> {
  const xsl = process.env.FACTURX_SCHEMATRON as string;
  const dir = await mkdtemp(join(tmpdir(), 'facturx-rules-'));
  try {
    await mkdir(join(dir, 'in'));
    await mkdir(join(dir, 'out'));
    await Promise.all(cases.map((c) => writeFile(join(dir, 'in', c.file), c.xml)));
    const t0 = performance.now();
    await run(
      'java',
      // One short-lived JVM: the C1 compiler and the serial collector halve its CPU time here.
      [
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        '-cp',
        SAXON_JAR,
        'net.sf.saxon.Transform',
        `-s:${join(dir, 'in')}`,
        `-o:${join(dir, 'out')}`,
        `-xsl:${xsl}`,
      ],
      {
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    const schematronMs = performance.now() - t0;
    const produced = new Set(await readdir(join(dir, 'out')));
    const disagreements: Disagreement[] = [];
    const seen = new Set<string>();
    const structureMissed: string[] = [];
    for (const c of cases) {
      if (!produced.has(c.file)) throw new Error(`Saxon wrote no report for ${c.file}`);
      const schematron = failedRules(await readFile(join(dir, 'out', c.file), 'utf8'));
      const reading = await readInvoice(Buffer.from(c.xml), 'EN 16931');
      if ('parseProblem' in reading) throw new Error(`${c.file}: ${reading.parseProblem}`);
      const table = evaluateRules(reading.tree, 'EN 16931').map((x) => x.id);
      // Structural asserts (cardinality, code lists) are not in the table: they are compared as "would
      // Pageworks still refuse the invoice", by the XSD or by a business rule of the table.
      const named = schematron.filter((id) => id !== 'structure');
      if (schematron.includes('structure') && table.length === 0 && reading.schemaProblem === null) structureMissed.push(c.file);
      for (const id of schematron) seen.add(id);
      if (named.join() !== table.sort().join()) disagreements.push({ file: c.file, fault: c.fault, schematron: named, table });
    }
    return { disagreements, failedRules: seen, structureMissed, schematronMs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
