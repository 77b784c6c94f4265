/**
 * The PDF work of an assembly as `src/pdf/` does it: the merge (assemblePdfs), AES-256 (protectPdf) and the
 * PAdES signature (signPdf, with an RFC 3161 timestamp when SIGN_TSA_URL names an authority).
 */
import { RenderError } from '../errors.js';
import {
  AssembleInputError,
  assemblePdfs,
  keepPages,
  overlayStamps,
  PageSelectionError,
  PdfPasswordError,
  pageBoxes,
  protectionClaims,
  protectPdfWithKey,
  SignInputError,
  signPdf,
  splitPages,
  type Timestamper,
  withDocumentMetadata,
} from '../pdf/index.js';
import type { ReportEntry } from '../render/index.js';
import type { PdfSteps } from './pdf-steps.js';

/** The assembly's PDF steps; `timestamp` adds a timestamp to each signature (PAdES B-T). */
export function pdfSteps(opts: { timestamp?: Timestamper } = {}): PdfSteps {
  return {
    async assemble(parts, { load }) {
      const inputs = [];
      // An HTML part's render says what it meets; an existing PDF's own claim is not proof, so it brings none.
      for (const part of parts)
        inputs.push({
          pdf: await load(part),
          label: part.label,
          ...(part.title === undefined ? {} : { title: part.title }),
          ...(part.kind === 'html' ? { claims: part.claims } : {}),
        });
      try {
        const merged = await assemblePdfs(inputs);
        const warnings: ReportEntry[] = merged.issues.map((issue) => ({ kind: 'conformance', ...issue }));
        return {
          pdf: Buffer.from(merged.pdf),
          pages: merged.pages,
          claims: merged.claims,
          warnings,
          partPages: merged.partPages,
          partTitles: merged.partTitles,
        };
      } catch (err) {
        if (err instanceof AssembleInputError) throw new RenderError('PART_FAILED', err.message, undefined, { cause: err });
        throw err;
      }
    },
    async keepPages(pdf, keep) {
      try {
        return await keepPages(pdf, keep);
      } catch (err) {
        if (err instanceof PageSelectionError) throw new RenderError('INVALID_REQUEST', err.message, undefined, { cause: err });
        if (err instanceof AssembleInputError) throw new RenderError('PART_FAILED', err.message, undefined, { cause: err });
        throw err;
      }
    },
    async pageBoxes(pdf) {
      return pageBoxes(pdf);
    },
    async stamp(pdf, stamps) {
      return overlayStamps(pdf, stamps);
    },
    async split(pdf, pieces) {
      return (await splitPages(pdf, pieces)).map((piece) => piece.pdf);
    },
    async metadata(pdf, metadata, claims) {
      return withDocumentMetadata(pdf, metadata, claims);
    },
    protectionClaims(claims) {
      const kept = protectionClaims(claims);
      return { claims: kept.claims, warnings: kept.issues.map((issue) => ({ kind: 'conformance', ...issue })) };
    },
    async protect(pdf, protect) {
      return protectPdfWithKey(pdf, protect);
    },
    async sign(pdf, sign) {
      try {
        return Buffer.from(await signPdf(pdf, { ...sign, ...(opts.timestamp ? { timestamp: opts.timestamp } : {}) }));
      } catch (err) {
        if (err instanceof SignInputError || err instanceof PdfPasswordError)
          throw new RenderError('INTERNAL_ERROR', 'the assembled PDF could not be signed', undefined, { cause: err });
        throw err;
      }
    },
  };
}

/** The steps without a timestamp authority (the CLI, benches). */
export const PDF_STEPS: PdfSteps = pdfSteps();
