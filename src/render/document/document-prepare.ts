/**
 * Preparing a render's document in its slot for printing: writing the HTML into the fresh document and
 * waiting in one call until it is ready (preparePage, page-script.ts), and again for what it loaded or
 * navigated to since. A document that navigates under a call is left to load where it went.
 */
import { RenderError } from '../../errors.js';
import { callExpression, callOn, evaluate } from '../browser/cdp.js';
import type { RenderSlot } from '../browser/slot.js';
import { PAGE_LIMITS, watchErrors } from '../report/report-page.js';
import { READ_LIMITS } from './document-read.js';
import { readWithKit, takeReadKit } from './document-read-page.js';
import { NAVIGATED, waitUntilLoaded } from './navigation-wait.js';
import { ANIMATION_ROUNDS, preparePage, turnsAfterLoad } from './page-script.js';

/**
 * What preparing a document reports: why `pageworksReady` rejected, how many of its requestAnimationFrame
 * callbacks still waited for a frame that did not come, (with a report) its script errors, and the
 * main-world read of the document once it is ready (document-read-page.ts), unchecked.
 */
interface Prepared {
  rejected?: string;
  missed?: number;
  page?: unknown;
  read?: unknown;
}

/**
 * The function (called on the slot's holder, with the HTML, the page CSS, the task turns after load and
 * whether frames come as its arguments) that runs preparePage: with HTML, writing the document, and with
 * `report`, watching its script errors from its start (the take function stays on the holder). Before it writes the document it
 * also leaves on the holder the read that preparePage ends with (document-read-page.ts), with the
 * built-ins of the window as nothing has touched it yet. The document is an argument, not part of the
 * source: the source is then the same for every render (a renderer may keep what it compiled), and the
 * document is not escaped twice on its way, once into a string literal and again into the protocol message.
 */
function prepareDeclaration(writes: boolean, report: boolean): string {
  const watch = report ? watchErrors.toString() : 'null';
  const args = `html, pageCss, ${ANIMATION_ROUNDS}, turns, frames, ${watch}, ${JSON.stringify(PAGE_LIMITS)}, this`;
  const keepRead = writes
    ? `const kit = (${takeReadKit.toString()})(); this.read = () => (${readWithKit.toString()})(kit, ${JSON.stringify(READ_LIMITS)});`
    : '';
  return `function (html, pageCss, turns, frames) { return ((__name) => { ${keepRead} return (${preparePage.toString()})(${args}); })((f) => f); }`;
}

/** The four declarations prepare calls, made once: indexed by whether it writes the document, then whether it watches errors. */
const DECLARATIONS = [false, true].map((writes) => [false, true].map((report) => prepareDeclaration(writes, report)));

/** Calls preparePage on the slot's holder (see RenderSlot.holder). */
async function prepare(slot: RenderSlot, html: string | null, how: Preparing): Promise<Prepared> {
  if (slot.holder === null) throw new RenderError('RENDER_FAILED', 'the page has no fresh document to render in');
  const declaration = DECLARATIONS[Number(html !== null)][Number(how.report)];
  const turns = html === null ? turnsAfterLoad(null) : how.turns;
  const value = await callOn(slot.session, slot.holder, declaration, [html, how.pageCss, turns, how.frames]);
  if (value === null || typeof value !== 'object') return {};
  // What crossed from the page: a rejection reason is text, cut as the page cut it.
  const { rejected, missed, page, read } = value as Prepared;
  return {
    rejected: typeof rejected === 'string' ? rejected.slice(0, PAGE_LIMITS.text) : undefined,
    // What crossed from the page is the document's to forge: a count, or nothing.
    missed: Number.isSafeInteger(missed) && (missed as number) > 0 ? missed : undefined,
    page,
    read,
  };
}

/**
 * Writes the HTML into the page's current (fresh) document and prepares it for printing (preparePage).
 * One round trip does the whole wait: what the renderer reported before its answer (requests, navigation
 * requests) is known when it arrives. Returns the reason a `pageworksReady` promise rejected, if it did,
 * and (with a report) the script errors so far.
 */
export async function loadDocument(slot: RenderSlot, html: string, how: Preparing, until: number): Promise<Prepared> {
  try {
    return await prepare(slot, html, how);
  } catch (err) {
    // The document navigated itself (meta refresh, location=…): print wherever it ended up, once loaded.
    if (!NAVIGATED.test(String((err as Error)?.message))) throw err;
    await waitUntilLoaded(slot, until);
    return {};
  }
}

/**
 * How a render prepares its document: the page CSS, the task turns after its load (turnsAfterLoad of its
 * HTML, read once: a body of 10 MiB takes the pattern about 12 ms), whether the page gets frames, whether
 * a report is collected.
 */
export interface Preparing {
  pageCss: string;
  turns: number;
  frames: boolean;
  report: boolean;
}

/**
 * preparePage on the document as it is now (no HTML to write), handing over the script errors since the
 * first take; a document that navigated has a new window, so neither holder nor errors: it runs there
 * on its own. A navigation racing it is left to the print's retry.
 */
export async function prepareAgain(slot: RenderSlot, how: Preparing): Promise<Prepared> {
  try {
    if (slot.navigations === 0) return await prepare(slot, null, how);
    await evaluate(
      slot.session,
      callExpression(preparePage, null, how.pageCss, ANIMATION_ROUNDS, turnsAfterLoad(null), how.frames, null, PAGE_LIMITS, null),
    );
    return {};
  } catch (err) {
    if (!NAVIGATED.test(String((err as Error)?.message))) throw err;
    return {};
  }
}
