/**
 * PDF/UA 7.18: every link annotation sits in a Link structure element (Chromium already nests it there,
 * through /StructParent and the parent tree) and carries alternate text in /Contents, which Chromium does
 * not write: it gets the words the link covers. Pages with annotations get the tab order of the structure
 * (/Tabs /S, 7.18.3).
 *
 * Chromium writes one annotation per line a link spans, all under one Link element: the element's words are
 * read once, and each annotation gets at most MAX_LINK_TEXT characters of them, the document at most
 * MAX_LINKS_TEXT in all (then the short "Link to …"), so a link around a whole book adds kilobytes, not
 * the book once per line.
 */
import { cutText } from '../../cut-text.js';
import { legalText } from './legal-text.js';
import type { PdfFile } from './pdf-file.js';
import { isDict, name, nameOf, type PdfDict, PdfRaw, PdfRef, type PdfValue, stringText, textString } from './pdf-objects.js';

/** Deepest parent tree read; Chromium's is flat. */
const MAX_DEPTH = 16;
/** Characters of alternate text one annotation gets (a screen reader reads the link's words, not a chapter). */
export const MAX_LINK_TEXT = 200;
/** Characters of alternate text all annotations of a document get from their words; later ones get "Link to …". */
export const MAX_LINKS_TEXT = 50_000;
/** Characters of an address quoted in "Link to …". */
const MAX_ADDRESS_TEXT = 100;

/** The parent tree's entries: struct-parent key → value. */
function parentTree(file: PdfFile): Map<number, PdfValue> {
  const out = new Map<number, PdfValue>();
  const root = file.dict(file.catalog().value.get('StructTreeRoot'));
  const walk = (node: PdfDict | undefined, depth: number): void => {
    if (!node || depth > MAX_DEPTH) return;
    const nums = file.resolve(node.get('Nums'));
    if (Array.isArray(nums))
      for (let i = 0; i + 1 < nums.length; i += 2) {
        const key = nums[i];
        if (key instanceof PdfRaw) out.set(Number(key.text), nums[i + 1]);
      }
    const children = file.resolve(node.get('Kids'));
    if (Array.isArray(children)) for (const kid of children) walk(file.dict(kid), depth + 1);
  };
  walk(file.dict(root?.get('ParentTree')), 0);
  return out;
}

/** The MCIDs of a structure element and its descendants, by page object number. */
function markedContent(file: PdfFile, element: PdfDict, out: Array<[number, number]>, depth = 0): void {
  if (depth > MAX_DEPTH) return;
  const page = element.get('Pg');
  for (const kid of file.kids(element.get('K'))) {
    if (kid instanceof PdfRaw && page instanceof PdfRef) out.push([page.num, Number(kid.text)]);
    const child = file.dict(kid);
    if (!child) continue;
    const mcid = child.get('MCID');
    const pg = child.get('Pg') ?? page;
    if (mcid instanceof PdfRaw && pg instanceof PdfRef) out.push([pg.num, Number(mcid.text)]);
    else if (child.has('S')) markedContent(file, child, out, depth + 1);
  }
}

/** The alternate text of a link: the words it covers (cut to MAX_LINK_TEXT), else where it leads. */
export function linkText(file: PdfFile, annot: PdfDict, words: string | undefined): string {
  const text = words?.replace(/\s+/g, ' ').trim();
  if (text) return cutText(text, MAX_LINK_TEXT);
  const action = file.dict(annot.get('A'));
  const uri = action?.get('URI');
  if (uri instanceof PdfRaw) return `Link to ${cutText(legalText(stringText(uri.text)), MAX_ADDRESS_TEXT)}`;
  return 'Link within this document';
}

/** A link annotation and the marked content its Link structure element holds (shared by the element's annotations). */
interface Link {
  ref: PdfRef;
  annot: PdfDict;
  tagged: boolean;
  parts: Array<[number, number]>;
  /** The element's object number (0 when it has none): its words are read once for all its annotations. */
  element: number;
}

/** The links of a file, and which marked content (page object → MCIDs) their text is in. */
export interface Links {
  links: Link[];
  mcids: Map<number, Set<number>>;
  /** Pages with annotations whose tab order is not the structure's. */
  untabbed: number[];
}

/** Finds every link annotation and the marked content of its structure element. */
export function findLinks(file: PdfFile): Links {
  const tree = parentTree(file);
  const found: Links = { links: [], mcids: new Map(), untabbed: [] };
  const partsOf = new Map<unknown, Array<[number, number]>>();
  for (const pageNum of file.pages()) {
    const page = file.dict(file.refTo(pageNum));
    const annots = file.resolve(page?.get('Annots'));
    if (!page || !Array.isArray(annots) || annots.length === 0) continue;
    if (nameOf(page.get('Tabs')) !== 'S') found.untabbed.push(pageNum);
    for (const ref of annots) {
      const annot = file.dict(ref);
      if (!annot || nameOf(annot.get('Subtype')) !== 'Link' || !(ref instanceof PdfRef)) continue;
      const key = annot.get('StructParent');
      const element = key instanceof PdfRaw ? file.dict(tree.get(Number(key.text))) : undefined;
      const elementRef = key instanceof PdfRaw ? tree.get(Number(key.text)) : undefined;
      let parts = element ? partsOf.get(element) : [];
      if (element && !parts && !annot.has('Contents')) {
        parts = [];
        markedContent(file, element, parts);
        partsOf.set(element, parts);
        for (const [pg, mcid] of parts) {
          const set = found.mcids.get(pg) ?? new Set<number>();
          found.mcids.set(pg, set.add(mcid));
        }
      }
      found.links.push({
        ref,
        annot,
        tagged: nameOf(element?.get('S')) === 'Link',
        parts: parts ?? [],
        element: elementRef instanceof PdfRef ? elementRef.num : 0,
      });
    }
  }
  return found;
}

/**
 * Gives every link annotation without /Contents the words it covers (`mcidText`: page object → MCID →
 * text), and every page with annotations `/Tabs /S`. Returns how many links are not in a Link structure
 * element (they leave PDF/UA unmet).
 */
export function describeLinks(file: PdfFile, found: Links, mcidText: Map<number, Map<number, string>>): number {
  for (const pageNum of found.untabbed) {
    const page = file.dict(file.refTo(pageNum));
    if (page) file.set(pageNum, new Map(page).set('Tabs', name('S')));
  }
  let untagged = 0;
  let budget = MAX_LINKS_TEXT;
  const wordsOf = new Map<number, string>();
  for (const link of found.links) {
    if (!link.tagged) untagged++;
    if (link.annot.has('Contents')) continue;
    let words = link.element ? wordsOf.get(link.element) : undefined;
    if (words === undefined) {
      words = linkWords(link.parts, mcidText);
      if (link.element) wordsOf.set(link.element, words);
    }
    const text = linkText(file, link.annot, budget > 0 ? words : undefined);
    budget -= text.length;
    file.set(link.ref.num, new Map(link.annot).set('Contents', textString(text)));
  }
  return untagged;
}

/** The first words of a link's marked content, read only as far as one annotation's text needs. */
function linkWords(parts: Array<[number, number]>, mcidText: Map<number, Map<number, string>>): string {
  let words = '';
  for (const [pg, mcid] of parts) {
    if (words.length > MAX_LINK_TEXT * 2) break;
    words += `${mcidText.get(pg)?.get(mcid) ?? ''} `;
  }
  return legalText(words);
}

/** Whether the file has a structure tree (Chromium's tagged output). */
export function hasStructureTree(file: PdfFile): boolean {
  return isDict(file.dict(file.catalog().value.get('StructTreeRoot')));
}
