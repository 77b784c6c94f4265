/**
 * One render in a slot: load the HTML into the fresh document, wait until it is ready to print
 * (load event, fonts, no pending subresource), print with the computed page parameters.
 * The caller (the pool) enforces the wall-clock deadline and discards the slot when it is not clean.
 */
import { RenderError } from '../errors.js';
import { callExpression, evaluate, readStream } from './cdp.js';
import type { PrintParams } from './options.js';
import type { RenderSlot } from './slot.js';

/** Pending subresources are waited for at most until this long before the deadline, then printing starts. */
const PRINT_RESERVE_MAX_MS = 5000;
/** Once a document that loads things went quiet, it must stay quiet this long (a fetch chained on a fetch). */
const QUIET_MS = 50;
/** A navigation asked for by the document has this long to show up as a request before it is given up on. */
const NAVIGATION_START_MS = 100;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Writes the HTML into the page's current (fresh) document and waits for its load event and fonts, then
 * lets two task turns pass so what the document starts at load (a meta refresh, a zero-delay timer) has
 * started. Runs in the page because a navigation-free document.write keeps the opaque about:blank origin,
 * and one round trip does the whole wait: what the renderer reported before its answer (requests,
 * navigation requests) is known when it arrives.
 */
async function loadDocument(slot: RenderSlot, html: string, until: number): Promise<void> {
  try {
    await evaluate(slot.session, callExpression(writeAndWait, html));
  } catch (err) {
    // The document navigated itself (meta refresh, location=…): print wherever it ended up, once loaded.
    if (!/context was destroyed|navigat/i.test(String((err as Error)?.message))) throw err;
    await waitUntilLoaded(slot, until);
  }
}

/** Runs in the page: see loadDocument. */
async function writeAndWait(source: string): Promise<void> {
  // The document's scripts run inside document.write and may replace these globals; the waits below
  // use the built-ins of the fresh window, taken before it runs anything.
  const [PromiseCtor, wait, listen] = [Promise, window.setTimeout.bind(window), window.addEventListener.bind(window)];
  const readyState = Object.getOwnPropertyDescriptor(Document.prototype, 'readyState')?.get?.bind(document);
  const fontsReady = Object.getOwnPropertyDescriptor(FontFaceSet.prototype, 'ready')?.get?.bind(document.fonts);
  window.name = '';
  document.open();
  document.write(source);
  document.close();
  if (readyState?.() !== 'complete') await new PromiseCtor((resolve) => listen('load', resolve, { once: true }));
  await fontsReady?.();
  for (let turn = 0; turn < 2; turn++) await new PromiseCtor((resolve) => wait(resolve, 0));
}

/**
 * Polls until the current document (the one a navigation brought) has loaded, then waits for its fonts.
 * A poll that meets a navigation in progress fails and is simply repeated; `until` is epoch ms.
 */
async function waitUntilLoaded(slot: RenderSlot, until: number): Promise<void> {
  for (;;) {
    if (slot.session.detached) throw new RenderError('RENDER_FAILED', 'the page went away while it loaded');
    const complete = await evaluate(slot.session, 'document.readyState').then(
      (state) => state === 'complete',
      () => false,
    );
    if (complete) break;
    if (Date.now() >= until) throw new RenderError('RENDER_TIMEOUT', 'the document did not finish loading in time');
    await sleep(20);
  }
  await evaluate(slot.session, 'document.fonts.ready.then(() => undefined)');
}

/** Whether the document is loading or about to navigate (a request it asked for may not be reported yet). */
function busy(slot: RenderSlot): boolean {
  return (
    slot.requests.size > 0 ||
    slot.egress.pending > 0 ||
    slot.navigating ||
    (slot.navigationRequestedAt > 0 && Date.now() - slot.navigationRequestedAt < NAVIGATION_START_MS)
  );
}

/**
 * Waits until nothing is pending, or until `until` (epoch ms). A document that reached the network or
 * asked to navigate must then stay quiet for QUIET_MS (a fetch chained on a fetch); one that only loaded
 * its own markup (data: and blob: resources included) prints as soon as nothing is pending.
 */
async function networkIdle(slot: RenderSlot, until: number): Promise<void> {
  let quietSince = 0;
  while (Date.now() < until) {
    const active = slot.egress.requests > 0 || slot.navigationRequestedAt > 0;
    if (busy(slot)) quietSince = 0;
    else if (!active) return;
    else if (quietSince === 0) quietSince = Date.now();
    else if (Date.now() - quietSince >= QUIET_MS) return;
    await sleep(10);
  }
}

/**
 * When the document navigated itself (location=…, meta refresh), waits for the new document to commit,
 * load and get its fonts, so printing never races a navigation.
 */
async function settleNavigation(slot: RenderSlot, until: number): Promise<void> {
  while (slot.navigating && Date.now() < until) await sleep(10);
  if (slot.navigations === 0) return;
  await waitUntilLoaded(slot, until);
  await networkIdle(slot, until);
}

/** Renders `html` in `slot` and returns the PDF bytes; `deadline` is epoch ms. Throws RenderError. */
export async function renderInSlot(slot: RenderSlot, html: string, params: PrintParams, deadline: number, timeoutMs: number): Promise<Buffer> {
  slot.renders += 1;
  const reserve = Math.min(PRINT_RESERVE_MAX_MS, timeoutMs / 4);
  await loadDocument(slot, html, deadline - reserve);
  await networkIdle(slot, deadline - reserve);
  await settleNavigation(slot, deadline - reserve);
  if (slot.crashed) throw new RenderError('RENDER_FAILED', 'the document crashed the renderer');
  try {
    return await print(slot, params);
  } catch (err) {
    // A navigation that started after the checks above can still race the print: settle and retry once.
    if (slot.navigations === 0 && !slot.navigating) throw err;
    await settleNavigation(slot, deadline - reserve);
    return print(slot, params);
  }
}

async function print(slot: RenderSlot, params: PrintParams): Promise<Buffer> {
  try {
    const { stream } = await slot.session.send('Page.printToPDF', {
      paperWidth: params.widthIn,
      paperHeight: params.heightIn,
      marginTop: params.margin.top,
      marginRight: params.margin.right,
      marginBottom: params.margin.bottom,
      marginLeft: params.margin.left,
      scale: params.scale,
      printBackground: params.printBackground,
      // Page size comes from the request; `landscape` is already applied to width/height (never passed:
      // Chromium would swap a custom size again).
      landscape: false,
      preferCSSPageSize: false,
      displayHeaderFooter: false,
      // Tagged (accessible) PDF, as puppeteer prints by default.
      generateTaggedPDF: true,
      transferMode: 'ReturnAsStream',
    });
    if (!stream) throw new Error('Page.printToPDF returned no stream');
    return await readStream(slot.session, stream);
  } catch (err) {
    if (/Printing failed|Page range|content area is empty/i.test(String((err as Error)?.message))) {
      throw new RenderError('RENDER_FAILED', 'Chromium could not print this document with these options', undefined, { cause: err });
    }
    throw err;
  }
}
