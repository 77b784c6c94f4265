/**
 * PDF byte work on a printed document, without a browser: its properties (Info dictionary), the
 * pages its named destinations land on, its page count. The rest of `src/` imports this index.
 */
export { type DestinationPages, readDestinationPages } from './pdf-destinations.js';
export { type PdfProperties, pdfDate, pdfTextString, withPdfProperties } from './pdf-info.js';
export { countPdfPages } from './pdf-pages.js';
