/**
 * One part of an assembly opened for copying. A PDF as Chromium writes it (classic cross-reference tables,
 * incremental updates chained by /Prev) is read in place; any other ordinary layout (object streams,
 * cross-reference streams, hybrid files) is first rewritten by qpdf into that form, streams untouched.
 * What is refused, each with the part's label: not a PDF, an encrypted PDF, and a damaged one, that is a
 * PDF whose cross-reference data does not find its objects: qpdf can often rebuild such a table by scanning
 * the file, but a rebuilt table is a guess (a stale object may win over the current one), so the part is
 * refused and the caller told how to repair it deliberately.
 */
import { PdfFile } from '../profiles/pdf-file.js';
import { UnreadablePdf } from '../profiles/unreadable-pdf.js';
import { runQpdf } from '../qpdf.js';

/** Why a part cannot be assembled. */
export type PartProblem = 'not_pdf' | 'encrypted' | 'damaged';

/** A part that cannot be assembled; the message starts with the part's label (`parts[2]: …`). */
export class AssembleInputError extends Error {
  constructor(
    readonly label: string,
    readonly problem: PartProblem,
    readonly detail: string,
  ) {
    super(`${label}: ${detail}`);
  }
}

const DAMAGED_ADVICE = 'repair it first (for example `qpdf damaged.pdf repaired.pdf`) and check the result';

/** Opens a part's bytes as a classic-table PDF, normalising other layouts through qpdf. */
export async function readPart(bytes: Uint8Array, label: string): Promise<PdfFile> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.subarray(0, 1024).indexOf('%PDF-') < 0)
    throw new AssembleInputError(label, 'not_pdf', 'not a PDF (it does not start with %PDF-)');
  try {
    const file = new PdfFile(buffer);
    if (!file.hybrid) return checked(file, label);
  } catch (error) {
    if (error instanceof AssembleInputError) throw error;
    if (!(error instanceof UnreadablePdf)) throw error;
    if (error.message === 'encrypted') throw encrypted(label);
  }
  // Not a classic file: qpdf reads object and cross-reference streams; --object-streams=disable writes
  // every object at top level with a classic table, and --stream-data=preserve keeps streams byte for byte.
  const run = await runQpdf(buffer, ['--object-streams=disable', '--stream-data=preserve']);
  if (/invalid password|encrypted/i.test(run.stderr)) throw encrypted(label);
  if (run.status === 3 || /damaged|reconstruct/i.test(run.stderr))
    throw new AssembleInputError(
      label,
      'damaged',
      `the PDF is damaged (its cross-reference table does not find its objects); ${DAMAGED_ADVICE}`,
    );
  if (run.status !== 0 || !run.output)
    throw new AssembleInputError(label, 'damaged', `the PDF cannot be read (${firstLine(run.stderr)}); ${DAMAGED_ADVICE}`);
  try {
    return checked(new PdfFile(run.output), label);
  } catch (error) {
    if (error instanceof AssembleInputError) throw error;
    if (error instanceof UnreadablePdf && error.message === 'encrypted') throw encrypted(label);
    throw new AssembleInputError(label, 'damaged', `the PDF cannot be read (${(error as Error).message}); ${DAMAGED_ADVICE}`);
  }
}

/** The file when its catalog and page tree can be read and it has a page; else the part is damaged. */
function checked(file: PdfFile, label: string): PdfFile {
  let pages: number[];
  try {
    pages = file.pages();
  } catch (error) {
    throw damaged(label, (error as Error).message);
  }
  if (pages.length === 0) throw damaged(label, 'it has no pages');
  return file;
}

/** A damaged part, with what is wrong and how to repair it. */
export function damaged(label: string, what: string): AssembleInputError {
  return new AssembleInputError(label, 'damaged', `the PDF is damaged (${what}); ${DAMAGED_ADVICE}`);
}

function encrypted(label: string): AssembleInputError {
  return new AssembleInputError(label, 'encrypted', 'the PDF is encrypted; send it unprotected (protect the assembly instead)');
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim()) ?? 'qpdf failed').replace(/^.*?in\.pdf[^:]*:\s*/, '').slice(0, 200);
}
