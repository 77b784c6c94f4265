/**
 * The PDF work of an assembly as `src/pdf/` does it, in its workers (pdf/engine.ts): the merge, AES-256 and
 * the PAdES signature (with an RFC 3161 timestamp when SIGN_TSA_URL names an authority: the worker asks the
 * service for it, since only the service reaches out through the egress policy). A part that overruns the
 * work's limits fails the request as a part it cannot read does: 422 PART_FAILED naming it and the limit.
 */
import { invalid, RenderError } from '../errors.js';
import { PdfWorkError, PdfWorkLimitError, pdfEngine } from '../pdf/engine.js';
import { protectionClaims, signatureClaims, type Timestamper } from '../pdf/index.js';
import type { ReportEntry } from '../render/index.js';
import { contentWarnings } from './content-warnings.js';
import type { PdfSteps } from './pdf-steps.js';

/** The bytes as a Buffer, without a copy (what comes back from a worker is a Buffer already). */
const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Retry-After when the timestamp authority gave no timestamp. */
const TIMESTAMP_RETRY_AFTER_S = 30;

/**
 * Pages whose rewrite shares one PDF_WORK_TIMEOUT_MS (a split, the metadata's rewrite): 10,000 small pages
 * took 0.7 s on a loaded 2-core machine, the merge of the same 0.9 s.
 */
const PAGES_PER_DEADLINE = 10_000;

/** Parts whose merge shares one PDF_WORK_TIMEOUT_MS (a 5,000-part job gets 50 of them). */
const PARTS_PER_DEADLINE = 100;

/** An error of the PDF work as the render service answers it; `refused` names the kinds that are the input's fault. */
function answered(err: unknown, refused: Record<string, (err: PdfWorkError) => RenderError>): unknown {
  if (err instanceof PdfWorkLimitError) return new RenderError('PART_FAILED', err.message, undefined, { cause: err });
  if (err instanceof PdfWorkError) return refused[err.kind]?.(err) ?? err;
  return err;
}

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
        const merged = await pdfEngine().run(
          'assemble',
          { parts: inputs },
          { label: 'parts', scale: { times: Math.ceil(parts.length / PARTS_PER_DEADLINE), per: 'per 100 parts' } },
        );
        const warnings: ReportEntry[] = [
          ...contentWarnings(merged.content),
          ...merged.issues.map((issue): ReportEntry => ({ kind: 'conformance', ...issue })),
        ];
        return {
          pdf: asBuffer(merged.pdf),
          pages: merged.pages,
          claims: merged.claims,
          warnings,
          partPages: merged.partPages,
          partTitles: merged.partTitles,
        };
      } catch (err) {
        throw answered(err, {
          AssembleInputError: (e) => new RenderError('PART_FAILED', e.message, undefined, { cause: e }),
        });
      }
    },
    async keepPages(pdf, keep) {
      try {
        const kept = await pdfEngine().run('keep-pages', { pdf, opts: keep }, { label: keep.label });
        return { ...kept, pdf: asBuffer(kept.pdf) };
      } catch (err) {
        throw answered(err, {
          PageSelectionError: (e) => invalid(e.message, e),
          AssembleInputError: (e) => new RenderError('PART_FAILED', e.message, undefined, { cause: e }),
        });
      }
    },
    async pageBoxes(pdf) {
      try {
        return await pdfEngine().run('page-boxes', { pdf }, { label: 'stamps' });
      } catch (err) {
        throw answered(err, {});
      }
    },
    async stamp(pdf, stamps, checks) {
      try {
        const done = await pdfEngine().run('overlay-stamps', { pdf, stamps, checks }, { label: 'stamps' });
        return {
          pdf: asBuffer(done.pdf),
          withheld: done.issues.map((issue): ReportEntry => ({ kind: 'conformance', ...issue, part: issue.element })),
        };
      } catch (err) {
        throw answered(err, {});
      }
    },
    async split(pdf, pieces, checks) {
      try {
        const pages = pieces.reduce((n, piece) => n + piece.pages.length, 0);
        const scale = { times: Math.ceil(pages / PAGES_PER_DEADLINE), per: 'per 10,000 pages' };
        const files = await pdfEngine().run('split-pages', { pdf, pieces, checks }, { label: 'split', scale });
        return files.map((piece) => ({
          pdf: asBuffer(piece.pdf),
          withheld: piece.withheld.map((issue): ReportEntry => ({ kind: 'conformance', ...issue })),
        }));
      } catch (err) {
        throw answered(err, {
          PageSelectionError: (e) => invalid(e.message, e),
        });
      }
    },
    async metadata(pdf, metadata, claims, pages) {
      try {
        // The file is written again whole (document-metadata in engine/ops.ts): its time grows with its pages.
        const scale = { times: Math.ceil(pages / PAGES_PER_DEADLINE), per: 'per 10,000 pages' };
        return asBuffer(await pdfEngine().run('document-metadata', { pdf, metadata, claims }, { label: 'metadata', scale }));
      } catch (err) {
        throw answered(err, {});
      }
    },
    protectionClaims(claims) {
      const kept = protectionClaims(claims);
      return { claims: kept.claims, warnings: kept.issues.map((issue) => ({ kind: 'conformance', ...issue })) };
    },
    signatureClaims(claims, signer) {
      const kept = signatureClaims(claims, signer, opts.timestamp !== undefined);
      return { claims: kept.claims, warnings: kept.issues.map((issue) => ({ kind: 'conformance', ...issue })) };
    },
    async protect(pdf, protect) {
      try {
        return await pdfEngine().run('protect', { pdf, opts: protect }, { label: 'protect' });
      } catch (err) {
        throw answered(err, {});
      }
    },
    async sign(pdf, sign) {
      const timestamp = opts.timestamp;
      try {
        const { signer, ...rest } = sign;
        const key = signer.privateKey.export({ format: 'der', type: 'pkcs8' });
        const signed = await pdfEngine().run(
          'sign',
          {
            pdf,
            signer: { certificateChain: signer.certificateChain, privateKeyDer: key },
            opts: rest,
            timestamp: timestamp !== undefined,
          },
          { label: 'sign', ...(timestamp ? { calls: { timestamp } } : {}) },
        );
        return asBuffer(signed);
      } catch (err) {
        const unsignable = (e: PdfWorkError) =>
          new RenderError('INTERNAL_ERROR', 'the assembled PDF could not be signed', undefined, { cause: e });
        throw answered(err, {
          SignInputError: unsignable,
          PdfPasswordError: unsignable,
          // The authority is the operator's choice and may be back in a moment: the request may be sent again.
          TimestampError: (e) =>
            new RenderError(
              'SERVICE_UNAVAILABLE',
              `the timestamp authority (SIGN_TSA_URL) gave no timestamp: ${e.message}`,
              TIMESTAMP_RETRY_AFTER_S,
              { cause: e },
            ),
        });
      }
    },
  };
}

/** The steps without a timestamp authority (the CLI, benches). */
export const PDF_STEPS: PdfSteps = pdfSteps();
