/**
 * The operations a PDF worker runs, by name: each a function of plain arguments (bytes as Uint8Arrays) to
 * a plain result. Only the worker imports this file; the service sees its types. A new operation is one
 * more entry here, a pure function of `src/pdf/` wrapped so its arguments cross as plain values.
 */
import crypto from 'node:crypto';
import { parsePkcs12 } from '../../accounts/pkcs12.js';
import { type AssemblePart, assemblePdfs } from '../assemble/assemble-pdfs.js';
import { type DocumentMetadata, withDocumentMetadata } from '../assemble/document-metadata.js';
import { type KeepPagesOptions, keepPages, type SplitChecks, splitPages } from '../assemble/keep-pages.js';
import { pageBoxes } from '../assemble/page-boxes.js';
import { overlayStamps, type StampLayer } from '../assemble/stamp-overlay.js';
import { examineInvoice } from '../factur-x/check-invoice.js';
import type { FacturXLevel } from '../factur-x/levels.js';
import { countPdfPages } from '../pdf-pages.js';
import type { Claim } from '../profiles/types.js';
import { type ProtectOptions, protectPdfWithKey } from '../protect/protect-pdf.js';
import { type SignOptions, signPdf } from '../sign/sign-pdf.js';

/** What an operation may do besides computing: say which part it reads, ask the service for something. */
export interface OpContext {
  /** The part being read now (a deadline names it), or null once the parts are read. */
  progress(label: string | null): void;
  /** Asks the service to run its handler `name` (the operation's deadline waits meanwhile). */
  call(name: string, arg: unknown): Promise<unknown>;
}

const buffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Every operation a worker runs. */
export const OPS = {
  /** Merges the parts into one PDF (assemble-pdfs.ts). */
  assemble: (args: { parts: AssemblePart[] }, ctx: OpContext) =>
    assemblePdfs(args.parts, { reading: (label) => ctx.progress(label) }),

  /** AES-256 encryption, with the file key for a signature that follows. */
  protect: (args: { pdf: Uint8Array; opts: ProtectOptions }) => protectPdfWithKey(args.pdf, args.opts),

  /**
   * A PAdES signature; the key crosses as PKCS#8 DER (a KeyObject does not cross a process boundary). With
   * `timestamp`, the service's timestamp authority is asked through `call`.
   */
  sign: (
    args: {
      pdf: Uint8Array;
      signer: { certificateChain: Uint8Array[]; privateKeyDer: Uint8Array };
      opts: Omit<SignOptions, 'timestamp' | 'signer'>;
      timestamp: boolean;
    },
    ctx: OpContext,
  ) => {
    const signer = {
      certificateChain: args.signer.certificateChain.map(buffer),
      privateKey: crypto.createPrivateKey({ key: buffer(args.signer.privateKeyDer), format: 'der', type: 'pkcs8' }),
    };
    return signPdf(args.pdf, {
      ...args.opts,
      signer,
      ...(args.opts.fileKey ? { fileKey: buffer(args.opts.fileKey) } : {}),
      ...(args.timestamp
        ? { timestamp: async (signature: Buffer) => buffer((await ctx.call('timestamp', signature)) as Uint8Array) }
        : {}),
    });
  },

  /** A PKCS#12 upload read with its password (its refusals cross as Pkcs12Error). */
  'read-pkcs12': (args: { data: Uint8Array; password: string }) => parsePkcs12(buffer(args.data), args.password),

  /** A Factur-X XML checked against its level: XSD, EN 16931 rules, and the values the PDF must show. */
  'examine-invoice': (args: { xml: Uint8Array; level: FacturXLevel }) => examineInvoice(args.xml, args.level),

  /** A part's pages kept and turned (keep-pages.ts); a selection past its pages crosses as PageSelectionError. */
  'keep-pages': (args: { pdf: Uint8Array; opts: KeepPagesOptions }) => keepPages(args.pdf, args.opts),

  /** The assembly cut into files of the given pages (keep-pages.ts), one file per piece, each checked for what it claims. */
  'split-pages': (args: {
    pdf: Uint8Array;
    pieces: ReadonlyArray<{ label: string; pages: readonly number[] }>;
    checks?: SplitChecks;
  }) => splitPages(args.pdf, args.pieces, args.checks),

  /** Each page's box, to render the stamps at their pages' sizes (stamp-overlay.ts). */
  'page-boxes': (args: { pdf: Uint8Array }) => pageBoxes(args.pdf),

  /**
   * The rendered stamps laid over or under the pages as artifacts (stamp-overlay.ts). When a stamp takes a
   * claim away, the file is written again from its last revision alone: the revision before the update
   * would still hold the XMP that claims it, for anyone reading the file's bytes.
   */
  'overlay-stamps': async (args: {
    pdf: Uint8Array;
    stamps: readonly StampLayer[];
    checks: { claims: readonly Claim[]; invoicePages?: number };
  }) => {
    const done = overlayStamps(args.pdf, args.stamps, args.checks);
    if (done.issues.length === 0) return done;
    return { pdf: (await keepPages(done.pdf, { label: 'the assembly' })).pdf, issues: done.issues };
  },

  /**
   * The assembly's own title, author, subject, keywords and language (document-metadata.ts). The update
   * leaves the first part's own properties in the revision before it, where anyone reading the file's bytes
   * still finds the author the caller replaced: the file is written again from its last revision alone.
   */
  'document-metadata': async (args: { pdf: Uint8Array; metadata: DocumentMetadata; claims: readonly Claim[] }) =>
    (await keepPages(withDocumentMetadata(args.pdf, args.metadata, args.claims), { label: 'the assembly' })).pdf,

  /** A PDF's page count as its page tree states it (0 when it does not say). */
  'count-pages': (args: { pdf: Uint8Array }) => countPdfPages(buffer(args.pdf)),
} satisfies Record<string, (args: never, ctx: OpContext) => unknown>;

/** The operations' names. */
export type OpName = keyof typeof OPS;
/** An operation's arguments. */
export type OpArgs<K extends OpName> = Parameters<(typeof OPS)[K]>[0];
/** An operation's result, as the service receives it. */
export type OpResult<K extends OpName> = Awaited<ReturnType<(typeof OPS)[K]>>;
