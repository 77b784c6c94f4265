/**
 * The structure facts veraPDF's PDF/UA-1 rules test, read from the structure tree as it will be written
 * (after structure-fixes.ts), not assumed from the HTML: list items in lists and lists holding items (7.2-17
 * to 7.2-20, 7.2-40), table cells in rows, rows in tables and tables holding rows (7.2-3 to 7.2-16, 7.2-36 to
 * 7.2-39), table-of-contents items in one (7.2-26 to 7.2-28), every Figure with alternative text (7.3-1), and
 * headings either all numbered or all plain, one plain heading a parent (7.4.4). Chromium tags what the DOM
 * and its ARIA roles say: an <li> in an <article>, a role="cell" in a <div> or a <figure> around a decorative
 * image are the document's, so each is reported, not rewritten.
 */
import type { PdfFile } from './pdf-file.js';
import { isDict, nameOf, type PdfDict, PdfRaw, PdfRef, type PdfValue, stringText } from './pdf-objects.js';

const STANDARD = new Set(
  (
    'Document Part Art Sect Div BlockQuote Caption TOC TOCI Index NonStruct Private P H H1 H2 H3 H4 H5 H6 L LI Lbl LBody ' +
    'Table TR TH TD THead TBody TFoot Span Quote Note Reference BibEntry Code Link Annot Ruby RB RT RP Warichu WT WP ' +
    'Figure Formula Form'
  ).split(' '),
);
/** Deepest structure tree read, and most elements; a tree past either is not checked, so not claimed. */
const MAX_DEPTH = 256;
const MAX_ELEMENTS = 200_000;
/** Role map steps followed to a standard type. */
const MAX_ROLE_STEPS = 16;

/** Where an element may sit: its type, the parents veraPDF allows it, the rule. */
const PARENTS: Record<string, { parents: string[]; clause: string }> = {
  LI: { parents: ['L'], clause: '7.2-17' },
  LBody: { parents: ['LI'], clause: '7.2-18' },
  TR: { parents: ['Table', 'THead', 'TBody', 'TFoot'], clause: '7.2-4' },
  THead: { parents: ['Table'], clause: '7.2-5' },
  TBody: { parents: ['Table'], clause: '7.2-6' },
  TFoot: { parents: ['Table'], clause: '7.2-7' },
  TH: { parents: ['TR'], clause: '7.2-8' },
  TD: { parents: ['TR'], clause: '7.2-9' },
  TOCI: { parents: ['TOC'], clause: '7.2-26' },
};
/** What an element may hold: its type, the kids veraPDF allows it, the rule. */
const KIDS: Record<string, { kids: string[]; clause: string }> = {
  Table: { kids: ['TR', 'THead', 'TBody', 'TFoot', 'Caption'], clause: '7.2-3' },
  TR: { kids: ['TH', 'TD'], clause: '7.2-10' },
  THead: { kids: ['TR'], clause: '7.2-36' },
  TBody: { kids: ['TR'], clause: '7.2-37' },
  TFoot: { kids: ['TR'], clause: '7.2-38' },
  L: { kids: ['L', 'LI', 'Caption'], clause: '7.2-19' },
  LI: { kids: ['Lbl', 'LBody'], clause: '7.2-20' },
  TOC: { kids: ['TOC', 'TOCI', 'Caption'], clause: '7.2-27' },
};
/** The HTML each type comes from, as a customer would look for it. */
const HTML: Record<string, string> = {
  LI: 'list item (<li>, role="listitem")',
  L: 'list (<ul>, <ol>, role="list")',
  LBody: 'list item body',
  TR: 'table row (<tr>, role="row")',
  Table: 'table (<table>, role="table")',
  TH: 'header cell (<th>, role="columnheader" or "rowheader")',
  TD: 'table cell (<td>, role="cell")',
  THead: 'table head (<thead>)',
  TBody: 'table body (<tbody>)',
  TFoot: 'table foot (<tfoot>)',
  TOC: 'table of contents',
  TOCI: 'table of contents entry',
  Figure: 'figure (<figure>, <svg>, <canvas>, role="img" or role="figure")',
  Caption: 'caption (<caption>, <figcaption>)',
};

