/**
 * One part of an assembly opened for copying. A PDF as Chromium writes it (classic cross-reference tables,
 * incremental updates chained by /Prev) is read in place; any other ordinary layout (object streams,
 * cross-reference streams, hybrid files) is first rewritten by qpdf into that form, streams untouched.
 * An encrypted PDF that opens without a password (an owner password only, as statements and vendors'
 * invoices often come) is decrypted by qpdf when its permissions allow assembling it; what else its owner
 * forbade (printing, copying) is not kept by an assembly written without encryption, and is told
 * (`liftedRestrictions`). What is refused, each with the part's label: not a PDF, a PDF that needs a
 * password to open or whose owner forbids assembling it, and a damaged one, that is a PDF whose
 * cross-reference data does not find its objects: qpdf can often rebuild such a table by scanning the file,
 * but a rebuilt table is a guess (a stale object may win over the current one), so the part is refused and
 * the caller told how to repair it deliberately.
 */
import { PdfFile } from '../profiles/pdf-file.js';
import { UnreadablePdf } from '../profiles/unreadable-pdf.js';
import { inspectQpdf, runQpdf } from '../qpdf.js';

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
  return read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), label, false);
}

/** What an opened part's owner forbade that the assembly no longer does, in words (`no printing`); none for most. */
export function liftedRestrictions(file: PdfFile): readonly string[] {
  return lifted.get(file) ?? [];
}

const lifted = new WeakMap<PdfFile, string[]>();

async function read(buffer: Buffer, label: string, decrypted: boolean): Promise<PdfFile> {
  if (buffer.subarray(0, 1024).indexOf('%PDF-') < 0)
    throw new AssembleInputError(label, 'not_pdf', 'not a PDF (it does not start with %PDF-)');
  // qpdf's decrypted copy has no /Encrypt; one that still had it would be read as encrypted again, endlessly.
  const encrypted = () =>
    decrypted ? Promise.reject(damaged(label, 'it is still encrypted once decrypted')) : openEncrypted(buffer, label);
  try {
    const file = new PdfFile(buffer);
    if (!file.hybrid) return checked(file, label);
  } catch (error) {
    if (error instanceof AssembleInputError) throw error;
    if (!(error instanceof UnreadablePdf)) throw error;
    if (error.message === 'encrypted') return encrypted();
  }
  // Not a classic file: qpdf reads object and cross-reference streams; --object-streams=disable writes
  // every object at top level with a classic table, and --stream-data=preserve keeps streams byte for byte.
  const run = await runQpdf(buffer, ['--object-streams=disable', '--stream-data=preserve']);
  if (/invalid password|encrypted/i.test(run.stderr)) return encrypted();
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
    if (error instanceof UnreadablePdf && error.message === 'encrypted') return encrypted();
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

/** What qpdf's `--json-key=encrypt` says of a file's permissions (true: allowed). */
type Capability = 'printhigh' | 'printlow' | 'extract' | 'modifyother' | 'modifyannotations' | 'modifyforms' | 'modifyassembly';

/** The permissions an assembly without encryption stops enforcing, in a reader's words. */
const RESTRICTIONS: ReadonlyArray<[Capability, string]> = [
  ['printlow', 'no printing'],
  ['printhigh', 'no printing at full quality'],
  ['extract', 'no copying of text and images'],
  ['modifyother', 'no changes'],
  ['modifyannotations', 'no comments'],
  ['modifyforms', 'no form filling'],
];

/**
 * A part encrypted with an owner password only, decrypted by qpdf (its permissions read first, as qpdf
 * reports them for the empty user password); refused when it needs a password to open or its permissions
 * forbid assembling it (ISO 32000-1 Table 22, bit 11: inserting, rotating and deleting its pages).
 */
async function openEncrypted(buffer: Buffer, label: string): Promise<PdfFile> {
  const shown = await inspectQpdf(buffer, ['--json=2', '--json-key=encrypt']);
  let encrypt: { userpasswordmatched?: unknown; capabilities?: Partial<Record<Capability, unknown>> } | undefined;
  try {
    encrypt = (JSON.parse(shown.stdout) as { encrypt?: typeof encrypt }).encrypt;
  } catch {
    // No JSON: qpdf could not open the file with the empty password, or could not read it at all.
  }
  if (/invalid password/i.test(shown.stderr) || (encrypt && encrypt.userpasswordmatched !== true))
    throw new AssembleInputError(
      label,
      'encrypted',
      'the PDF needs a password to open; send it unprotected (protect the assembly instead)',
    );
  const allowed = encrypt?.capabilities;
  if (!allowed) throw damaged(label, `its encryption cannot be read (${firstLine(shown.stderr)})`);
  if (allowed.modifyassembly !== true)
    throw new AssembleInputError(
      label,
      'encrypted',
      'the PDF’s permissions, set by its owner, forbid assembling it into another document; ask for a copy without that restriction',
    );
  const run = await runQpdf(buffer, ['--decrypt', '--object-streams=disable', '--stream-data=preserve']);
  if (run.status !== 0 || !run.output) throw damaged(label, `it cannot be decrypted (${firstLine(run.stderr)})`);
  const file = await read(run.output, label, true);
  const forbidden = new Set(
    RESTRICTIONS.filter(([capability]) => allowed[capability] !== true).map(([capability]) => capability),
  );
  // "No printing" says it all when neither kind of printing was allowed.
  if (forbidden.has('printlow')) forbidden.delete('printhigh');
  const restrictions = RESTRICTIONS.filter(([capability]) => forbidden.has(capability)).map(([, words]) => words);
  if (restrictions.length > 0) lifted.set(file, restrictions);
  return file;
}

function firstLine(text: string): string {
  return (text.split('\n').find((l) => l.trim()) ?? 'qpdf failed').replace(/^.*?in\.pdf[^:]*:\s*/, '').slice(0, 200);
}
