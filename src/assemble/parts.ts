/**
 * Getting an assembly's parts: HTML rendered through the render service's pool (its fair queue gives the
 * turns, as for any render of the account), PDFs decoded, addresses fetched through the egress policy —
 * a few at a time, in order of the parts, the first failure stopping the rest. A large assembly (a job)
 * spills each part to a file as it comes, so memory holds the parts being made, not every part made.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Dispatcher } from 'undici';
import { quoted } from '../cut-text.js';
import { invalid, RenderError } from '../errors.js';
import type { EgressPolicy } from '../net/policy.js';
import { PdfWorkLimitError, pdfEngine } from '../pdf/engine.js';
import type { Rotation } from '../pdf/index.js';
import type { Claim } from '../pdf/profiles/types.js';
import { shownUrl } from '../redact-url.js';
import { type BrowserPool, type ReportEntry, toPrintParams } from '../render/index.js';
import { fetchPdfPart } from './fetch-part.js';
import type { Uploads } from './multipart-upload.js';
import { type AssemblePart, type PartKind, partKind, partLabel } from './schema.js';

/** What the parts are made with. */
export interface PartSources {
  pool: Pick<BrowserPool, 'render'>;
  policy: EgressPolicy;
  agent: Dispatcher;
  /** Wall time of a URL part's fetch. */
  fetchTimeoutMs: number;
  /** ASSEMBLE_MAX_BYTES: most bytes the parts of one assembly may come to (default DEFAULT_ASSEMBLE_MAX_BYTES). */
  maxBytes?: number;
}

/** ASSEMBLE_MAX_BYTES's default (src/config.ts says the same): 256 MiB of parts. */
export const DEFAULT_ASSEMBLE_MAX_BYTES = 256 * 1024 * 1024;

/**
 * The bytes an assembly's parts come to, counted as each part arrives (a URL part chunk by chunk), so an
 * assembly over the limit stops while it is still small. Every part counts, the same address named twice
 * twice: the merge copies each part's pages, so that is what the work and the answer grow with.
 */
export class ByteBudget {
  private total = 0;

  constructor(readonly maxBytes: number) {}

  /** Counts `bytes` for `label`; throws PAYLOAD_TOO_LARGE naming the part and the limit once the total passes it. */
  take(label: string, bytes: number): void {
    this.total += bytes;
    if (this.total > this.maxBytes)
      throw new RenderError(
        'PAYLOAD_TOO_LARGE',
        `${label}: the assembly's parts come to more than ${this.maxBytes} bytes (ASSEMBLE_MAX_BYTES); every part counts, an address named twice twice`,
      );
  }
}

/** How one assembly asks for its parts. */
export interface PartRequestOptions {
  accountId: string;
  /** Aborting it stops every part still being made (its render's page closed, its fetch dropped). */
  signal?: AbortSignal;
  /**
   * Parts made at once: a sync assembly takes the pool's concurrency (the fair queue still gives other
   * accounts their turns), a job the worker's job slots, so jobs never hold the slots kept for sync renders.
   */
  width: number;
  /** Jobs render in the background (interactive renders go first). */
  priority?: 'interactive' | 'background';
  /** Where each part's PDF is written as soon as it is had (a directory of the caller's); unset: kept in memory. */
  spillDir?: string;
  /** Awaited before each part is made (a job's parts count against the account's limit as they start). */
  beforePart?: (index: number, signal: AbortSignal) => Promise<void>;
  /** The files of a multipart request, which `{"file"}` parts name. */
  uploads?: Uploads;
}

/** One part once had: where its PDF is, and what its render said. */
export interface ObtainedPart {
  index: number;
  label: string;
  kind: PartKind;
  /** The address of a URL part (as given). */
  url?: string;
  /** Pages, when known before assembling (a rendered part). */
  pages: number | null;
  bytes: number;
  /** The render report of an HTML part (empty for the others). */
  warnings: ReportEntry[];
  /** What an HTML part's PDF claims. */
  claims: Claim[];
  /** The part's outline entry, when the request names it. */
  title?: string;
  /** The part's pages kept (a selection's text) and their rotation, when the request asks. */
  select?: { pages?: string; rotate?: Rotation };
  /** The PDF in memory, or the file it was spilled to. */
  pdf?: Buffer;
  file?: string;
}

/** The PDF bytes of a part, from memory or its spill file. */
export async function partPdf(part: ObtainedPart): Promise<Buffer> {
  if (part.pdf) return part.pdf;
  if (part.file) return fs.readFile(part.file);
  throw new RenderError('INTERNAL_ERROR', `${part.label}: its PDF was not kept`);
}

