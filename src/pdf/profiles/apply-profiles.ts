/**
 * Makes a printed PDF meet the profiles its document declares, as an incremental update after Chromium's
 * bytes: XMP identification, an sRGB OutputIntent, a trailer ID, associated files, and for PDF/UA the
 * artifacts, link texts and viewer preferences. The claim rule (docs/standards.md): a profile is claimed
 * only when nothing found stands against it; what stands against it comes back as an issue.
 */
import crypto from 'node:crypto';
import { cutText } from '../../cut-text.js';
import { infoEntries } from '../pdf-info.js';
import { embedFiles } from './associated-files.js';
import { skippedHeading } from './heading-order.js';
import { legalText } from './legal-text.js';
import { hasStructureTree } from './link-annotations.js';
import { readPages } from './page-checks.js';
import { PassBudgetExceeded } from './page-pass.js';
import { PdfFile } from './pdf-file.js';
import { dict, name, type PdfDict, PdfRef, raw, textString } from './pdf-objects.js';
import { PdfParser } from './pdf-parser.js';
import { srgbProfile } from './srgb-profile.js';
import { checkStructure } from './structure-checks.js';
import type { Claim, ConformanceIssue, PdfProfile, ProfileRequest, ProfileResult } from './types.js';
import { xmpPacket } from './xmp.js';

const PDFA = /^PDF\/A-([23])([bu])$/;

function issue(profile: Claim, clause: string, element: string, message: string): ConformanceIssue {
  return { profile, clause, element, message };
}

/** Which declared profiles the document side or the PDF itself already rules out, before any change. */
function precheck(file: PdfFile, req: ProfileRequest, declared: PdfProfile[]): ConformanceIssue[] {
  const issues: ConformanceIssue[] = [];
  const pdfa = declared.filter((p) => PDFA.test(p));
  for (const extra of pdfa.slice(1))
    issues.push(
      issue(extra, '6.6.4', 'meta pdf-profile', `a PDF can claim one PDF/A part and level only; ${pdfa[0]} is claimed`),
    );
  for (const p of pdfa) {
    if (!srgbProfile())
      issues.push(
        issue(
          p,
          '6.2.4.3',
          'OutputIntent',
          'the sRGB ICC profile is not installed on the server (Debian package icc-profiles-free)',
        ),
      );
    if (p.startsWith('PDF/A-2') && req.files.length > 0)
      issues.push(
        issue(
          p,
          '6.8',
          `attachment ${req.files[0].name}`,
          'PDF/A-2 embeds only PDF/A files; declare PDF/A-3b to attach other files',
        ),
      );
  }
  if (declared.includes('PDF/UA-1')) {
    const known = new Set((req.issues ?? []).filter((i) => i.profile === 'PDF/UA-1').map((i) => i.clause));
    if (!hasStructureTree(file))
      issues.push(issue('PDF/UA-1', '7.1-3', 'document', 'the printed PDF has no structure tree, so its content is not tagged'));
    const heading = known.has('7.4.2-1') ? undefined : skippedHeading(file);
    if (heading)
      issues.push(
        issue(
          'PDF/UA-1',
          '7.4.2-1',
          `<${heading.tag.toLowerCase()}> (heading ${heading.index})`,
          heading.previous === 0
            ? `the first heading is an ${heading.tag.toLowerCase()}; PDF/UA needs headings to start at h1 and skip no level`
            : `an ${heading.tag.toLowerCase()} follows an h${heading.previous}; PDF/UA needs headings that skip no level`,
        ),
      );
    const structure = checkStructure(file);
    if (structure.language)
      issues.push(
        issue(
          'PDF/UA-1',
          '7.2-29',
          structure.language.where === 'document' ? '<html lang>' : `lang (on a ${structure.language.where})`,
          `The language ${JSON.stringify(cutText(structure.language.value, 40))} is not a BCP 47 language tag, so a screen reader ` +
            'cannot tell which language to read: write it as a tag like "en", "en-US" or "de-CH" (a hyphen, not an underscore)',
        ),
      );
    if (structure.table)
      issues.push(
        issue(
          'PDF/UA-1',
          '7.2-42',
          `<table> (table ${structure.table.index})`,
          `The rows of table ${structure.table.index} cover ${structure.table.widths.slice(0, 8).join(', ')}${structure.table.widths.length > 8 ? ', …' : ''} ` +
            'columns (colspan and rowspan counted), so a screen reader cannot tell which header a cell belongs to: ' +
            'give every row the same number of columns (an empty <td> fills a gap)',
        ),
      );
    if (!req.title && !known.has('7.1-9'))
      issues.push(issue('PDF/UA-1', '7.1-9', '<title>', 'the document has no title; PDF/UA needs one (a <title> element)'));
  }
  return issues;
}

/** The trailer ID: the same for the same document and date, as the PDF spec advises for a new file. */
function fileId(pdf: Buffer, req: ProfileRequest): string {
  const hash = crypto.createHash('md5');
  hash.update(pdf.subarray(0, 4096));
  hash.update(`${pdf.length}|${req.date.toISOString()}|${req.title ?? ''}`);
  return `<${hash.digest('hex').toUpperCase()}>`;
}

