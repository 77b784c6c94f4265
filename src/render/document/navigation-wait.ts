/**
 * Waiting for a document to be done with the network and with navigating before it prints: a render's
 * own load is awaited in the page (page-script.ts); what it started afterwards (requests, a navigation of
 * its own) is followed here from the slot's protocol events (browser/slot.ts).
 */
import { RenderError } from '../../errors.js';
import { evaluate } from '../browser/cdp.js';
import type { RenderSlot } from '../browser/slot.js';

/** Once a document that loads things went quiet, it must stay quiet this long (a fetch chained on a fetch). */
const QUIET_MS = 50;
/** A navigation asked for by the document has this long to show up as a request before it is given up on. */
const NAVIGATION_START_MS = 100;
/** How a call into the page fails when the document navigated away under it. */
export const NAVIGATED = /context was destroyed|navigat/i;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls until the current document (the one a navigation brought) has loaded, then waits for its fonts.
 * A poll that meets a navigation in progress fails and is simply repeated; `until` is epoch ms.
 */
export async function waitUntilLoaded(slot: RenderSlot, until: number): Promise<void> {
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
export async function networkIdle(slot: RenderSlot, until: number): Promise<void> {
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
 * load and get its fonts, so printing never races a navigation; then for its pending requests, at most
 * `idleMaxMs` after its load.
 */
export async function settleNavigation(slot: RenderSlot, until: number, idleMaxMs: number): Promise<void> {
  while (slot.navigating && Date.now() < until) await sleep(10);
  if (slot.navigations === 0) return;
  await waitUntilLoaded(slot, until);
  await networkIdle(slot, Math.min(until, Date.now() + idleMaxMs));
}
