/**
 * What the declared profiles need of the printed pages and objects, found in one page pass (page-pass.ts):
 * glyphs that show .notdef, glyphs without Unicode, strings and names past PDF/A's limits; and for PDF/UA
 * the artifacts, structure fixes and link texts Pageworks makes. Each finding is an issue that keeps its
 * profile from being claimed, in words a customer can act on.
 */
import { describeLinks, findLinks } from './link-annotations.js';
import { type PagePassResult, pagePass } from './page-pass.js';
import type { PdfFile } from './pdf-file.js';
import { MAX_PAGE_SIDE, MIN_PAGE_SIDE, type OverLimit, overLimit, pageOutOfRange } from './pdf-limits.js';
import { fixStructure } from './structure-fixes.js';
import { structureBreaks } from './structure-rules.js';
import type { Claim, ConformanceIssue, PdfProfile, ProfileRequest } from './types.js';

const PDFA = /^PDF\/A-([23])([bu])$/;

function issue(profile: Claim, clause: string, element: string, message: string): ConformanceIssue {
  return { profile, clause, element, message };
}

/** The first string or name past PDF/A's limits; an object that cannot be read is one (its limits are unknown). */
function checkedLimits(file: PdfFile): OverLimit | 'unreadable' | undefined {
  try {
    return overLimit(file);
  } catch {
    return 'unreadable';
  }
}

/** What stands against PDF/A for strings and names: the page pass's shown strings, else the file's objects. */
function limitIssues(file: PdfFile, profiles: PdfProfile[], tooLong: number | undefined): ConformanceIssue[] {
  const limit = tooLong === undefined ? checkedLimits(file) : undefined;
  return profiles.flatMap((p): ConformanceIssue[] => {
    if (tooLong !== undefined)
      return [
        issue(
          p,
          '6.1.13-3',
          `page ${tooLong}`,
          `Page ${tooLong} shows a line of text longer than PDF/A allows in one string (32,767 bytes): let that text wrap ` +
            '(a word of thousands of characters, or white-space: nowrap, keeps it on one line)',
        ),
      ];
    if (limit === 'unreadable')
      return [
        issue(p, '6.1.13', 'PDF file', 'An object of the printed PDF could not be read, so its strings could not be checked'),
      ];
    if (!limit) return [];
    return [
      issue(
        p,
        limit.kind === 'string' ? '6.1.13-3' : '6.1.13-4',
        limit.key === 'URI' ? 'link' : `PDF object ${limit.object}${limit.key ? ` (/${limit.key})` : ''}`,
        limit.key === 'URI'
          ? `A link's address is ${limit.bytes} bytes long, and PDF/A allows at most 32,767 bytes in a string: shorten the address`
          : `The printed PDF has a ${limit.kind} of ${limit.bytes} bytes${limit.key ? ` under /${limit.key}` : ''}, longer than PDF/A ` +
              `allows (${limit.kind === 'string' ? '32,767' : '127'}): shorten the text it comes from (an alt text, a title, an address)`,
      ),
    ];
  });
}

/** Units (1/72 in) as inches, for a customer who wrote the page size in CSS. */
function inches(units: number): string {
  return `${Number((units / 72).toFixed(2))} in`;
}

/** What stands against PDF/A for the size of a page: the first page with a box PDF/A does not allow. */
export function pageSizeIssues(file: PdfFile, profiles: PdfProfile[]): ConformanceIssue[] {
  if (profiles.length === 0) return [];
  let found: ReturnType<typeof pageOutOfRange>;
  try {
    found = pageOutOfRange(file);
  } catch {
    return profiles.map((p) =>
      issue(p, '6.1.13', 'PDF file', 'A page of the printed PDF could not be read, so its size could not be checked'),
    );
  }
  if (!found) return [];
  const { page, box, width, height } = found;
  const size = `${Math.round(width).toLocaleString('en')} × ${Math.round(height).toLocaleString('en')} units (${inches(width)} × ${inches(height)})`;
  const small = Math.min(width, height) < MIN_PAGE_SIDE;
  return profiles.map((p) =>
    issue(
      p,
      '6.1.13-11',
      `page ${page}`,
      `Page ${page} is ${size}${box === 'MediaBox' ? '' : ` (its ${box})`}, and PDF/A allows pages of ` +
        `${small ? `at least ${MIN_PAGE_SIDE} units (1/24 in)` : `at most ${MAX_PAGE_SIDE.toLocaleString('en')} units (200 in, 5.08 m)`} on a side: ` +
        `give it a ${small ? 'larger' : 'smaller'} size (CSS @page size, or the render's width and height)`,
    ),
  );
}