/** The error of a part's render, named by the part (`parts[2]: …`), with the render's own code. */
function named(err: unknown, label: string): unknown {
  if (!(err instanceof RenderError) || err.message.startsWith(`${label}`)) return err;
  return new RenderError(err.code, `${label}: ${err.message}`, err.retryAfterS, { cause: err.cause });
}

/** A customer's PDF's page count, read in a PDF worker; past its limits the part fails naming the limit. */
async function countPages(pdf: Buffer, label: string): Promise<number> {
  try {
    return await pdfEngine().run('count-pages', { pdf }, { label });
  } catch (err) {
    if (err instanceof PdfWorkLimitError) throw new RenderError('PART_FAILED', err.message, undefined, { cause: err });
    throw err;
  }
}

async function obtainOne(
  part: AssemblePart,
  index: number,
  sources: PartSources,
  opts: PartRequestOptions,
  signal: AbortSignal,
  budget: ByteBudget,
): Promise<ObtainedPart> {
  const label = partLabel(index);
  const kind = partKind(part);
  let pdf: Buffer;
  let result: Omit<ObtainedPart, 'pdf' | 'file' | 'bytes'> = {
    index,
    label,
    kind,
    pages: null,
    warnings: [],
    claims: [],
    ...(part.title === undefined ? {} : { title: part.title }),
    ...(part.pages === undefined && !part.rotate ? {} : { select: { pages: part.pages, rotate: part.rotate } }),
  };
  if ('html' in part) {
    const rendered = await sources.pool.render(opts.accountId, part.html, toPrintParams(part.options), {
      signal,
      priority: opts.priority ?? 'interactive',
    });
    pdf = rendered.pdf;
    budget.take(label, pdf.length);
    result = { ...result, pages: rendered.pages, warnings: rendered.warnings, claims: rendered.claims };
  } else if ('pdf' in part) {
    pdf = Buffer.from(part.pdf, 'base64');
    budget.take(label, pdf.length);
  } else if ('file' in part) {
    const upload = opts.uploads?.files.get(part.file);
    if (!upload) throw invalid(`${label}.file: ${quoted(part.file)} is not among the uploaded files`);
    pdf = await fs.readFile(upload.path);
    budget.take(label, pdf.length);
  } else {
    pdf = await fetchPdfPart(part.url, label, {
      policy: sources.policy,
      agent: sources.agent,
      timeoutMs: sources.fetchTimeoutMs,
      signal,
      onBytes: (bytes) => budget.take(label, bytes),
    });
    if (!pdf.subarray(0, 1024).toString('latin1').includes('%PDF-'))
      throw new RenderError('PART_FAILED', `${label}: what ${shownUrl(part.url, 200)} answered is not a PDF`);
    result = { ...result, url: part.url };
  }
  // A PDF whose page tree is written plainly says its count (a compressed one does not: null, filled in later).
  if (result.pages === null) result = { ...result, pages: (await countPages(pdf, label)) || null };
  if (!opts.spillDir) return { ...result, bytes: pdf.length, pdf };
  const file = path.join(opts.spillDir, `part-${index}.pdf`);
  await fs.writeFile(file, pdf);
  return { ...result, bytes: pdf.length, file };
}

/**
 * Every part, in order, made `pool.concurrency` at a time (a render of each turn the account's fair
 * share gives). The first part that cannot be had fails the whole with its error naming the part, and
 * the parts still being made are stopped.
 */
export async function obtainParts(
  parts: readonly AssemblePart[],
  sources: PartSources,
  opts: PartRequestOptions,
): Promise<ObtainedPart[]> {
  const stop = new AbortController();
  const fromCaller = () => stop.abort(opts.signal?.reason);
  if (opts.signal?.aborted) fromCaller();
  opts.signal?.addEventListener('abort', fromCaller, { once: true });
  const obtained: ObtainedPart[] = new Array(parts.length);
  const budget = new ByteBudget(sources.maxBytes ?? DEFAULT_ASSEMBLE_MAX_BYTES);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && !stop.signal.aborted && next < parts.length) {
      const index = next++;
      try {
        await opts.beforePart?.(index, stop.signal);
        obtained[index] = await obtainOne(parts[index], index, sources, opts, stop.signal, budget);
      } catch (err) {
        // Only the first failure is the answer: the parts it stops fail with the abort's reason.
        if (failure === undefined)
          failure = { error: stop.signal.aborted && opts.signal?.aborted ? err : named(err, partLabel(index)) };
        stop.abort(new RenderError('INTERNAL_ERROR', 'another part failed'));
      }
    }
  };
  const width = Math.max(1, Math.min(parts.length, opts.width));
  try {
    await Promise.all(Array.from({ length: width }, worker));
  } finally {
    opts.signal?.removeEventListener('abort', fromCaller);
  }
  if (opts.signal?.aborted) throw opts.signal.reason;
  if (failure !== undefined) throw failure.error;
  return obtained;
}
