/**
 * Printing a prepared document with Chromium (Page.printToPDF): once, or in passes when its stylesheets
 * may use cross-references (cross-reference-passes.ts). Chromium's refusal of the options is a RenderError.
 */
import { RenderError } from '../../errors.js';
import { readStream } from '../browser/cdp.js';
import type { RenderSlot } from '../browser/slot.js';
import type { PrintParams } from '../request/options.js';
import { printWithCrossReferences } from './cross-reference-passes.js';
import type { CrossReferenceUse } from './cross-references.js';

/** Prints once, or in passes when the document's stylesheets may use cross-references (cross-reference-passes.ts). */
export function printDocument(
  slot: RenderSlot,
  params: PrintParams,
  xref: CrossReferenceUse | undefined,
): Promise<{ pdf: Buffer; unresolved: string[] }> {
  if (!xref) return print(slot, params).then((pdf) => ({ pdf, unresolved: [] }));
  return printWithCrossReferences(slot, xref, () => print(slot, params));
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
      // `landscape` is already applied to width/height (never passed: Chromium would swap a custom size
      // again). A request that sets the size pins it with pageCss; one that does not lets the document's
      // `@page size` decide, page by page (named pages may differ).
      landscape: false,
      preferCSSPageSize: params.preferCssPageSize,
      displayHeaderFooter: false,
      // Tagged (accessible) PDF, as puppeteer prints by default.
      generateTaggedPDF: true,
      // Bookmarks from the document's headings, nested by level (needs the tagged structure above).
      generateDocumentOutline: true,
      transferMode: 'ReturnAsStream',
    });
    if (!stream) throw new Error('Page.printToPDF returned no stream');
    return await readStream(slot.session, stream);
  } catch (err) {
    if (/Printing failed|Page range|content area is empty/i.test(String((err as Error)?.message))) {
      throw new RenderError('RENDER_FAILED', 'Chromium could not print this document with these options', undefined, {
        cause: err,
      });
    }
    throw err;
  }
}
