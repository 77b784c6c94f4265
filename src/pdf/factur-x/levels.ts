/**
 * The Factur-X (ZUGFeRD 2.x) conformance levels a document may declare with `<meta name="factur-x">`,
 * and what each one fixes: the AFRelationship of the embedded `factur-x.xml`, the XMP's
 * `fx:ConformanceLevel`, the XSD its XML is checked against and the guideline id (BT-24) its XML
 * carries. docs/standards.md shows a worked example.
 */
import type { AfRelationship } from '../profiles/types.js';

/** A Factur-X level, spelled as the XMP's `fx:ConformanceLevel` spells it. */
export type FacturXLevel = 'MINIMUM' | 'BASIC WL' | 'BASIC' | 'EN 16931' | 'EXTENDED';

/** Every level, from the least data to the most. */
export const FACTUR_X_LEVELS: readonly FacturXLevel[] = ['MINIMUM', 'BASIC WL', 'BASIC', 'EN 16931', 'EXTENDED'];

/** The name the embedded invoice must have (Factur-X 1.0 and ZUGFeRD 2.1 onwards). */
export const FACTUR_X_FILE_NAME = 'factur-x.xml';

/**
 * Factur-X 1.07 / ZUGFeRD 2.x technical supplement, "data relationship": MINIMUM and BASIC WL carry
 * only part of an invoice (no lines; not an invoice under German law), so their XML is `Data` for the
 * PDF; from BASIC on, the XML is the invoice itself in another form, `Alternative`.
 */
const RELATIONSHIP: Record<FacturXLevel, AfRelationship> = {
  MINIMUM: 'Data',
  'BASIC WL': 'Data',
  BASIC: 'Alternative',
  'EN 16931': 'Alternative',
  EXTENDED: 'Alternative',
};

/** The level's token in a guideline id (`urn:factur-x.eu:1p0:basicwl`) and in the XSD file names. */
const TOKEN: Record<FacturXLevel, string> = {
  MINIMUM: 'minimum',
  'BASIC WL': 'basicwl',
  BASIC: 'basic',
  'EN 16931': 'en16931',
  EXTENDED: 'extended',
};

/**
 * The level a declaration names, or null. Case, runs of spaces and the spellings people use
 * (`EN16931`, `BASIC-WL`, `BASICWL`, `COMFORT` for EN 16931, its ZUGFeRD 2.0 name) are accepted.
 */
export function parseFacturXLevel(text: string): FacturXLevel | null {
  const key = text
    .trim()
    .toUpperCase()
    .replace(/[\s_-]+/g, '');
  if (key === 'COMFORT') return 'EN 16931';
  return FACTUR_X_LEVELS.find((level) => level.replace(/ /g, '') === key) ?? null;
}

/** The AFRelationship the Factur-X specification gives the embedded XML at `level`. */
export function relationshipOf(level: FacturXLevel): AfRelationship {
  return RELATIONSHIP[level];
}

/** The level an XML's guideline id (BT-24, `GuidelineSpecifiedDocumentContextParameter/ID`) names, or null. */
export function levelOfGuideline(id: string): FacturXLevel | null {
  const trimmed = id.trim();
  // urn:factur-x.eu:1p0:basicwl; urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic;
  // urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended (…:extended-ctc-fr is EXTENDED too)
  const last =
    trimmed
      .split(':')
      .pop()
      ?.replace(/-ctc-fr$/, '') ?? '';
  const byToken = FACTUR_X_LEVELS.find((level) => TOKEN[level] === last);
  if (byToken) return byToken;
  // urn:cen.eu:en16931:2017, and CIUS ids built on it (urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:…)
  return /^urn:cen\.eu:en16931:2017(#|$)/.test(trimmed) ? 'EN 16931' : null;
}

/** The file name of the level's main XSD as the Factur-X 1.07.3 package names it. */
export function xsdFileOf(level: FacturXLevel): string {
  return `Factur-X_1.07.3_${TOKEN[level].toUpperCase()}.xsd`;
}
