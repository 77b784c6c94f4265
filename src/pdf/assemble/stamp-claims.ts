/**
 * What a stamp does to the assembly's claims. A stamp is drawn on every page it stamps, so its glyphs are
 * held to the claims as a part's are (a .notdef glyph breaks PDF/A and PDF/UA, a glyph without Unicode
 * PDF/UA and the "u" levels), and a stamp that paints on the invoice's pages can hide what a Factur-X
 * reader must see. A claim a stamp breaks is cut out of the XMP, with the reason.
 */
import { scanContent } from '../profiles/content-scan.js';
import { notdefIssues, unicodeIssues } from '../profiles/page-checks.js';
import { pagePass } from '../profiles/page-pass.js';
import type { PdfFile } from '../profiles/pdf-file.js';
import { dict, name, type PdfDict } from '../profiles/pdf-objects.js';
import type { Claim, ConformanceIssue } from '../profiles/types.js';
import { xmpText, xmpWithClaims } from './assembly-claims.js';

/** Where a stamp goes: its name in the request, the assembly's pages it is laid on, over or under them. */
export interface StampPlace {
  /** As the request names it (`stamps[1]`). */
  label: string;
  /** For each page of the stamp's PDF, in order, the index (from 0) of the assembly's page it is laid on. */
  targets: readonly number[];
  layer: 'over' | 'under';
}

/** What the stamps are held to: the assembly's claims, and how many of its first pages are the invoice's (all when not known). */
export interface StampChecks {
  claims: readonly Claim[];
  invoicePages?: number;
}

/**
 * What a stamp's glyphs break of `claims`: a .notdef glyph breaks PDF/A and PDF/UA, a glyph without Unicode
 * PDF/UA and the "u" levels. A stamp is text on the page like any other, whatever its artifact marking;
 * the pages named are the assembly's.
 */
function stampGlyphIssues(source: PdfFile, stamp: StampPlace, claims: readonly Claim[]): ConformanceIssue[] {
  const profiles = claims.filter((c) => c === 'PDF/UA-1' || c.startsWith('PDF/A-'));
  if (profiles.length === 0) return [];
  const unicodeFor = profiles.filter((c) => c === 'PDF/UA-1' || /^PDF\/A-[23]u$/.test(c));
  const pass = pagePass(source, {
    artifacts: false,
    unicode: unicodeFor.length > 0,
    notdef: true,
    stringLength: false,
    mcids: new Map(),
  });
  const onAssembly = <T extends { page: number }>(found: T): T => ({ ...found, page: (stamp.targets[found.page - 1] ?? 0) + 1 });
  const issues = [
    ...notdefIssues({ notdefFonts: pass.notdefFonts.map(onAssembly) }, profiles),
    ...unicodeIssues({ fontsWithoutUnicode: pass.fontsWithoutUnicode.map(onAssembly) }, unicodeFor),
  ];
  return issues.map((issue) => ({
    ...issue,
    element: stamp.label,
    message: `${stamp.label}: ${issue.message}; the stamp is drawn on the page, so the assembly does not claim ${issue.profile}`,
  }));
}

/** Operators that paint an area: fills, shadings, images and forms. Text and lines are not among them. */
const PAINTING = new Set(['f', 'F', 'f*', 'B', 'B*', 'b', 'b*', 'sh', 'Do', 'BI', 'EI']);

/** Whether a content stream paints an area. */
function paintsArea(content: string): boolean {
  let found = false;
  scanContent(content, (op) => {
    found ||= PAINTING.has(op.op);
  });
  return found;
}

/**
 * Why a stamp on the invoice's pages keeps the assembly from Factur-X: a box, a background or an image
 * there can cover the amount due or the invoice number a reader must see (over the content), or take away
 * the contrast they are read by (under it: black under black text), and where it falls is not known here.
 * A stamp of text alone, over or under, leaves the invoice shown.
 */
function coverIssue(stamp: StampPlace, contents: string[], invoicePages: number | undefined): ConformanceIssue[] {
  const k = contents.findIndex(
    (content, i) => (invoicePages === undefined || stamp.targets[i] < invoicePages) && paintsArea(content),
  );
  if (k < 0) return [];
  const where = stamp.layer === 'over' ? 'over' : 'under';
  return [
    {
      profile: 'Factur-X',
      clause: 'Factur-X 1.0',
      element: stamp.label,
      message:
        `${stamp.label}: it paints a box, a background or an image ${where} the invoice's page ${stamp.targets[k] + 1}, which can ` +
        `${where === 'over' ? 'cover' : 'hide by its colour'} the amount due or the invoice number a reader must see, so the ` +
        "assembly does not claim Factur-X: keep what a stamp draws on the invoice's pages to text",
    },
  ];
}

/**
 * The claims of `claims` that `issues` leave, and an issue for Factur-X when the PDF/A-3 claim it stands on
 * goes: a Factur-X invoice is a PDF/A-3 file.
 */
function claimsLeft(claims: readonly Claim[], issues: ConformanceIssue[]): { left: Claim[]; issues: ConformanceIssue[] } {
  const withheld = new Set(issues.map((i) => i.profile));
  const out = [...issues];
  if (
    claims.includes('Factur-X') &&
    !withheld.has('Factur-X') &&
    claims.some((c) => c.startsWith('PDF/A-3') && withheld.has(c))
  ) {
    withheld.add('Factur-X');
    out.push({
      profile: 'Factur-X',
      clause: 'Factur-X 1.0',
      element: issues[0].element,
      message: `${issues[0].element}: a Factur-X invoice is a PDF/A-3 file, so without that claim the assembly does not claim Factur-X`,
    });
  }
  return { left: claims.filter((c) => !withheld.has(c)), issues: out };
}

/** Why a stamp breaks a claim of `checks`: its glyphs, and for Factur-X what it paints over the invoice. */
export function stampIssues(source: PdfFile, contents: string[], stamp: StampPlace, checks: StampChecks): ConformanceIssue[] {
  return [
    ...stampGlyphIssues(source, stamp, checks.claims),
    ...(checks.claims.includes('Factur-X') ? coverIssue(stamp, contents, checks.invoicePages) : []),
  ];
}

/**
 * Cuts the claims `found` breaks out of `file`'s XMP (in its update), and returns every claim the file no
 * longer makes with its reason: Factur-X goes with PDF/A-3, and an XMP that cannot be edited with
 * certainty takes every claim with it.
 */
export function withoutBrokenClaims(file: PdfFile, claims: readonly Claim[], found: ConformanceIssue[]): ConformanceIssue[] {
  const { left, issues } = claimsLeft(claims, found);
  const catalog = file.catalog();
  const root: PdfDict = new Map(catalog.value);
  const edited = xmpWithClaims(xmpText(file), left);
  if (edited) root.set('Metadata', file.add(dict({ Type: name('Metadata'), Subtype: name('XML') }), edited));
  else {
    root.delete('Metadata');
    for (const claim of left)
      issues.push({
        profile: claim,
        clause: 'assembly',
        element: issues[0].element,
        message: `${issues[0].element}: the XMP could not be edited with certainty, so the assembly carries none and does not claim ${claim}`,
      });
  }
  file.set(catalog.num, root);
  return issues;
}
