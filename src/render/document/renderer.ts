/**
 * One render in a slot: load the HTML into the fresh document, wait until it is ready to print (load
 * event, fonts, no pending subresource, `window.pageworksReady`, animations at their end: page-script.ts,
 * document-prepare.ts), read what it says about itself, print with the computed page parameters
 * (document-print.ts).
 * The caller (the pool) enforces the wall-clock deadline and discards the slot when it is not clean.
 */
import { RenderError } from '../../errors.js';
import { withPdfProperties } from '../../pdf/index.js';
import type { ServiceLog } from '../../service-log.js';
import { VERSION } from '../../version.js';
import { callExpression, evaluateIn } from '../browser/cdp.js';
import { framesWhileLoading } from '../browser/frames.js';
import { isolatedWorld, type RenderSlot } from '../browser/slot.js';
import type { ReportCollector } from '../report/report-collector.js';
import { brokenResources, failedFonts, PAGE_LIMITS } from '../report/report-page.js';
import type { PrintParams } from '../request/options.js';
import { unresolvedReferenceEntries } from './cross-reference-passes.js';
import { type CrossReferenceUse, findCrossReferenceUse, mentionsCrossReferences } from './cross-references.js';
import { mentionsDeclarations, type PageDeclarations } from './declarations-page.js';
import { cleanInfoText, type DocumentInfo, readDocumentInfo } from './document-info.js';
import { loadDocument, prepareAgain } from './document-prepare.js';
import { printDocument } from './document-print.js';
import { type ProfiledPdf, withDocumentProfiles } from './document-profiles.js';
import { checkedRead } from './document-read.js';
import { NAVIGATED, networkIdle, settleNavigation } from './navigation-wait.js';
import { turnsAfterLoad } from './page-script.js';
import { printedView } from './shown-text-read.js';

/** Pending subresources are waited for at most until this long before the deadline, then printing starts. */
const PRINT_RESERVE_MAX_MS = 5000;
/**
 * After the load event (and `pageworksReady`), how long requests still pending are waited for: late data
 * within it prints, a request that never settles (a beacon, a long poll) does not hold the print longer.
 */
export const DEFAULT_IDLE_MAX_MS = 2000;
/** Creator and Producer of every PDF: the service that made it, not the browser engine it used. */
const PRODUCER = `Pageworks ${VERSION}`;

/** What the render knows of the document right before it prints. */
interface DocumentRead {
  info?: DocumentInfo;
  xref?: CrossReferenceUse;
  /** Whether the document may declare PDF profiles (document/declarations-page.ts reads them). */
  declares?: boolean;
  /** The declarations, when the main-world read holds them all (document-read.ts). */
  declared?: PageDeclarations;
  fonts?: unknown;
  broken?: unknown;
}

/** The report's reads in the isolated world: failed fonts, and what was asked for and not got without a request saying so. */
const REPORT_READS = `fonts: ${callExpression(failedFonts, PAGE_LIMITS)}, broken: ${callExpression(brokenResources, PAGE_LIMITS)}`;

/** The expression that reads the document in the isolated world (the report's reads only when a report is collected). */
function readExpression(report: boolean): string {
  const fonts = report ? `, ${REPORT_READS}` : '';
  return `({ info: ${callExpression(readDocumentInfo, cleanInfoText)}, xref: ${callExpression(findCrossReferenceUse, mentionsCrossReferences)}, declares: ${callExpression(mentionsDeclarations)}${fonts} })`;
}

/**
 * What the document says about itself, where it may use cross-references and (with a report) its failed
 * fonts: as the page's own world read it once the document was ready (`pageRead`, made with built-ins
 * taken before the document ran), and in an isolated world only what that read says is there (a failed
 * font), or all of it when there is no such read (a document that navigated has a window other than
 * the one the built-ins were taken from).
 */
async function readDocument(slot: RenderSlot, report: boolean, pageRead?: unknown): Promise<DocumentRead> {
  try {
    const read = pageRead === undefined ? undefined : checkedRead(pageRead);
    if (!read) return (await evaluateIn(slot.session, await isolatedWorld(slot), readExpression(report))) as DocumentRead;
    const { fonts, broken } =
      report && (read.fontsFailed || read.resourcesBroken)
        ? ((await evaluateIn(slot.session, await isolatedWorld(slot), `({ ${REPORT_READS} })`)) as Pick<
            DocumentRead,
            'fonts' | 'broken'
          >)
        : { fonts: undefined, broken: undefined };
    return { info: read.info, xref: read.xref, declares: read.declares, declared: read.declarations, fonts, broken };
  } catch (err) {
    // A document that navigates right now has nothing to read yet: the print's retry reads it again.
    if (!NAVIGATED.test(String((err as Error)?.message))) throw err;
    return {};
  }
}

/** Where a render's own warnings go. */
export type RenderWarningLog = Pick<ServiceLog, 'warn'>;

