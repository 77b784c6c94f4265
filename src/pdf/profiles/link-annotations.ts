/**
 * PDF/UA 7.18: every link annotation sits in a Link structure element (Chromium already nests it there,
 * through /StructParent and the parent tree) and carries alternate text in /Contents, which Chromium does
 * not write: it gets the words the link covers. Pages with annotations get the tab order of the structure
 * (/Tabs /S, 7.18.3).
 */
import type { PdfFile } from './pdf-file.js';
import { isDict, name, nameOf, type PdfDict, PdfRaw, PdfRef, type PdfValue, stringText, textString } from './pdf-objects.js';

/** Deepest parent tree read; Chromium's is flat. */
const MAX_DEPTH = 16;

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

/** The alternate text of a link: the words it covers, else where it leads. */
export function linkText(file: PdfFile, annot: PdfDict, words: string | undefined): string {
  const text = words?.replace(/\s+/g, ' ').trim();
  if (text) return text;
  const action = file.dict(annot.get('A'));
  const uri = action?.get('URI');
  if (uri && !isDict(uri) && !Array.isArray(uri) && 'text' in uri) return `Link to ${stringText(uri.text)}`;
  return 'Link within this document';
}

/** A link annotation and the marked content its Link structure element holds. */
interface Link {
  ref: PdfRef;
  annot: PdfDict;
  tagged: boolean;
  parts: Array<[number, number]>;
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
  for (const pageNum of file.pages()) {
    const page = file.dict(new PdfRef(pageNum, 0));
    const annots = file.resolve(page?.get('Annots'));
    if (!page || !Array.isArray(annots) || annots.length === 0) continue;
    if (nameOf(page.get('Tabs')) !== 'S') found.untabbed.push(pageNum);
    for (const ref of annots) {
      const annot = file.dict(ref);
      if (!annot || nameOf(annot.get('Subtype')) !== 'Link' || !(ref instanceof PdfRef)) continue;
      const key = annot.get('StructParent');
      const element = key instanceof PdfRaw ? file.dict(tree.get(Number(key.text))) : undefined;
      const parts: Array<[number, number]> = [];
      if (element && !annot.has('Contents')) markedContent(file, element, parts);
      for (const [pg, mcid] of parts) {
        const set = found.mcids.get(pg) ?? new Set<number>();
        found.mcids.set(pg, set.add(mcid));
      }
      found.links.push({ ref, annot, tagged: nameOf(element?.get('S')) === 'Link', parts });
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
    const page = file.dict(new PdfRef(pageNum, 0));
    if (page) file.set(pageNum, new Map(page).set('Tabs', name('S')));
  }
  let untagged = 0;
  for (const link of found.links) {
    if (!link.tagged) untagged++;
    if (link.annot.has('Contents')) continue;
    const words = link.parts.map(([pg, mcid]) => mcidText.get(pg)?.get(mcid) ?? '').join(' ');
    file.set(link.ref.num, new Map(link.annot).set('Contents', textString(linkText(file, link.annot, words))));
  }
  return untagged;
}

/** Whether the file has a structure tree (Chromium's tagged output). */
export function hasStructureTree(file: PdfFile): boolean {
  return isDict(file.dict(file.catalog().value.get('StructTreeRoot')));
}