/** A structure fact PDF/UA-1 does not allow: the rule, where, in words a customer can act on; `count` of its kind. */
export interface StructureBreak {
  clause: string;
  element: string;
  message: string;
  count: number;
}

const words = (type: string): string => HTML[type] ?? `${type} element`;

/** Reads the structure tree for every rule of the module comment; the first break of each rule, counted. */
export function structureBreaks(file: PdfFile): StructureBreak[] {
  const catalog = file.catalog().value;
  const root = file.dict(catalog.get('StructTreeRoot'));
  if (!root) return [];
  const roleMap = file.dict(root.get('RoleMap'));
  const standard = (type: string): string | undefined => {
    let t = type;
    for (let i = 0; i < MAX_ROLE_STEPS && !STANDARD.has(t); i++) {
      const next = nameOf(roleMap?.get(t));
      if (next === undefined || next === t) return undefined;
      t = next;
    }
    return STANDARD.has(t) ? t : undefined;
  };
  const pageNumber = new Map(file.pages().map((num, i) => [num, i + 1]));
  const found = new Map<string, StructureBreak>();
  // Only the first break of a rule is described (its page looked up); the others are counted.
  const report = (clause: string, element: () => string, message: string): void => {
    const known = found.get(clause);
    if (known) known.count += 1;
    else found.set(clause, { clause, element: element(), message, count: 1 });
  };
  const seen = new Set<number>();
  let elements = 0;
  let tooLarge = false;
  let plainHeadings = 0;
  let numberedHeadings = 0;
  const typeCount = new Map<string, number>();

  const kidsOf = (el: PdfDict): Array<{ value: PdfValue; el: PdfDict }> =>
    file.kids(el.get('K')).flatMap((kid) => {
      const child = kid instanceof PdfRef || isDict(kid) ? file.dict(kid) : undefined;
      return child?.has('S') ? [{ value: kid, el: child }] : [];
    });
  // The page an element shows on: its own /Pg, else its first kid's (marked content or element).
  const pageOf = (el: PdfDict, budget = { nodes: 64 }): number | undefined => {
    const pg = el.get('Pg');
    if (pg instanceof PdfRef && pageNumber.has(pg.num)) return pageNumber.get(pg.num);
    for (const kid of file.kids(el.get('K'))) {
      if (--budget.nodes < 0) return undefined;
      const child = kid instanceof PdfRef || isDict(kid) ? file.dict(kid) : undefined;
      const page = child ? pageOf(child, budget) : undefined;
      if (page !== undefined) return page;
    }
    return undefined;
  };
  const where = (type: string, el: PdfDict): string => {
    const n = typeCount.get(type);
    const page = pageOf(el);
    return `${n === undefined ? type : `${type} ${n}`}${page === undefined ? '' : ` (page ${page})`}`;
  };

  const walk = (value: PdfValue, el: PdfDict, parent: string | undefined, depth: number): void => {
    if (depth > MAX_DEPTH || elements >= MAX_ELEMENTS) {
      tooLarge = true;
      return;
    }
    if (value instanceof PdfRef) {
      if (seen.has(value.num)) return;
      seen.add(value.num);
    }
    elements++;
    const type = standard(nameOf(el.get('S')) ?? '');
    const kids = kidsOf(el);
    const kidTypes = kids.map((k) => standard(nameOf(k.el.get('S')) ?? '') ?? '');
    if (type) {
      typeCount.set(type, (typeCount.get(type) ?? 0) + 1);
      const placed = PARENTS[type];
      if (placed && !placed.parents.includes(parent ?? ''))
        report(
          placed.clause,
          () => where(type, el),
          `A ${words(type)} sits ${parent ? `in a ${words(parent)}` : 'outside any other element'}, not in a ` +
            `${placed.parents.map(words).join(' or ')}, so a screen reader cannot tell what it belongs to: ` +
            `put it in one, or make it a plain element (a <div> or <p>, or remove the role)`,
        );
      const allowed = KIDS[type];
      const stray = allowed ? kidTypes.find((t) => !allowed.kids.includes(t)) : undefined;
      if (allowed && stray !== undefined)
        report(
          allowed.clause,
          () => where(type, el),
          `A ${words(type)} holds a ${stray ? words(stray) : 'non-standard element'}, and PDF/UA lets it hold only ` +
            `${allowed.kids.map(words).join(', ')}: move that content out of it, or into one of those`,
        );
      tableKids(type, el, kidTypes);
      if (type === 'Figure' && !hasAlternative(file, el))
        report(
          '7.3-1',
          () => where(type, el),
          `A ${words(type)} has no alternative text, which a screen reader reads instead of it: give the image alt="…" ` +
            'or the element aria-label="…" (a <figure> around an image with alt="" needs its own aria-label, or ' +
            'aria-hidden="true" when it is only decoration)',
        );
      if (type === 'H') plainHeadings++;
      if (/^H[1-6]$/.test(type)) numberedHeadings++;
    }
    if (kidTypes.filter((t) => t === 'H').length > 1)
      report(
        '7.4.4-1',
        () => where(type ?? 'element', el),
        'An element holds more than one heading without a level (role="heading" with no aria-level from 1 to 6): ' +
          'give each heading a level (h1–h6, or aria-level)',
      );
    for (const kid of kids) walk(kid.value, kid.el, type, depth + 1);
  };

  // The rules on a table's own kids besides their types: one head, one foot, a body beside them, a caption at an end.
  const tableKids = (type: string, el: PdfDict, kidTypes: string[]): void => {
    if (type === 'Table') {
      const count = (t: string) => kidTypes.filter((k) => k === t).length;
      const captionAt = kidTypes.indexOf('Caption');
      const rule =
        count('THead') > 1
          ? '7.2-11'
          : count('TFoot') > 1
            ? '7.2-12'
            : count('TFoot') > 0 && count('TBody') === 0
              ? '7.2-13'
              : count('THead') > 0 && count('TBody') === 0
                ? '7.2-14'
                : count('Caption') > 1
                  ? '7.2-39'
                  : captionAt > 0 && captionAt < kidTypes.length - 1
                    ? '7.2-16'
                    : undefined;
      if (rule)
        report(
          rule,
          () => where(type, el),
          'A table has its head, body, foot or caption in a way PDF/UA does not allow (one <thead>, one <tfoot>, ' +
            'a <tbody> beside them, one <caption> first or last): write it as one <table> of that shape',
        );
    }
    if ((type === 'L' || type === 'TOC') && kidTypes.lastIndexOf('Caption') > 0)
      report(
        type === 'L' ? '7.2-40' : '7.2-28',
        () => where(type, el),
        `A ${words(type)} has a caption that is not its first part: move it before the items`,
      );
  };

  for (const kid of file.kids(root.get('K'))) {
    const el = kid instanceof PdfRef || isDict(kid) ? file.dict(kid) : undefined;
    if (el?.has('S')) walk(kid, el, undefined, 0);
  }
  if (plainHeadings > 0 && numberedHeadings > 0)
    report(
      '7.4.4-2',
      () => 'headings',
      `The document has ${plainHeadings} heading${plainHeadings === 1 ? '' : 's'} without a level (role="heading" with no ` +
        'aria-level from 1 to 6) beside h1–h6 headings, and PDF/UA needs one kind only: give every heading a level',
    );
  if (tooLarge)
    report(
      '7.1',
      () => 'structure tree',
      `The structure tree is deeper than ${MAX_DEPTH} levels or larger than ${MAX_ELEMENTS.toLocaleString('en')} elements, ` +
        'so it could not be checked: nest the document less deeply, or split it',
    );
  return [...found.values()];
}

/** Whether a Figure has what 7.3-1 asks: a non-empty /Alt, or an /ActualText. */
function hasAlternative(file: PdfFile, el: PdfDict): boolean {
  if (el.has('ActualText')) return true;
  const alt = file.resolve(el.get('Alt'));
  return alt instanceof PdfRaw && /^[(<]/.test(alt.text) && stringText(alt.text) !== '';
}
