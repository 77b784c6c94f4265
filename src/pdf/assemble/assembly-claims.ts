/**
 * What an assembly may claim. A claim is a promise, so a profile is claimed only when every part is known to
 * meet it: a part Pageworks rendered in this request is known by its render's own claims (the caller passes
 * them) and only when its XMP says the same; an existing PDF counts as meeting nothing, whatever its XMP says,
 * because an XMP claim is a sentence anyone can write, and Pageworks has no validator at run time to check
 * it. PDF/A also needs one output intent for the whole file: every part's must have the same ICC profile.
 * Factur-X is one invoice per file: it is kept only when the first part is the one Factur-X part.
 */
import { createHash } from 'node:crypto';
import type { PdfFile } from '../profiles/pdf-file.js';
import { PdfRef } from '../profiles/pdf-objects.js';
import type { Claim, ConformanceIssue } from '../profiles/types.js';
import { UnreadablePdf } from '../profiles/unreadable-pdf.js';
import { cut, readXmpProperties, UnreadableXmp, type XmpProperty } from '../profiles/xmp-read.js';
import { notFacturXIssue } from './invoice-files.js';
import { AssembleInputError } from './read-part.js';

/** A part's side of the decision. */
export interface PartClaims {
  label: string;
  file: PdfFile;
  /** What the caller knows the part meets (a render's claims); undefined for an existing PDF. */
  known?: readonly Claim[];
}

/** The decision: what the assembly claims and why anything else is not claimed. */
export interface ClaimDecision {
  claims: Claim[];
  issues: ConformanceIssue[];
}

/** Most bytes a part's XMP packet may inflate to (packets with thumbnails run to a few hundred KiB). */
export const MAX_XMP_BYTES = 4 * 1024 * 1024;
/** Most bytes an output intent's ICC profile may inflate to (a large CMYK profile is a few MiB). */
const MAX_ICC_BYTES = 16 * 1024 * 1024;

const PDFA_ID = 'http://www.aiim.org/pdfa/ns/id/';
const PDFUA_ID = 'http://www.aiim.org/pdfua/ns/id/';
const FACTUR_X = 'urn:factur-x:pdfa:CrossIndustryDocument';
const claimNamespace = (ns: string): boolean => ns === PDFA_ID || ns === PDFUA_ID || ns.startsWith(FACTUR_X);

/** The XMP packet of a part as text, or undefined; UnreadablePdf when it inflates past MAX_XMP_BYTES. */
export function xmpText(file: PdfFile): string | undefined {
  const ref = file.catalog().value.get('Metadata');
  if (!(ref instanceof PdfRef)) return undefined;
  return file.streamData(ref.num, MAX_XMP_BYTES)?.toString('utf8');
}

/** The claiming properties of a packet, or undefined when it cannot be read as XMP. */
function claimProperties(xmp: string): XmpProperty[] | undefined {
  try {
    return readXmpProperties(xmp, claimNamespace);
  } catch (error) {
    if (error instanceof UnreadableXmp) return undefined;
    throw error;
  }
}

/** What an XMP packet claims, element or attribute form, under any prefix; a packet that is not XML claims nothing. */
export function xmpClaims(xmp: string | undefined): Claim[] {
  const properties = xmp ? claimProperties(xmp) : undefined;
  if (!properties) return [];
  const value = (ns: string, name: string) => properties.find((p) => p.ns === ns && p.name === name)?.value;
  const claims: Claim[] = [];
  const part = value(PDFA_ID, 'part');
  const level = value(PDFA_ID, 'conformance');
  if (part && /^\d$/.test(part) && level && /^[A-Za-z]$/.test(level)) claims.push(`PDF/A-${part}${level.toLowerCase()}` as Claim);
  if (value(PDFUA_ID, 'part') === '1') claims.push('PDF/UA-1');
  if (properties.some((p) => p.ns.startsWith(FACTUR_X))) claims.push('Factur-X');
  return claims;
}

