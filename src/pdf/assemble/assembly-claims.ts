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
import { notFacturXIssue } from './invoice-files.js';

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

/** The XMP packet of a part as text, or undefined. */
export function xmpText(file: PdfFile): string | undefined {
  const ref = file.catalog().value.get('Metadata');
  if (!(ref instanceof PdfRef)) return undefined;
  return file.streamData(ref.num)?.toString('utf8');
}

/** What an XMP packet claims, element or attribute form. */
export function xmpClaims(xmp: string | undefined): Claim[] {
  if (!xmp) return [];
  const claims: Claim[] = [];
  const part = /pdfaid:part(?:>|=["'])\s*(\d)/.exec(xmp)?.[1];
  const level = /pdfaid:conformance(?:>|=["'])\s*([A-Za-z])/.exec(xmp)?.[1];
  if (part && level) claims.push(`PDF/A-${part}${level.toLowerCase()}` as Claim);
  if (/pdfuaid:part(?:>|=["'])\s*1/.test(xmp)) claims.push('PDF/UA-1');
  if (xmp.includes('urn:factur-x:pdfa:CrossIndustryDocument')) claims.push('Factur-X');
  return claims;
}

/** The hash of a part's output intent ICC profile (PDF/A needs the same one throughout), or undefined. */
function outputIntentKey(file: PdfFile): string | undefined {
  const intents = file.resolve(file.catalog().value.get('OutputIntents'));
  const first = Array.isArray(intents) ? file.dict(intents[0]) : undefined;
  const profile = first?.get('DestOutputProfile');
  if (!(profile instanceof PdfRef)) return undefined;
  const data = file.streamData(profile.num);
  return data ? createHash('sha256').update(data).digest('hex') : undefined;
}

/** Decides the assembly's claims from its parts'. */
export function decideClaims(parts: PartClaims[]): ClaimDecision {
  const issues: ConformanceIssue[] = [];
  const known = parts.map((part) => {
    const written = xmpClaims(xmpText(part.file));
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
  if (pdfa && new Set(parts.map((p) => outputIntentKey(p.file))).size !== 1) {
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
 * The first part's XMP with only `claims` left claimed (the identification schemas of the others removed),
 * or undefined when a claim cannot be removed from it with certainty (then the assembly has no XMP).
 */
export function xmpWithClaims(xmp: string | undefined, claims: Claim[]): Buffer | undefined {
  if (!xmp) return undefined;
  let text = xmp;
  const drop = (ns: string): void => {
    text = text.replace(new RegExp(`<rdf:Description[^>]*xmlns:${ns}="[^"]*"[^>]*>[\\s\\S]*?</rdf:Description>\\n?`, 'g'), '');
  };
  if (!claims.some((c) => c.startsWith('PDF/A-'))) drop('pdfaid');
  if (!claims.includes('PDF/UA-1')) drop('pdfuaid');
  if (!claims.includes('Factur-X')) drop('fx');
  const left = xmpClaims(text);
  if (left.some((c) => !claims.includes(c))) return undefined;
  return Buffer.from(text, 'utf8');
}
