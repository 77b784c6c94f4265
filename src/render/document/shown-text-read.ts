/**
 * What a reader sees of a printed document's text, for the Factur-X check that the PDF shows its
 * invoice: the page is laid out as it printed (print media, the printable width), read in the isolated
 * world (shown-text-page.ts), then put back as the slot keeps it.
 */
import type { CDPSession } from 'puppeteer-core';
import type { ShownInvoice } from '../../pdf/factur-x/shown-invoice.js';
import { callExpression, evaluateIn } from '../browser/cdp.js';
import { SLOT_MEDIA, SLOT_WINDOW } from '../browser/slot.js';
import type { PrintParams } from '../request/options.js';
import { type PrintedView, readShownText, type ShownTextQuery } from './shown-text-page.js';

/** How much of a document's text the check reads (an invoice of thousands of lines fits). */
const MAX_SHOWN_TEXT = 4_000_000;
/** Nodes holding a value to show that get the covering check (each may scroll the page once). */
const MAX_COVERED = 400;
/** `data-bt` elements read. */
const MAX_MARKED = 50;
/** CSS px per inch; 6 pt (the smallest size read as shown) is 8 CSS px at scale 1. */
const PX_PER_IN = 96;
const MIN_FONT_PX = 8;

/** The printed view of a render's page: its printable width, the smallest readable text, whether backgrounds print. */
export function printedView(params: Pick<PrintParams, 'widthIn' | 'margin' | 'scale' | 'printBackground'>): PrintedView {
  const scale = params.scale > 0 ? params.scale : 1;
  return {
    widthPx: Math.max(1, ((params.widthIn - params.margin.left - params.margin.right) * PX_PER_IN) / scale),
    minFontPx: MIN_FONT_PX / scale,
    backgrounds: params.printBackground,
  };
}

/** What the read answered, checked: anything else from the page is nothing shown. */
function checked(value: unknown): ShownInvoice {
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const marked = Array.isArray(v.marked) ? v.marked.slice(0, MAX_MARKED) : [];
  return {
    text: typeof v.text === 'string' ? v.text.slice(0, MAX_SHOWN_TEXT) : '',
    lang: typeof v.lang === 'string' ? v.lang.slice(0, 35) : '',
    marked: marked.flatMap((m: unknown) => {
      const { term, text } = (m ?? {}) as { term?: unknown; text?: unknown };
      if (typeof term !== 'string') return [];
      return [{ term: term.slice(0, 20), text: typeof text === 'string' ? text.slice(0, 1000) : null }];
    }),
  };
}

/**
 * The visible text of the document in `contextId` as printed in `view`, with the covering check for the
 * nodes that hold one of `texts` or `digits` (shown-text-page.ts). Nothing shown when the page would not answer.
 */
export async function readShownInvoice(
  session: CDPSession,
  contextId: number,
  view: PrintedView,
  looks: Pick<ShownTextQuery, 'texts' | 'digits'>,
): Promise<ShownInvoice> {
  const query: ShownTextQuery = { ...looks, maxText: MAX_SHOWN_TEXT, maxCovered: MAX_COVERED, maxMarked: MAX_MARKED };
  try {
    await session.send('Emulation.setEmulatedMedia', { ...SLOT_MEDIA, media: 'print' });
    await session.send('Emulation.setDeviceMetricsOverride', { ...SLOT_WINDOW, width: Math.round(view.widthPx) });
    return checked(await evaluateIn(session, contextId, callExpression(readShownText, view, query)).catch(() => null));
  } finally {
    await session.send('Emulation.setDeviceMetricsOverride', SLOT_WINDOW).catch(() => undefined);
    await session.send('Emulation.setEmulatedMedia', SLOT_MEDIA).catch(() => undefined);
  }
}