/** The hash of a part's output intent ICC profile (PDF/A needs the same one throughout), or undefined. */
function outputIntentKey(file: PdfFile): string | undefined {
  const intents = file.resolve(file.catalog().value.get('OutputIntents'));
  const first = Array.isArray(intents) ? file.dict(intents[0]) : undefined;
  const profile = first?.get('DestOutputProfile');
  if (!(profile instanceof PdfRef)) return undefined;
  const data = file.streamData(profile.num, MAX_ICC_BYTES);
  return data ? createHash('sha256').update(data).digest('hex') : undefined;
}

/** What `read` gives, or the part refused, naming what of it could not be read (too large, does not inflate). */
function partRead<T>(part: PartClaims, what: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof UnreadablePdf)) throw error;
    throw new AssembleInputError(part.label, 'damaged', `its ${what} cannot be read: ${error.message}`);
  }
}

function readXmp(part: PartClaims): string | undefined {
  return partRead(part, 'XMP metadata', () => xmpText(part.file));
}

/** Decides the assembly's claims from its parts' (a part whose XMP or profile cannot be read is AssembleInputError). */
export function decideClaims(parts: PartClaims[]): ClaimDecision {
  const issues: ConformanceIssue[] = [];
  const known = parts.map((part) => {
    const written = xmpClaims(readXmp(part));
    if (!part.known) {
      for (const claim of written)
        issues.push({
          profile: claim,
          clause: 'assembly',
          element: part.label,
          message: `${part.label} is an existing PDF whose XMP says ${claim}; Pageworks cannot verify that, so the assembly does not claim ${claim}`,
        });
      return new Set<Claim>();
    }
    return new Set(part.known.filter((c) => written.includes(c)));
  });
  const all = new Set<Claim>(known.flatMap((s) => [...s]));
  const claims: Claim[] = [];
  for (const claim of all) {
    if (claim === 'Factur-X') continue;
    const missing = parts.filter((_, i) => !known[i].has(claim));
    for (const part of missing)
      issues.push({
        profile: claim,
        clause: 'assembly',
        element: part.label,
        message: `${part.label} does not meet ${claim}, so the assembly does not claim it (every part must)`,
      });
    if (missing.length === 0) claims.push(claim);
  }
  const pdfa = claims.find((c) => c.startsWith('PDF/A-'));
  if (pdfa && new Set(parts.map((p) => partRead(p, 'output intent profile', () => outputIntentKey(p.file)))).size !== 1) {
    claims.splice(claims.indexOf(pdfa), 1);
    issues.push({
      profile: pdfa,
      clause: '6.2.3',
      element: parts.map((p) => p.label).join(', '),
      message: `the parts carry different output intents and a PDF/A file has one, so the assembly does not claim ${pdfa}`,
    });
  }
  const facturX = parts.filter((_, i) => known[i].has('Factur-X'));
  if (facturX.length > 0) {
    if (facturX.length === 1 && facturX[0] === parts[0] && claims.includes('PDF/A-3b')) claims.push('Factur-X');
    else issues.push(notFacturXIssue(parts, facturX, !issues.some((i) => i.clause === '6.2.3')));
  }
  return { claims: sortClaims(claims), issues };
}

function sortClaims(claims: Claim[]): Claim[] {
  const order: Claim[] = ['PDF/A-2b', 'PDF/A-2u', 'PDF/A-3b', 'PDF/A-3u', 'PDF/UA-1', 'Factur-X'];
  return [...claims].sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

/**
 * The first part's XMP with only `claims` left claimed (the identification properties of the others cut
 * out, under whatever prefix they were written), or undefined when a claim cannot be removed from it with
 * certainty (then the assembly has no XMP).
 */
export function xmpWithClaims(xmp: string | undefined, claims: Claim[]): Buffer | undefined {
  if (!xmp) return undefined;
  const properties = claimProperties(xmp);
  if (!properties) return undefined;
  const keep = (ns: string): boolean =>
    ns === PDFA_ID
      ? claims.some((c) => c.startsWith('PDF/A-'))
      : ns === PDFUA_ID
        ? claims.includes('PDF/UA-1')
        : claims.includes('Factur-X');
  const text = cut(
    xmp,
    properties.filter((p) => !keep(p.ns)),
  );
  const left = claimProperties(text);
  if (!left || xmpClaims(text).some((c) => !claims.includes(c))) return undefined;
  return Buffer.from(text, 'utf8');
}
