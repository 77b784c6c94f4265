/**
 * Whether an XML is a Factur-X invoice of the declared level: well-formed, a UN/CEFACT Cross Industry
 * Invoice (root `rsm:CrossIndustryInvoice`), naming that level in its guideline id (BT-24), and valid
 * against the level's XSD. Each way it falls short is one plain sentence for the render report.
 */
import { doctypeProblem } from './doctype.js';
import type { FacturXLevel } from './levels.js';
import { levelOfGuideline, xsdFileOf } from './levels.js';
import { readInvoice } from './xsd-validator.js';

/** The namespace of a Cross Industry Invoice (D16B, the one Factur-X 1.0 uses). */
const CII_NAMESPACE = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100';

/** Why an XML is not a Factur-X invoice of its level: the clause it misses and the reason in words. */
export interface InvoiceProblem {
  clause: string;
  message: string;
}

/** The first reason `xml` is not a Factur-X invoice at `level`, or null when it is one. */
export async function checkInvoice(xml: Uint8Array, level: FacturXLevel): Promise<InvoiceProblem | null> {
  const doctype = doctypeProblem(xml);
  if (doctype !== null) return { clause: 'XML', message: doctype };
  const reading = await readInvoice(xml, level);
  if ('parseProblem' in reading) {
    return { clause: 'XML', message: `it is not well-formed XML: ${reading.parseProblem}` };
  }
  const { root, guideline, schemaProblem } = reading;
  if (root.namespace !== CII_NAMESPACE || root.name !== 'CrossIndustryInvoice') {
    const found = root.namespace ? `{${root.namespace.slice(0, 120)}}${root.name}` : root.name;
    return {
      clause: 'CII',
      message: `it is not a Cross Industry Invoice: its root element is ${found.slice(0, 200)}, not rsm:CrossIndustryInvoice`,
    };
  }
  const named = guideline === null ? null : levelOfGuideline(guideline);
  if (named !== level) {
    const says = guideline === null ? 'names no guideline' : `names the guideline "${guideline.trim().slice(0, 120)}"`;
    return {
      clause: 'BT-24',
      message: `it ${says}${named ? ` (${named})` : ''}, not the ${level} level the document declares`,
    };
  }
  if (schemaProblem !== null) {
    return { clause: xsdFileOf(level), message: `it is not valid against the ${level} XSD: ${schemaProblem}` };
  }
  return null;
}
