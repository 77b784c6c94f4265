/**
 * How many bytes a signature's /Contents string is given, and what that means for a PDF/A claim: PDF/A
 * limits any string to 32,767 bytes (ISO 19005-2 and -3, 6.1.13; a hex string counts the bytes it holds),
 * so a certificate chain that cannot fit in that, with a timestamp token when one is asked for, cannot
 * be signed into a PDF/A file. Such a file is signed all the same, and no longer claims PDF/A.
 */
import type { Claim, ConformanceIssue } from '../profiles/types.js';
import { cadesSize, type Signer } from './cms.js';

/** The longest string PDF/A allows, in bytes. */
export const PDFA_MAX_STRING_BYTES = 32_767;
/** A margin over the CMS's largest size. */
const SLACK = 32;
/** Room for a timestamp token (its own certificate chain included). */
export const TOKEN_ROOM = 16_384;

/** The bytes /Contents holds for `signer`'s CMS (and a timestamp token when `timestamped`). */
export function signatureRoom(signer: Signer, timestamped: boolean): number {
  return cadesSize(signer) + SLACK + (timestamped ? TOKEN_ROOM : 0);
}

/** The claims a file signed by `signer` keeps (PDF/A and Factur-X go when the signature cannot fit), and why. */
export function signatureClaims(
  claims: readonly Claim[],
  signer: Signer,
  timestamped: boolean,
): { claims: Claim[]; issues: ConformanceIssue[] } {
  const room = signatureRoom(signer, timestamped);
  if (room <= PDFA_MAX_STRING_BYTES) return { claims: [...claims], issues: [] };
  const lost = claims.filter((c) => c.startsWith('PDF/A-') || c === 'Factur-X');
  const chain = signer.certificateChain.reduce((n, c) => n + c.length, 0);
  const what = `the signing certificate${signer.certificateChain.length > 1 ? ' chain' : ''} (${chain.toLocaleString('en-US')} bytes${timestamped ? ', with room for a timestamp' : ''})`;
  return {
    claims: claims.filter((c) => !lost.includes(c)),
    issues: lost.map((profile) => ({
      profile,
      clause: profile === 'Factur-X' ? 'Factur-X 1.0 (PDF/A-3)' : '6.1.13',
      element: 'sign',
      message: `${what} makes a signature of ${room.toLocaleString('en-US')} bytes, over the ${PDFA_MAX_STRING_BYTES.toLocaleString('en-US')} bytes PDF/A allows a string, so the signed PDF does not claim ${profile}; sign with a smaller certificate chain to keep it`,
    })),
  };
}
