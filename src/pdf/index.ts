/**
 * PDF byte work on a printed document, without a browser: its properties (Info dictionary), the
 * pages its named destinations land on, its page count, its signature; several PDFs assembled into one;
 * a PDF protected with a password. The rest of `src/` imports this index.
 */

export type { ActiveContentFinding } from './assemble/active-content.js';
export { type AssemblePart, type AssembleResult, assemblePdfs } from './assemble/assemble-pdfs.js';
export { type DocumentMetadata, withDocumentMetadata } from './assemble/document-metadata.js';
export {
  type KeepPagesOptions,
  type KeptPages,
  keepPages,
  type Rotation,
  type SplitChecks,
  splitPages,
} from './assemble/keep-pages.js';
export { type PageBox, pageBoxes } from './assemble/page-boxes.js';
export { MAX_SELECTION_LENGTH, PageSelectionError, pageIndexes, parsePageSelection } from './assemble/page-ranges.js';
export { AssembleInputError, type PartProblem } from './assemble/read-part.js';
export { MAX_SPLIT_FILES, type SplitPiece, type SplitSpec, splitPlan } from './assemble/split-plan.js';
export { overlayStamps, type StampLayer } from './assemble/stamp-overlay.js';
export { type DestinationPages, readDestinationPages } from './pdf-destinations.js';
export { type PdfProperties, pdfDate, pdfTextString, withPdfProperties } from './pdf-info.js';
export { countPdfPages } from './pdf-pages.js';
export { isLanguageTag } from './profiles/language-tag.js';
export { legalText } from './profiles/legal-text.js';
export {
  PERMISSIONS,
  type Permission,
  type ProtectOptions,
  protectionClaims,
  protectPdf,
  protectPdfWithKey,
} from './protect/protect-pdf.js';
export { QpdfMissing, qpdfAvailable } from './qpdf.js';
export type { Signer, Timestamper } from './sign/cms.js';
export { PdfPasswordError } from './sign/pdf-crypt.js';
export { SignInputError } from './sign/pdf-reader.js';
export { type SignOptions, signPdf } from './sign/sign-pdf.js';
export { PDFA_MAX_STRING_BYTES, signatureClaims } from './sign/signature-room.js';
export { rfc3161Timestamper, TimestampError } from './sign/timestamp.js';
export { safeFileName, type ZipEntry, zipFiles } from './zip-files.js';