/** The bounds of one render in a slot, and where it reports. */
export interface RenderInSlotOptions {
  /** Epoch ms by which the PDF is printed. */
  deadline: number;
  /** The render timeout, of which the print keeps a reserve. */
  timeoutMs: number;
  log?: RenderWarningLog;
  /** Requests still pending once the document has loaded (and said it is ready) are waited for at most this long. */
  idleMaxMs?: number;
  /** Hears what the document could not get (its network part the collector hears by itself). */
  report?: ReportCollector;
}

/**
 * A document printed in a slot: the PDF's Title, and what is left to make its PDF (the properties, the
 * declared profiles), which reads no page: the slot can go back to the pool before it runs.
 */
export interface PrintedDocument {
  title?: string;
  finish(): Promise<ProfiledPdf>;
}

/** Renders `html` in `slot` and returns the PDF bytes, the standards they claim and the PDF's Title. Throws RenderError. */
export async function renderInSlot(
  slot: RenderSlot,
  html: string,
  params: PrintParams,
  options: RenderInSlotOptions,
): Promise<ProfiledPdf & { title?: string }> {
  const printed = await printInSlot(slot, html, params, options);
  return { ...(await printed.finish()), title: printed.title };
}

/** Renders `html` in `slot` up to what needs no page any more (PrintedDocument). Throws RenderError. */
export async function printInSlot(
  slot: RenderSlot,
  html: string,
  params: PrintParams,
  options: RenderInSlotOptions,
): Promise<PrintedDocument> {
  const { deadline, timeoutMs, log, idleMaxMs = DEFAULT_IDLE_MAX_MS, report } = options;
  slot.renders += 1;
  const reserve = Math.min(PRINT_RESERVE_MAX_MS, timeoutMs / 4);
  const collect = report !== undefined;
  // A document that can start nothing at its load (no turns) runs no script: it has no use for drawn
  // frames, where the render sends them (browser/frames.ts), only for layout while it loads.
  const turns = turnsAfterLoad(html);
  const how = { pageCss: params.pageCss, turns, frames: slot.frames === null || turns > 0, report: collect };
  const stopFrames = !slot.frames
    ? undefined
    : how.frames
      ? slot.frames.pump(slot.session)
      : framesWhileLoading(slot.frames, slot.session);
  let rejected: string | undefined;
  let missed: number | undefined;
  let pageRead: unknown;
  try {
    const first = await loadDocument(slot, html, how, deadline - reserve);
    ({ rejected, missed, read: pageRead } = first);
    report?.addPage(first.page);
    await networkIdle(slot, Math.min(deadline - reserve, Date.now() + idleMaxMs));
    await settleNavigation(slot, deadline - reserve, idleMaxMs);
    // What the document loaded or navigated to since it was prepared may animate, or wait to be ready, too.
    if (slot.egress.requests > 0 || slot.navigations > 0) {
      const again = await prepareAgain(slot, how);
      rejected ??= again.rejected;
      // The frames the document waits for now (a later frame may have run what the first wait missed).
      missed = again.missed;
      report?.addPage(again.page);
      // What the document says now; nothing from a document that navigated (the isolated world reads it).
      pageRead = again.read;
    }
  } finally {
    stopFrames?.();
  }
  if (rejected !== undefined) {
    log?.warn({ reason: rejected }, 'window.pageworksReady rejected; printed anyway');
    report?.notReady(rejected);
  }
  if (missed !== undefined) {
    log?.warn({ callbacks: missed }, 'an animation frame the document waited for did not come; printed without it');
    report?.framesMissed(missed);
  }
  report?.printing(slot.requests.keys());
  if (slot.crashed) throw new RenderError('RENDER_FAILED', 'the document crashed the renderer');
  let read = await readDocument(slot, collect, pageRead);
  report?.addFonts(read.fonts);
  report?.addBroken(read.broken);
  let printed: { pdf: Buffer; unresolved: string[] };
  try {
    printed = await printDocument(slot, params, read.xref);
  } catch (err) {
    // A navigation that started after the checks above can still race the print: settle and retry once.
    if (slot.navigations === 0 && !slot.navigating) throw err;
    await settleNavigation(slot, deadline - reserve, idleMaxMs);
    read = await readDocument(slot, false);
    printed = await printDocument(slot, params, undefined);
  }
  const { pdf, unresolved } = printed;
  if (unresolved.length > 0) {
    log?.warn({ targets: unresolved }, 'cross-references to ids the document lacks print no page number');
    report?.unresolved(unresolvedReferenceEntries(unresolved));
  }
  const properties = { ...read.info, creator: PRODUCER, producer: PRODUCER, date: new Date() };
  // A navigation lost the first answer: the isolated read finds out itself whether anything is declared.
  if (read.declares !== false) {
    const source = {
      session: slot.session,
      frameId: slot.frameId,
      world: () => isolatedWorld(slot),
      declared: read.declared,
      egress: slot.egress,
      timeoutMs: Math.max(0, deadline - Date.now()),
      renderTimeoutMs: timeoutMs,
      view: printedView(params),
    };
    const finish = await withDocumentProfiles(pdf, { ...source, properties, report });
    if (finish) return { title: read.info?.title, finish };
  }
  return { title: read.info?.title, finish: async () => ({ pdf: withPdfProperties(pdf, properties), claims: [] }) };
}
