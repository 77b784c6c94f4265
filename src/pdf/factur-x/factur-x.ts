/**
 * A Factur-X invoice from a document's declaration: which profiles the PDF must meet (PDF/A-3 holds
 * the XML), the AFRelationship of `factur-x.xml`, and the Factur-X claim with its XMP schema, made
 * only when the XML is an invoice of the declared level. docs/standards.md has a worked example.
 */
import type { AfRelationship, ConformanceIssue, ExtraClaim, PdfProfile } from '../profiles/types.js';
import { examineInvoice } from './check-invoice.js';
import { FACTUR_X_FILE_NAME, type FacturXLevel, relationshipOf } from './levels.js';
import { amountDigits, notShown, type ShownInvoice } from './shown-invoice.js';
import { facturXSchema } from './xmp-schema.js';

/** What the document declared: the level, and the bytes of its `factur-x.xml` attachment (absent when it has none or it failed). */
export interface FacturXDeclaration {
  level: FacturXLevel;
  xml: Uint8Array | undefined;
  /** How the report names the attachment, e.g. `link[rel="attachment"][title="factur-x.xml"]`. */
  element: string;
  /** The document links a `factur-x.xml` (whose bytes are absent only when it could not be fetched). */
  linked: boolean;
  /**
   * What a reader sees of the printed document, to check the XML is the invoice it shows: read once the XML
   * holds, with the invoice number and the digits of the amount due whose nodes must not be covered.
   */
  readShown(looks: { texts: string[]; digits: string[] }): Promise<ShownInvoice>;
  /** How the XML is checked against its level: in-process by default; the service runs it in a PDF worker. */
  examine?: typeof examineInvoice;
}

/** The invoice's part of the PDF: the profiles to make, how the XML relates to the PDF, the claim or why not. */
export interface FacturXPlan {
  profiles: PdfProfile[];
  relationship: AfRelationship;
  extraClaim: ExtraClaim | null;
  issues: ConformanceIssue[];
}

/** PDF/A-2 cannot hold an XML file; its PDF/A-3 counterpart keeps what else the document asked for. */
const PART_3: Partial<Record<PdfProfile, PdfProfile>> = { 'PDF/A-2b': 'PDF/A-3b', 'PDF/A-2u': 'PDF/A-3u' };

/** The profiles a Factur-X PDF is made to: the declared ones, with a PDF/A-3 level (PDF/A-3b unless another was asked for). */
function withPdfA3(declared: readonly PdfProfile[]): { profiles: PdfProfile[]; issues: ConformanceIssue[] } {
  const issues: ConformanceIssue[] = [];
  const profiles = declared.map((p) => {
    const part3 = PART_3[p];
    if (!part3) return p;
    issues.push({
      profile: p,
      clause: '6.8',
      element: 'meta[name="pdf-profile"]',
      message: `A Factur-X invoice is a PDF/A-3 file (PDF/A-2 cannot hold its XML): ${part3} was made instead of ${p}`,
    });
    return part3;
  });
  if (!profiles.some((p) => p.startsWith('PDF/A-3'))) profiles.unshift('PDF/A-3b');
  return { profiles: [...new Set(profiles)], issues };
}

/** Plans the invoice: checks the XML against its level and, when it holds, claims Factur-X on PDF/A-3. */
export async function planFacturX(declaration: FacturXDeclaration, declared: readonly PdfProfile[]): Promise<FacturXPlan> {
  const { level, xml, element, linked } = declaration;
  const relationship = relationshipOf(level);
  const notAnInvoice = (clause: string, message: string): FacturXPlan => ({
    profiles: [...declared],
    relationship,
    extraClaim: null,
    issues: [{ profile: 'Factur-X', clause, element, message }],
  });
  if (xml === undefined && linked) {
    return notAnInvoice(
      FACTUR_X_FILE_NAME,
      `${FACTUR_X_FILE_NAME} could not be loaded (the warning about it says why): the PDF does not claim Factur-X`,
    );
  }
  if (xml === undefined) {
    return notAnInvoice(
      FACTUR_X_FILE_NAME,
      `The document declares a Factur-X ${level} invoice but has no ${FACTUR_X_FILE_NAME} to embed ` +
        `(<link rel="attachment" href="…" title="${FACTUR_X_FILE_NAME}">): the PDF does not claim Factur-X`,
    );
  }
  const { problems, shown } = await (declaration.examine ?? examineInvoice)(xml, level);
  // The XML is the invoice the PDF shows only when a reader sees its number and amount due, and no other amount due.
  let elsewhere: Array<{ clause: string; message: string }> = [];
  if (problems.length === 0 && shown) {
    const looks = { texts: shown.number ? [shown.number] : [], digits: [amountDigits(shown.due)].filter((d) => d !== '') };
    elsewhere = notShown(shown, await declaration.readShown(looks));
  }
  const reasons = [
    ...problems.map((p) => ({ ...p, why: `is not a Factur-X ${level} invoice` })),
    ...elsewhere.map((p) => ({ ...p, why: 'is not the invoice this PDF shows' })),
  ];
  if (reasons.length > 0) {
    return {
      profiles: [...declared],
      relationship,
      extraClaim: null,
      issues: reasons.map((p) => ({
        profile: 'Factur-X' as const,
        clause: p.clause,
        element,
        message: `${FACTUR_X_FILE_NAME} ${p.why}, so the PDF does not claim Factur-X: ${p.message}`,
      })),
    };
  }
  const { profiles, issues } = withPdfA3(declared);
  const requires = profiles.filter((p) => p.startsWith('PDF/A-3'));
  return { profiles, relationship, extraClaim: { claim: 'Factur-X', requires, extensions: [facturXSchema(level)] }, issues };
}
