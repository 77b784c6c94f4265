/**
 * The `X-Render-Claims` header: the standards a PDF claims, on every answer that carries the PDF (POST /v1/render,
 * GET /v1/jobs/{id}/pdf), so a client knows them without asking GET /v1/renders/{id}.
 */
import { Type } from '@sinclair/typebox';
import type { Claim } from '../../pdf/profiles/types.js';

/** The header's name. */
export const CLAIMS_HEADER = 'X-Render-Claims';

/** The header's value (`PDF/A-3b, PDF/UA-1`), or undefined when the PDF claims nothing and the header is left out. */
export function claimsHeaderValue(claims: readonly Claim[]): string | undefined {
  return claims.length === 0 ? undefined : claims.join(', ');
}

/** The header as the OpenAPI documents of the PDF answers describe it (no `examples`: OpenAPI 3.0's header schemas do not take it). */
export const ClaimsHeaderDoc = {
  type: 'string',
  description:
    'The standards the PDF claims, comma-separated in the order of GET /v1/renders/{id} `claims` (e.g. `PDF/A-3b, PDF/UA-1`, ' +
    'or `PDF/A-3b, Factur-X`); absent when the PDF claims none (docs/standards.md).',
} as const;

/** A JSON `claims` array's schema (OpenAPI), with `description` saying whose claims they are. */
export function ClaimsSchema(description: string) {
  return Type.Array(
    Type.Union([
      Type.Literal('PDF/A-2b'),
      Type.Literal('PDF/A-2u'),
      Type.Literal('PDF/A-3b'),
      Type.Literal('PDF/A-3u'),
      Type.Literal('PDF/UA-1'),
      Type.Literal('Factur-X'),
    ]),
    { description },
  );
}
