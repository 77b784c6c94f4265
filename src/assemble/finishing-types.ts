/**
 * The document model the finishing steps pass along (finishing.ts runs them; stamps.ts is one), apart so
 * the steps and their runner share it without importing each other.
 */
import type { Claim } from '../pdf/profiles/types.js';
import type { RenderResult, ReportEntry } from '../render/index.js';
import type { PdfSteps, Signer } from './pdf-steps.js';
import type { AssembleRequest } from './schema.js';

/**
 * Renders a stamp's document, its pages the sizes its CSS names (this size, in inches, where it names none);
 * the pool's render with the account's turn.
 */
export type StampRenderer = (html: string, widthIn: number, heightIn: number) => Promise<RenderResult>;

/** One file of the answer: its name in a zip, its bytes, and the key a protected file was encrypted with. */
export interface FinishedFile {
  name: string;
  pdf: Buffer;
  fileKey?: Buffer;
}

/** The document model the steps pass along. */
export interface Finishing {
  files: FinishedFile[];
  claims: Claim[];
  warnings: ReportEntry[];
  /** Whether the answer is a zip of `files` (a split), not one PDF. */
  split: boolean;
}

/** What the steps know of the assembly beside its bytes. */
export interface FinishingContext {
  steps: PdfSteps;
  request: AssembleRequest;
  /** Pages in the merged file, and each part's title and page count, in order. */
  pages: number;
  parts: ReadonlyArray<{ title: string; pages: number }>;
  signer?: Signer;
  /** Renders a stamp's document (the pool's render, the account's turn). */
  renderStamp?: StampRenderer;
}
