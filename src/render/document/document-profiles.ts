/**
 * The PDF profiles a document declares, from its page to the profile engine's request: the
 * declarations as the main-world read found them in the metas, or read in an isolated world (with the
 * PDF/UA gaps, for a PDF/UA-1 declaration, and for attachments), only for a document that mentions a
 * declaration; the attachments fetched, the Factur-X invoice checked. What the
 * document cannot have becomes report entries; the engine (src/pdf/profiles) claims only the rest.
 */
import type { CDPSession } from 'puppeteer-core';
import type { RenderEgress } from '../../net/render-egress.js';
import { PdfWorkLimitError, pdfEngine } from '../../pdf/engine.js';
import { type FacturXDeclaration, type FacturXPlan, planFacturX } from '../../pdf/factur-x/factur-x.js';
import { FACTUR_X_FILE_NAME } from '../../pdf/factur-x/levels.js';
import { applyProfiles } from '../../pdf/profiles/apply-profiles.js';
import type { Claim, ConformanceIssue, EmbeddedFile, ExtraClaim, PdfProfile, ProfileRequest } from '../../pdf/profiles/types.js';
import type { ReportEntry } from '../../report/report.js';
import { callExpression, evaluateIn } from '../browser/cdp.js';
import type { ReportCollector } from '../report/report-collector.js';
import { blockedEntry, conformanceEntry } from '../report/report-words.js';
import { accessibilityIssues, checkedGaps, MAX_FINDINGS, MAX_NAME } from './accessibility-issues.js';
import { findAccessibilityGaps } from './accessibility-page.js';
import { fetchAttachment } from './attachments.js';
import { checkedDeclarations, DECLARATION_CAPS, type Declarations } from './declarations.js';
import { mayDeclareUa, type PageDeclarations, readDeclarations } from './declarations-page.js';
import type { PrintedView } from './shown-text-page.js';
import { printedView, readShownInvoice } from './shown-text-read.js';

/** What the engine is asked for (the rest of its request is the document's Info), and what to report. */
export interface ProfilePlan {
  profiles: PdfProfile[];
  files: EmbeddedFile[];
  extraClaims: ExtraClaim[];
  issues: ConformanceIssue[];
  entries: ReportEntry[];
}

/**
 * The page as the plan reads it: its session, its main frame, the isolated world of its document (made
 * when first asked for), its egress, how long the render has left and how long it may take in all, and
 * the declarations when the main-world read already holds them all (document-read.ts).
 */
export interface ProfileSource {
  session: CDPSession;
  frameId: string;
  world: () => Promise<number>;
  declared?: PageDeclarations;
  egress: RenderEgress;
  /** What is left of the render's time (ms). */
  timeoutMs: number;
  /** The render's whole timeout (RENDER_TIMEOUT_MS); the remaining time when absent. */
  renderTimeoutMs?: number;
  /** How the document printed (its printable width, …), where Factur-X reads what a reader sees; A4 without margins when absent. */
  view?: PrintedView;
}

/** The print a source without a view is taken to have had: A4, no margins, scale 1, no backgrounds. */
const DEFAULT_VIEW = { widthIn: 8.27, margin: { top: 0, right: 0, bottom: 0, left: 0 }, scale: 1, printBackground: false };

/**
 * An attachment's own deadline: a third of the render's timeout, at most 10 s, so one that drips or hangs is
 * a `resource_failed` warning (timeout) while the render still has time to make its PDF.
 */
export const ATTACHMENT_MAX_MS = 10_000;
/** The profile engine's own deadline: at most 15 s, ending this long before the render's. */
export const PROFILES_MAX_MS = 15_000;
const PROFILES_RESERVE_MS = 1_000;

/** The attachments' deadline (ms from now) for a render with `left` ms left of `total`. */
export function attachmentTimeout(left: number, total: number): number {
  return Math.max(0, Math.min(ATTACHMENT_MAX_MS, total / 3, left - Math.min(PROFILES_RESERVE_MS, total / 10)));
}