/** A font that shows its .notdef glyph breaks every profile: PDF/A 6.2.11.8, PDF/UA 7.21.8. */
export function notdefIssues(pass: Pick<PagePassResult, 'notdefFonts'>, profiles: readonly Claim[]): ConformanceIssue[] {
  return profiles.flatMap((p) =>
    pass.notdefFonts.map((font) =>
      issue(
        p,
        p === 'PDF/UA-1' ? '7.21.8-1' : '6.2.11.8-1',
        `font ${font.font} (page ${font.page})`,
        `The font ${font.font} on page ${font.page} shows its .notdef glyph (an empty box) for ${font.count === 1 ? 'a character' : `${font.count} characters`} ` +
          'that no font on the server has (private-use or unassigned code points, or a script no installed font covers): ' +
          'remove those characters, or give that text a web font that has them',
      ),
    ),
  );
}

/** A glyph without a Unicode value breaks PDF/UA (7.21.7) and the "u" levels of PDF/A (6.2.11.7.2): `unicodeFor`. */
export function unicodeIssues(
  pass: Pick<PagePassResult, 'fontsWithoutUnicode'>,
  unicodeFor: readonly Claim[],
): ConformanceIssue[] {
  return unicodeFor.flatMap((p) =>
    pass.fontsWithoutUnicode.map((font) =>
      issue(
        p,
        `${p === 'PDF/UA-1' ? '7.21.7' : '6.2.11.7.2'}-${font.unmapped ? 1 : 2}`,
        `font ${font.font} (page ${font.page})`,
        `The font ${font.font} on page ${font.page} has ${font.missing === 1 ? 'a glyph' : `${font.missing} glyphs`} without a ` +
          'Unicode value, so that text cannot be searched, copied or read aloud. Chromium maps the glyphs of characters, ' +
          'not every variant a font substitutes (for example a Thai tone mark stacked over a vowel, as in หนี้, in Noto Sans Thai): ' +
          'set that text in another font',
      ),
    ),
  );
}

/**
 * Reads the pages (page-pass.ts) for what the declared profiles need, fixes what PDF/UA lets Pageworks fix
 * (artifacts, structure, link texts) and returns what stands against each profile. Throws
 * PassBudgetExceeded past `req.deadline` or the pass's memory budget.
 */
export function readPages(
  file: PdfFile,
  req: ProfileRequest,
  declared: PdfProfile[],
  ua: boolean,
  unicodeFor: PdfProfile[],
): ConformanceIssue[] {
  const issues: ConformanceIssue[] = [];
  const pdfaDeclared = declared.filter((p) => PDFA.test(p));
  const links = ua ? findLinks(file) : undefined;
  const pass =
    declared.length > 0
      ? pagePass(file, {
          artifacts: ua,
          unicode: unicodeFor.length > 0,
          notdef: true,
          stringLength: pdfaDeclared.length > 0,
          mcids: links?.mcids ?? new Map(),
          deadline: req.deadline,
        })
      : undefined;
  if (pass) issues.push(...notdefIssues(pass, declared));
  if (pdfaDeclared.length > 0) issues.push(...limitIssues(file, pdfaDeclared, pass?.longStringPage));
  issues.push(...pageSizeIssues(file, pdfaDeclared));
  if (pass) issues.push(...unicodeIssues(pass, unicodeFor));
  if (ua && pass && links) {
    for (const page of [...new Set(pass.unmarkablePages)].slice(0, 5))
      issues.push(
        issue(
          'PDF/UA-1',
          '7.1-3',
          `page ${page}`,
          `Content on page ${page} is neither tagged nor an artifact: Chromium printed it outside the document's structure, and Pageworks could not mark it (a text object that mixes tagged and untagged text)`,
        ),
      );
    const left = fixStructure(file);
    if (left.looseListContent > 0)
      issues.push(
        issue(
          'PDF/UA-1',
          '7.2-19',
          '<ul>/<ol>',
          'A list holds text outside any list item (text directly in <ul> or <ol>), which a screen reader cannot place in ' +
            'the list: put it in an <li>, or move it out of the list',
        ),
      );
    for (const found of structureBreaks(file))
      issues.push(
        issue(
          'PDF/UA-1',
          found.clause,
          found.element,
          found.count > 1 ? `${found.message} (${found.count} elements like it)` : found.message,
        ),
      );
    const untagged = describeLinks(file, links, pass.mcidText);
    if (untagged > 0)
      issues.push(
        issue(
          'PDF/UA-1',
          '7.18.1-2',
          'link',
          `${untagged} link${untagged === 1 ? ' is' : 's are'} not in a Link structure element`,
        ),
      );
  }

  return issues;
}
