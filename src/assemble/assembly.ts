/**
 * One assembly, start to end: the parts had (parts.ts), each cut to its pages and turned, merged into one
 * PDF, then finished (finishing.ts: stamps, metadata, split, protect, sign — in that order, so a signature
 * covers the encrypted file and is the last thing written). The byte work is `src/pdf/`'s; this file
 * decides what goes in and what the result claims and reports.
 */
import fs from 'node:fs/promises';
import { RenderError } from '../errors.js';
import { zipFiles } from '../pdf/index.js';
import { infoTitle } from '../pdf/info-title.js';
import { shownUrl } from '../redact-url.js';
import type { RecordAssembly, RecordPart, RenderResult, ReportEntry } from '../render/index.js';
import { scratchDir } from '../scratch-dirs.js';
import { recordFinishing, recordPartFinishing } from './assembly-record.js';
import { contentWarnings } from './content-warnings.js';
import { finishAssembly } from './finishing.js';
import { type ObtainedPart, obtainParts, type PartRequestOptions, type PartSources, partPdf } from './parts.js';
import type { PdfSteps, Signer } from './pdf-steps.js';
import type { AssembleRequest } from './schema.js';

/** A finished assembly: what a render gives, and its parts as its record keeps them. */
export interface AssemblyResult extends RenderResult {
  assembly: RecordAssembly;
  /** The names of a split's files, in order: `pdf` is then their zip (application/zip). */
  files?: string[];
}

/** What an assembly is made with. */
export interface AssemblyDeps extends PartSources {
  steps: PdfSteps;
  /** The account's signing certificate, or a coded 4xx error (another account's, expired, deleted). */
  signerFor?: (accountId: string, certificateId: string) => Promise<Signer>;
}

/** Parts beyond this many are spilled to files as they come, not held in memory until the merge. */
export const SPILL_OVER_PARTS = 20;

/** A part's report entries, each naming the part in its own field and in its words. */
function labelled(part: ObtainedPart): ReportEntry[] {
  return part.warnings.map((w) => ({ ...w, part: part.label, message: `${part.label}: ${w.message}` }));
}

/** Assembles `request` for `accountId`: the PDF, its pages, report and claims, and its parts. */
export async function runAssembly(
  request: AssembleRequest,
  deps: AssemblyDeps,
  opts: Omit<PartRequestOptions, 'spillDir'>,
): Promise<AssemblyResult> {
  // The certificate is looked up first: a request that cannot be signed fails before any part is rendered.
  const signer = request.sign ? await requireSigner(deps, opts.accountId, request.sign.certificate) : undefined;
  const spillDir = request.parts.length > SPILL_OVER_PARTS ? await scratchDir('assembly') : undefined;
  try {
    const parts = await obtainParts(request.parts, deps, { ...opts, spillDir });
    // A part's pages and rotation come first: the merge sees each part as it is to appear. A rendered part's
    // claims are checked again on the pages it keeps; what they break is out of its XMP, so the merge does not
    // claim it, and the warning says why.
    const cut: ReportEntry[] = [];
    const load = async (part: ObtainedPart): Promise<Buffer> => {
      const pdf = await partPdf(part);
      if (!part.select) return pdf;
      const claims = part.kind === 'html' ? { claims: part.claims } : {};
      const kept = await deps.steps.keepPages(pdf, { label: part.label, ...part.select, ...claims });
      for (const issue of kept.withheld) cut.push({ kind: 'conformance', ...issue, part: part.label });
      if (kept.restrictions)
        cut.push(...contentWarnings([{ content: 'permissions', count: 1, places: kept.restrictions, label: part.label }]));
      return kept.pdf;
    };
    const merged = await deps.steps.assemble(parts, { load, signal: opts.signal });
    // The assembly's title: the one its body gives (a blank one gives none, as in the PDF), else what the
    // merged Info says before encryption hides it (the first part's, unless the merge wrote another there).
    const given = request.metadata?.title;
    const title = given?.trim() ? given : infoTitle(merged.pdf);
    const outlineTitles = parts.map((part, i) => merged.partTitles?.[i] ?? part.title ?? `Part ${i + 1}`);
    const finished = await finishAssembly(
      {
        files: [{ name: 'assembly.pdf', pdf: merged.pdf }],
        claims: merged.claims,
        warnings: [...parts.flatMap(labelled), ...cut, ...merged.warnings],
        split: false,
      },
      {
        steps: deps.steps,
        request,
        pages: merged.pages,
        parts: parts.map((part, i) => ({ title: outlineTitles[i], pages: merged.partPages?.[i] ?? part.pages ?? 0 })),
        ...(signer ? { signer } : {}),
        renderStamp: (html, widthIn, heightIn) =>
          deps.pool.render(
            opts.accountId,
            html,
            {
              widthIn,
              heightIn,
              margin: { top: 0, right: 0, bottom: 0, left: 0 },
              scale: 1,
              printBackground: true,
              // A stamp is one document whose pages take the sizes of the pages they go on (named pages).
              preferCssPageSize: true,
              pageCss: '',
            },
            { signal: opts.signal, priority: opts.priority ?? 'interactive' },
          ),
      },
    );
    const { claims, warnings } = finished;
    const pdf = finished.split ? zipFiles(finished.files.map((f) => ({ name: f.name, data: f.pdf }))) : finished.files[0].pdf;
    // One part whose pages could not be read before the merge has the pages the others leave.
    const unknown = parts.filter((p) => p.pages === null);
    const known = parts.reduce((n, p) => n + (p.pages ?? 0), 0);
    const pagesOf = (part: ObtainedPart): number | null =>
      part.pages ?? (unknown.length === 1 && merged.pages >= known ? merged.pages - known : null);
    const summaries = parts.map(
      (part, i): RecordPart => ({
        label: part.label,
        kind: part.kind,
        pages: merged.partPages?.[i] ?? pagesOf(part),
        // Its render's entries and what the assembly met in it (a cut claim, content taken out).
        warnings: warnings.filter((w) => w.part === part.label).length,
        ...(part.url === undefined ? {} : { url: recordedUrl(part.url) }),
        ...recordPartFinishing(outlineTitles[i], part.select),
      }),
    );
    const files = finished.split ? finished.files.map((f) => f.name) : undefined;
    return {
      pdf,
      pages: merged.pages,
      warnings,
      claims,
      ...(title === undefined ? {} : { title }),
      assembly: { partCount: parts.length, parts: summaries, ...recordFinishing(request, merged.pages, files) },
      ...(files ? { files } : {}),
    };
  } finally {
    if (spillDir) await fs.rm(spillDir, { recursive: true, force: true });
  }
}

/** A part's address as a record shows it: no user name or password, credential-like query values as `…`, 500 characters. */
function recordedUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return shownUrl(parsed.href, 500);
}

async function requireSigner(deps: AssemblyDeps, accountId: string, certificateId: string): Promise<Signer> {
  if (!deps.signerFor) throw new RenderError('SERVICE_UNAVAILABLE', 'signing is not available on this instance', 5);
  return deps.signerFor(accountId, certificateId);
}
