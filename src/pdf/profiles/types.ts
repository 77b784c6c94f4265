/**
 * The contract of the PDF profile engine: what a render asks of a printed PDF (archival PDF/A, accessible
 * PDF/UA, associated files, XMP extension schemas) and what the engine answers (the bytes, what they claim,
 * and what the document could not meet). docs/standards.md explains the claim rule.
 */
import type { Claim, PdfProfile } from '../../report/claims.js';
import type { PdfProperties } from '../pdf-info.js';

// The profiles and claims themselves sit below pdf/ and render/, where a stored report reads them too.
export { type Claim, PDF_PROFILES, type PdfProfile } from '../../report/claims.js';

/** How an associated file relates to the PDF (PDF 2.0 / PDF/A-3 `AFRelationship`). */
export type AfRelationship = 'Source' | 'Data' | 'Alternative' | 'Supplement' | 'Unspecified';

/** A file embedded in the PDF as an associated file (catalog `/AF`, `/EmbeddedFiles` name tree). */
export interface EmbeddedFile {
  /** The file name readers show and `pdfdetach` saves as (`factur-x.xml`). */
  name: string;
  /** Embedded byte for byte. */
  bytes: Uint8Array;
  /** Media type, e.g. `text/xml` (the embedded file stream's `/Subtype`). */
  mimeType: string;
  relationship: AfRelationship;
  description?: string;
  /** The file's modification date; the render's date when absent. */
  modified?: Date;
}

/** One property of an XMP extension schema, with the value the PDF's XMP gives it. */
export interface XmpExtensionProperty {
  name: string;
  /** XMP value type, e.g. `Text`. */
  valueType: string;
  category: 'external' | 'internal';
  description: string;
  value: string;
}

/** An XMP extension schema (PDF/A 6.6.2.3): its description under `pdfaExtension:schemas` and its values. */
export interface XmpExtensionSchema {
  namespaceUri: string;
  prefix: string;
  /** The schema's human-readable description (`pdfaSchema:schema`). */
  schema: string;
  properties: XmpExtensionProperty[];
}

/** Something the document (or its PDF) cannot meet for a profile; the profile is then not claimed. */
export interface ConformanceIssue {
  profile: Claim;
  /** The clause of the standard, e.g. `7.18.5-2` (veraPDF's rule id) or `6.6.2.1`. */
  clause: string;
  /** The element or PDF object concerned, e.g. `<img src="logo.png">` or `page 3`. */
  element: string;
  /** Plain words a customer can act on. */
  message: string;
}

/**
 * A claim that builds on profiles (Factur-X on PDF/A-3b): claimed, and its extension schemas written,
 * only when every profile in `requires` is claimed; otherwise an issue says so.
 */
export interface ExtraClaim {
  claim: 'Factur-X';
  requires: PdfProfile[];
  extensions: XmpExtensionSchema[];
}

/**
 * What a render asks of its printed PDF; the document properties (title, lang, …, date) are written
 * alike into the Info dictionary and the XMP.
 */
export interface ProfileRequest extends PdfProperties {
  /** The declared profiles; empty means no profile is claimed (files and extensions are still written). */
  profiles: PdfProfile[];
  files: EmbeddedFile[];
  /** Extension schemas written whatever is claimed (described under `pdfaExtension:schemas` for PDF/A). */
  extensions: XmpExtensionSchema[];
  extraClaims?: ExtraClaim[];
  /**
   * What the document side already found (an image without alternative text, no `lang`): every profile
   * named here is left unclaimed, and these issues come back with the engine's own.
   */
  issues?: ConformanceIssue[];
  /**
   * Epoch ms by which the engine's reading of the pages must be done: past it (or past its memory budget)
   * every declared profile is left unclaimed with a warning, and the PDF is made without them.
   */
  deadline?: number;
}

/** What the engine made: the new bytes, what they claim, and why any declared claim was left out. */
export interface ProfileResult {
  bytes: Uint8Array;
  claims: Claim[];
  issues: ConformanceIssue[];
}

/** The engine's entry point (implemented in ./apply-profiles.ts). */
export type ApplyProfiles = (pdf: Uint8Array, req: ProfileRequest) => Promise<ProfileResult>;