/**
 * Reads the declarations, and the PDF/UA gaps when PDF/UA-1 may be declared, in the render's isolated
 * world (slot.ts): one round trip. Null when the page answered nothing usable. Declarations the main-world
 * read holds are taken as they are when they cannot declare PDF/UA-1: then nothing is left to read.
 */
async function readPage(source: ProfileSource): Promise<{ declarations: Declarations; gaps: unknown } | null> {
  if (source.declared && !source.declared.profiles.some(mayDeclareUa)) {
    const declarations = checkedDeclarations(source.declared);
    return declarations ? { declarations, gaps: null } : null;
  }
  const { session } = source;
  const contextId = await source.world();
  const gaps = callExpression(findAccessibilityGaps, MAX_FINDINGS, MAX_NAME);
  // Walking the DOM for gaps lays the printed document out again: only a PDF/UA-1 declaration pays for it.
  const expression = `(() => { const declarations = ${callExpression(readDeclarations, DECLARATION_CAPS)}; return { declarations, gaps: declarations.profiles.some(${mayDeclareUa.toString()}) ? ${gaps} : null }; })()`;
  // A page that broke the read (it cannot reach the isolated world, but it can crash its own DOM) declares nothing.
  const value = await evaluateIn(session, contextId, expression).catch(() => null);
  if (typeof value !== 'object' || value === null) return null;
  const answer = value as { declarations?: unknown; gaps?: unknown };
  const declarations = checkedDeclarations(answer.declarations);
  return declarations ? { declarations, gaps: answer.gaps } : null;
}

/** A media type fit for an embedded file's `/Subtype`: the declared one, else the server's, else octet-stream. */
function mediaType(declared: string, served: string): string {
  const pick = [declared, served.split(';')[0]]
    .map((t) => t.trim().toLowerCase())
    .find((t) => /^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(t));
  return pick ?? 'application/octet-stream';
}

/**
 * Plans the profiles of the document now in `source`'s page: null when it declares nothing at all
 * (then its PDF is made exactly as without this step).
 */
export async function planDocumentProfiles(source: ProfileSource): Promise<ProfilePlan | null> {
  const { frameId } = source;
  const page = await readPage(source);
  if (!page) return null;
  const { declarations } = page;
  const { facturX, attachments } = declarations;
  if (declarations.profiles.length === 0 && facturX === null && attachments.length === 0 && declarations.entries.length === 0) {
    return null;
  }
  const entries = [...declarations.entries];
  const issues: ConformanceIssue[] = [];
  if (declarations.profiles.includes('PDF/UA-1')) {
    const gaps = checkedGaps(page.gaps);
    if (gaps) issues.push(...accessibilityIssues(gaps));
  }
  const timeoutMs = attachmentTimeout(source.timeoutMs, source.renderTimeoutMs ?? source.timeoutMs);
  const from = { session: source.session, frameId, egress: source.egress, timeoutMs };
  const fetched = await Promise.all(
    attachments.map((a) =>
      a.url === '' && a.urlLength > 0
        ? Promise.resolve(blockedEntry(`data:,${a.name}`, 'too_large'))
        : fetchAttachment(a.url, from),
    ),
  );
  const files: EmbeddedFile[] = [];
  let invoice: Uint8Array | undefined;
  attachments.forEach((a, i) => {
    const got = fetched[i];
    if ('kind' in got) {
      entries.push(got);
      return;
    }
    const isInvoice = facturX !== null && a.name === FACTUR_X_FILE_NAME && invoice === undefined;
    if (isInvoice) invoice = got.bytes;
    files.push({
      name: a.name,
      bytes: got.bytes,
      mimeType: isInvoice ? 'text/xml' : mediaType(a.type, got.type),
      relationship: 'Unspecified',
    });
  });
  let profiles = declarations.profiles;
  const extraClaims: ExtraClaim[] = [];
  if (facturX !== null) {
    const element = `link[rel="attachment"][title="${FACTUR_X_FILE_NAME}"]`;
    const linked = attachments.some((a) => a.name === FACTUR_X_FILE_NAME);
    const view = source.view ?? printedView(DEFAULT_VIEW);
    const readShown = (looks: { texts: string[]; digits: string[] }) =>
      source.world().then((contextId) => readShownInvoice(source.session, contextId, view, looks));
    const plan = await checkedInvoice({ level: facturX, xml: invoice, element, linked, readShown, examine }, profiles);
    profiles = plan.profiles;
    issues.push(...plan.issues);
    if (plan.extraClaim) extraClaims.push(plan.extraClaim);
    const file = files.find((f) => f.bytes === invoice);
    // Without the claim the XML is a plain attachment: a Data or Alternative relationship would claim it is the invoice.
    if (file && plan.extraClaim) {
      file.relationship = plan.relationship;
      file.description = `Factur-X ${facturX} invoice`;
    }
  }
  return { profiles, files, extraClaims, issues, entries };
}

