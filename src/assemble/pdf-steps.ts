/**
 * The PDF work an assembly runs, as `src/pdf/` does it: merging the parts, encrypting, signing. One seam,
 * so the assembly's order and bookkeeping (assembly.ts) read apart from the byte work.
 */
import type { KeyObject } from 'node:crypto';
import type { DocumentMetadata, KeptPages, PageBox, Rotation, SplitChecks, StampLayer } from '../pdf/index.js';
import type { Claim } from '../pdf/profiles/types.js';
import type { ReportEntry } from '../render/index.js';
import type { ObtainedPart } from './parts.js';
import type { Permission } from './schema.js';

/** A signing certificate with its key, as the account's certificate store hands it out. */
export interface Signer {
  /** DER certificates, the signer's first. */
  certificateChain: Buffer[];
  privateKey: KeyObject;
}

/** What the merge gives back. */
export interface MergedPdf {
  pdf: Buffer;
  pages: number;
  /** Profiles the assembly claims: only those every part meets and the merged file keeps. */
  claims: Claim[];
  /** Conformance entries of the merge, naming the part. */
  warnings: ReportEntry[];
  /** Each part's pages in the assembly, in order, when the merge counts them. */
  partPages?: number[];
  /** Each part's outline entry, in order, when the merge names them. */
  partTitles?: string[];
}

/** The PDF work of an assembly. */
export interface PdfSteps {
  /** Merges the parts in order (one outline, an entry per part); a part it cannot read is PART_FAILED naming it. */
  assemble(
    parts: readonly ObtainedPart[],
    opts: { load: (part: ObtainedPart) => Promise<Buffer>; signal?: AbortSignal },
  ): Promise<MergedPdf>;
  /**
   * The pages a selection keeps (`"1-3,5"`, or indexes from 0), each turned by `rotate`; what is taken out takes
   * its outline entries, links and structure elements along, and `claims` (a render's) are checked again on what
   * is left. A page past the end is INVALID_REQUEST naming `field`.
   */
  keepPages(
    pdf: Buffer,
    opts: { label: string; field?: string; pages?: string | readonly number[]; rotate?: Rotation; claims?: readonly Claim[] },
  ): Promise<KeptPages>;
  /** The assembly's own title, author, subject, keywords and language in its Info and XMP (which identifies `claims`). */
  metadata(pdf: Buffer, metadata: DocumentMetadata, claims: readonly Claim[], pages: number): Promise<Buffer>;
  /**
   * One document per piece (pages as indexes from 0), copied from one reading of the assembly, each piece's
   * pages checked again for the assembly's claims: a claim they break (headings that now start at an h2, an
   * invoice not whole) is cut out of that piece's XMP, and `withheld` has a `conformance` warning naming the piece.
   */
  split(
    pdf: Buffer,
    pieces: ReadonlyArray<{ label: string; pages: readonly number[] }>,
    checks: SplitChecks,
  ): Promise<Array<{ pdf: Buffer; withheld: ReportEntry[] }>>;
  /** Each page's media box, in order. */
  pageBoxes(pdf: Buffer): Promise<PageBox[]>;
  /**
   * The PDF with each rendered stamp laid over or under the pages it names, as artifacts; a claim of
   * `checks.claims` a stamp breaks (its glyphs; Factur-X, by painting over the invoice's first
   * `invoicePages` pages, every page when not known) is cut out of it, with a warning.
   */
  stamp(
    pdf: Buffer,
    stamps: readonly StampLayer[],
    checks: { claims: readonly Claim[]; invoicePages?: number },
  ): Promise<{ pdf: Buffer; withheld: ReportEntry[] }>;
  /** The claims a protected PDF keeps (PDF/A and Factur-X forbid encryption), and a warning for each it loses. */
  protectionClaims(claims: readonly Claim[]): { claims: Claim[]; warnings: ReportEntry[] };
  /** The claims a PDF signed by `signer` keeps (PDF/A only when the signature fits a PDF/A string), and a warning for each it loses. */
  signatureClaims(claims: readonly Claim[], signer: Signer): { claims: Claim[]; warnings: ReportEntry[] };
  /** AES-256 (revision 6); the file key comes back for the signature that may follow. */
  protect(
    pdf: Buffer,
    opts: { userPassword?: string; ownerPassword: string; allow: Permission[] },
  ): Promise<{ pdf: Buffer; fileKey?: Buffer }>;
  /** A PAdES signature in an incremental update; `fileKey` (from protect) or `password` opens a protected PDF. */
  sign(
    pdf: Buffer,
    opts: { signer: Signer; reason?: string; location?: string; contact?: string; password?: string; fileKey?: Buffer },
  ): Promise<Buffer>;
}
