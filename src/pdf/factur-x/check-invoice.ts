/**
 * Whether an XML is a Factur-X invoice of the declared level: well-formed, a UN/CEFACT Cross Industry
 * Invoice (root `rsm:CrossIndustryInvoice`), naming that level in its guideline id (BT-24), valid
 * against the level's XSD, and keeping the EN 16931 business rules that apply to the level. Each way it
 * falls short is one plain sentence for the render report.
 */
import { doctypeProblem } from './doctype.js';
import type { FacturXLevel } from './levels.js';
import { levelOfGuideline, xsdFileOf } from './levels.js';
import type { CiiTree } from './rules/cii-tree.js';
import { evaluateRules } from './rules/en16931.js';
import { type ShownValues, valuesToShow } from './shown-invoice.js';
import { readInvoice } from './xsd-validator.js';

/** The namespace of a Cross Industry Invoice (D16B, the one Factur-X 1.0 uses). */
const CII_NAMESPACE = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100';

/** Why an XML is not a Factur-X invoice of its level: the clause it misses and the reason in words. */
export interface InvoiceProblem {
  clause: string;
  message: string;
}

/** How many failed rules the report lists one by one (an invoice broken everywhere stays readable). */
const MAX_RULE_PROBLEMS = 20;

/**
 * Every reason `xml` is not a Factur-X invoice at `level` (none when it is one): the first problem of
 * its shape, or each business rule it breaks; and the values the PDF must show (when it could be read).
 */
export async function examineInvoice(
  xml: Uint8Array,
  level: FacturXLevel,
): Promise<{ problems: InvoiceProblem[]; shown: ShownValues | null }> {
  const problem = await shapeProblem(xml, level);
  if ('problem' in problem) return { problems: [problem.problem], shown: null };
  const failures = evaluateRules(problem.tree, level);
  const problems = failures.slice(0, MAX_RULE_PROBLEMS).map((f) => ({
    clause: f.id,
    message: `it breaks the EN 16931 business rule ${f.id}: ${f.words}${f.values ? ` (${f.values})` : ''}${f.times > 1 ? ` (${f.times} times)` : ''}`,
  }));
  if (failures.length > MAX_RULE_PROBLEMS) {
    problems.push({
      clause: 'EN 16931',
      message: `it breaks ${failures.length - MAX_RULE_PROBLEMS} more EN 16931 business rules`,
    });
  }
  return { problems, shown: valuesToShow(problem.tree) };
}

/** The first reason `xml` is not a Factur-X invoice at `level`, or null when it is one. */
export async function checkInvoice(xml: Uint8Array, level: FacturXLevel): Promise<InvoiceProblem | null> {
  return (await examineInvoice(xml, level)).problems[0] ?? null;
}

/** The first problem of the XML's shape (well-formed, CII, level, XSD), or its tree when it has none. */
async function shapeProblem(xml: Uint8Array, level: FacturXLevel): Promise<{ problem: InvoiceProblem } | { tree: CiiTree }> {
  const doctype = doctypeProblem(xml);
  if (doctype !== null) return { problem: { clause: 'XML', message: doctype } };
  const reading = await readInvoice(xml, level);
  if ('parseProblem' in reading) {
    return { problem: { clause: 'XML', message: `it is not well-formed XML: ${reading.parseProblem}` } };
  }
  const { root, guideline, schemaProblem } = reading;
  if (root.namespace !== CII_NAMESPACE || root.name !== 'CrossIndustryInvoice') {
    const found = root.namespace ? `{${root.namespace.slice(0, 120)}}${root.name}` : root.name;
    return {
      problem: {
        clause: 'CII',
        message: `it is not a Cross Industry Invoice: its root element is ${found.slice(0, 200)}, not rsm:CrossIndustryInvoice`,
      },
    };
  }
  const named = guideline === null ? null : levelOfGuideline(guideline);
  if (named !== level) {
    const says = guideline === null ? 'names no guideline' : `names the guideline "${guideline.trim().slice(0, 120)}"`;
    return {
      problem: {
        clause: 'BT-24',
        message: `it ${says}${named ? ` (${named})` : ''}, not the ${level} level the document declares`,
      },
    };
  }
  if (schemaProblem !== null) {
    return { problem: { clause: xsdFileOf(level), message: `it is not valid against the ${level} XSD: ${schemaProblem}` } };
  }
  if (reading.remote.length > 0) {
    return {
      problem: {
        clause: 'XML',
        message: `it refers to remote addresses a receiver's XML tool may fetch (${reading.remote.join(', ')}): an invoice stands on its own, so remove them`,
      },
    };
  }
  return { tree: reading.tree };
}
