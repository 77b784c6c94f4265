/**
 * What happens to a merged assembly before it is sent: stamps → metadata → split → protect → sign, one
 * list run in order over the same document model (the files made so far, what they claim, what the
 * report says). Before a split there is one file; after it, each step works on every file, so each file
 * of a split carries its own protection and signature. The byte work is the PdfSteps'; a step decides
 * what goes in and what the result claims and reports.
 */
import { invalid } from '../errors.js';
import { type SplitSpec, splitPlan } from '../pdf/index.js';
import type { FinishedFile, Finishing, FinishingContext } from './finishing-types.js';
import { stampAssembly } from './stamps.js';

/** One finishing step: the document as it is, to the document as the step leaves it. */
type FinishingStep = (doc: Finishing, ctx: FinishingContext) => Promise<Finishing>;

/** Each file through `fn`, in order (one at a time: the byte work is CPU, not waiting). */
async function eachFile(doc: Finishing, fn: (file: FinishedFile) => Promise<FinishedFile>): Promise<FinishedFile[]> {
  const out: FinishedFile[] = [];
  for (const file of doc.files) out.push(await fn(file));
  return out;
}

const stamps: FinishingStep = (doc, ctx) => stampAssembly(doc, ctx, ctx.renderStamp);

const metadata: FinishingStep = async (doc, { steps, request, pages }) => {
  const given = request.metadata;
  if (!given) return doc;
  return {
    ...doc,
    files: await eachFile(doc, async (f) => ({ ...f, pdf: await steps.metadata(f.pdf, given, doc.claims, pages) })),
  };
};

const split: FinishingStep = async (doc, ctx) => {
  const spec = ctx.request.split as SplitSpec | undefined;
  if (!spec) return doc;
  let plan: ReturnType<typeof splitPlan>;
  try {
    plan = splitPlan(spec, ctx.pages, ctx.parts);
  } catch (err) {
    throw invalid((err as Error).message, err);
  }
  const pieces = await ctx.steps.split(
    doc.files[0].pdf,
    plan.map((piece) => ({ label: `split ${piece.name}`, pages: piece.pages })),
    // Factur-X is claimed only when the first part is the invoice: its pages are the assembly's first
    // (a count not known takes every page for the invoice's).
    { claims: doc.claims, invoicePages: ctx.parts[0]?.pages || undefined },
  );
  // Each file claims what its own pages meet (its XMP says so); the answer claims what every file does.
  const withheld = pieces.flatMap((piece) => piece.withheld);
  return {
    ...doc,
    split: true,
    files: plan.map((piece, i) => ({ name: piece.name, pdf: pieces[i].pdf })),
    claims: doc.claims.filter((claim) => !withheld.some((w) => w.kind === 'conformance' && w.profile === claim)),
    warnings: [...doc.warnings, ...withheld],
  };
};

const protect: FinishingStep = async (doc, { steps, request }) => {
  const given = request.protect;
  if (!given) return doc;
  const kept = steps.protectionClaims(doc.claims);
  const files = await eachFile(doc, async (f) => {
    const { pdf, fileKey } = await steps.protect(f.pdf, {
      userPassword: given.user_password,
      ownerPassword: given.owner_password,
      allow: given.allow ?? [],
    });
    return { ...f, pdf, ...(fileKey ? { fileKey } : {}) };
  });
  return { ...doc, files, claims: kept.claims, warnings: [...doc.warnings, ...kept.warnings] };
};

const sign: FinishingStep = async (doc, { steps, request, signer }) => {
  const given = request.sign;
  if (!given || !signer) return doc;
  // A signature too long for a PDF/A string takes the claim with it (the sign step edits the XMP to match).
  const kept = steps.signatureClaims(doc.claims, signer);
  const files = await eachFile(doc, async (f) => ({
    ...f,
    pdf: await steps.sign(f.pdf, {
      signer,
      reason: given.reason,
      location: given.location,
      contact: given.contact,
      password: request.protect?.user_password ?? request.protect?.owner_password,
      ...(f.fileKey ? { fileKey: f.fileKey } : {}),
    }),
  }));
  return { ...doc, files, claims: kept.claims, warnings: [...doc.warnings, ...kept.warnings] };
};

/** The steps after the merge, in their fixed order. */
const STEPS: FinishingStep[] = [stamps, metadata, split, protect, sign];

/** Runs every finishing step in order over the merged document. */
export async function finishAssembly(doc: Finishing, ctx: FinishingContext): Promise<Finishing> {
  let current = doc;
  for (const step of STEPS) current = await step(current, ctx);
  return current;
}