/** Applies `req` to `pdf`: see the module comment. Nothing declared and nothing to attach → the bytes as they were. */
export async function applyProfiles(pdf: Uint8Array, asked: ProfileRequest): Promise<ProfileResult> {
  const req = legalProperties(asked);
  const bytes = Buffer.isBuffer(pdf) ? pdf : Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const declared = [...new Set(req.profiles)];
  const issues: ConformanceIssue[] = [...(req.issues ?? [])];
  if (declared.length === 0 && req.files.length === 0 && req.extensions.length === 0 && !req.extraClaims?.length)
    return { bytes: pdf, claims: [], issues };
  let file: PdfFile;
  try {
    file = new PdfFile(bytes);
  } catch (err) {
    for (const p of declared)
      issues.push(issue(p, '6.1', 'PDF file', `the printed PDF could not be read (${(err as Error).message})`));
    return { bytes: pdf, claims: [], issues };
  }
  issues.push(...precheck(file, req, declared));

  const ua = declared.includes('PDF/UA-1') && !issues.some((i) => i.profile === 'PDF/UA-1');
  const unicodeFor = declared.filter((p) => p === 'PDF/UA-1' || /^PDF\/A-[23]u$/.test(p));
  try {
    issues.push(...readPages(file, req, declared, ua, unicodeFor));
  } catch (err) {
    if (!(err instanceof PassBudgetExceeded)) throw err;
    for (const p of declared)
      issues.push(
        issue(
          p,
          err.budget,
          'document',
          `Checking this PDF for ${p} took more ${err.budget === 'time' ? 'time' : 'memory'} than a render allows, so it ` +
            'is not claimed: split the document, or shorten what repeats (a link around a whole chapter, thousands of pages)',
        ),
      );
  }
  const ruledOut = new Set(issues.map((i) => i.profile));
  const claims: Claim[] = declared.filter((p) => !ruledOut.has(p));
  const pdfa = claims.find((p) => PDFA.test(p));
  for (const extra of req.extraClaims ?? []) {
    const missing = extra.requires.filter((p) => !claims.includes(p));
    if (missing.length === 0 && !ruledOut.has(extra.claim)) claims.push(extra.claim);
    else if (missing.length > 0)
      issues.push(
        issue(extra.claim, missing[0], 'PDF', `${extra.claim} needs ${missing.join(', ')}, which this PDF does not meet`),
      );
  }
  const extensions = [
    ...req.extensions,
    ...(req.extraClaims ?? []).filter((e) => claims.includes(e.claim)).flatMap((e) => e.extensions),
  ];

  const catalog = file.catalog();
  const root: PdfDict = new Map(catalog.value);
  const match = pdfa ? PDFA.exec(pdfa) : null;
  const xmp = xmpPacket({
    ...req,
    pdfa: match ? { part: Number(match[1]) as 2 | 3, conformance: match[2].toUpperCase() as 'B' | 'U' } : undefined,
    pdfua: claims.includes('PDF/UA-1'),
    extensions,
  });
  root.set('Metadata', file.add(dict({ Type: name('Metadata'), Subtype: name('XML') }), xmp));
  const icc = srgbProfile();
  if (pdfa && icc) {
    const profile = file.add(dict({ N: raw(3), Filter: name('FlateDecode') }), icc.deflated);
    const condition = textString('sRGB IEC61966-2.1');
    const intent = dict({
      Type: name('OutputIntent'),
      S: name('GTS_PDFA1'),
      OutputConditionIdentifier: condition,
      Info: condition,
      DestOutputProfile: profile,
    });
    root.set('OutputIntents', [file.add(intent)]);
  }
  if (hasStructureTree(file)) root.set('MarkInfo', dict({ Marked: raw(true) }));
  if (claims.includes('PDF/UA-1')) {
    const prefs: PdfDict = new Map(file.dict(root.get('ViewerPreferences')) ?? []);
    root.set('ViewerPreferences', prefs.set('DisplayDocTitle', raw(true)));
  }
  if (req.lang && !root.has('Lang')) root.set('Lang', textString(req.lang));
  embedFiles(file, root, req.files, req.date);
  file.set(catalog.num, root);
  const trailer: PdfDict = new Map();
  trailer.set('Info', writeInfo(file, req));
  if (!file.trailer.has('ID')) {
    const id = fileId(bytes, req);
    trailer.set('ID', [raw(id), raw(id)]);
  }
  return { bytes: file.finish(trailer), claims, issues };
}

/** The request with its document properties as XMP may hold them (the Info dictionary gets the same). */
function legalProperties(req: ProfileRequest): ProfileRequest {
  const optional = (value: string | undefined): string | undefined => legalText(value) || undefined;
  return {
    ...req,
    title: optional(req.title),
    author: optional(req.author),
    subject: optional(req.subject),
    keywords: optional(req.keywords),
    lang: optional(req.lang),
    creator: legalText(req.creator),
    producer: legalText(req.producer),
  };
}

/** The Info dictionary, written again so it says exactly what the XMP says (PDF/A 6.6.3). */
function writeInfo(file: PdfFile, req: ProfileRequest): PdfRef {
  const entries = new PdfParser(`<<${infoEntries(req)}>>`).value();
  const current = file.trailer.get('Info');
  if (current instanceof PdfRef) {
    file.set(current.num, entries);
    return current;
  }
  return file.add(entries);
}