/** The XML checked in a PDF worker (it is the document's, so the customer's); what a reader sees is read here, from the page. */
const examine: FacturXDeclaration['examine'] = (xml, level) =>
  pdfEngine().run('examine-invoice', { xml, level }, { label: FACTUR_X_FILE_NAME });

/**
 * The invoice's plan; an XML that overruns the PDF work's limits is a conformance issue naming the limit,
 * and the PDF claims no Factur-X.
 */
async function checkedInvoice(declaration: FacturXDeclaration, declared: PdfProfile[]): Promise<FacturXPlan> {
  try {
    return await planFacturX(declaration, declared);
  } catch (err) {
    if (!(err instanceof PdfWorkLimitError)) throw err;
    return {
      profiles: [...declared],
      relationship: 'Unspecified',
      extraClaim: null,
      issues: [
        {
          profile: 'Factur-X',
          clause: FACTUR_X_FILE_NAME,
          element: declaration.element,
          message: `${err.message}, so the PDF does not claim Factur-X`,
        },
      ],
    };
  }
}

/** What the PDF's Info dictionary and XMP say besides the profiles: the document's properties, who made it, when. */
export type PdfProperties = Pick<
  ProfileRequest,
  'title' | 'lang' | 'author' | 'subject' | 'keywords' | 'creator' | 'producer' | 'date'
>;

/** A PDF made to its document's profiles, and what it claims. */
export interface ProfiledPdf {
  pdf: Buffer;
  claims: Claim[];
}

/**
 * The printed `pdf` made to the profiles its document declares, with the document's properties; null
 * when it declares none (the caller then writes the properties as for any PDF). What the page has to say
 * (declarations, attachments, the invoice's checks) is read now; the PDF's part is the function returned,
 * which reads no page, so a render can give its slot back before it runs. What the document or its PDF
 * cannot meet goes to `report` as `conformance` entries, with the attachments it could not get.
 */
export async function withDocumentProfiles(
  pdf: Buffer,
  source: ProfileSource & { properties: PdfProperties; report?: ReportCollector },
): Promise<(() => Promise<ProfiledPdf>) | null> {
  const until = Date.now() + source.timeoutMs;
  const plan = await planDocumentProfiles(source);
  if (!plan) return null;
  if (plan.profiles.length === 0 && plan.files.length === 0 && plan.extraClaims.length === 0) {
    // Only declarations that cannot be honoured: nothing for the engine, the warnings still go out.
    source.report?.profiles([...plan.entries, ...plan.issues.map(conformanceEntry)]);
    return null;
  }
  return async () => {
    const result = await applyProfiles(pdf, {
      profiles: plan.profiles,
      files: plan.files,
      extensions: [],
      extraClaims: plan.extraClaims,
      issues: plan.issues,
      ...source.properties,
      deadline: Math.min(Date.now() + PROFILES_MAX_MS, until - Math.min(PROFILES_RESERVE_MS, source.timeoutMs / 10)),
    });
    source.report?.profiles([...plan.entries, ...result.issues.map(conformanceEntry)]);
    return { pdf: Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength), claims: result.claims };
  };
}
