/**
 * A part's pages, as leaves of the assembly's one page tree (attributes they inherited from the part's
 * tree written onto them), and its entry in the assembly's outline, with the part's own outline under it.
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import {
  dict,
  name,
  nameOf,
  type PdfDict,
  PdfRaw,
  PdfRef,
  type PdfValue,
  raw,
  stringText,
  textString,
} from '../profiles/pdf-objects.js';
import type { PartCopier } from './part-copier.js';
import type { PdfWriter } from './pdf-writer.js';

const INHERITED = ['Resources', 'MediaBox', 'CropBox', 'Rotate'];
const MAX_DEPTH = 32;

/** A part's page tree: its pages in order, its page tree nodes, and the pages that inherit attributes (written onto them). */
export interface PageTree {
  pages: number[];
  nodes: number[];
  inherited: Map<number, PdfDict>;
}

/** The part's page tree as a copy sees it (see PageTree). */
export function pageTreeOf(file: PdfFile): PageTree {
  const tree: PageTree = { pages: [], nodes: [], inherited: new Map() };
  const seen = new Set<number>();
  const walk = (ref: PdfValue | undefined, inherited: Map<string, PdfValue>, depth: number): void => {
    if (!(ref instanceof PdfRef) || depth > MAX_DEPTH) return;
    // Each node once (PdfFile.pages, run when the part was opened, refuses a tree that reaches one twice).
    if (seen.has(ref.num)) throw new Error(`the page tree reaches object ${ref.num} twice`);
    seen.add(ref.num);
    const node = file.dict(ref);
    if (!node) return;
    if (nameOf(node.get('Type')) === 'Pages') {
      tree.nodes.push(ref.num);
      const here = new Map(inherited);
      for (const key of INHERITED) if (node.has(key)) here.set(key, node.get(key) as PdfValue);
      const kids = file.resolve(node.get('Kids'));
      if (Array.isArray(kids)) for (const kid of kids) walk(kid, here, depth + 1);
      return;
    }
    const missing = INHERITED.filter((key) => !node.has(key) && inherited.has(key));
    if (missing.length)
      tree.inherited.set(ref.num, new Map([...node, ...missing.map((k) => [k, inherited.get(k)] as [string, PdfValue])]));
    tree.pages.push(ref.num);
  };
  walk(file.catalog().value.get('Pages'), new Map(), 0);
  return tree;
}

/** The part's pages in order, as the assembly's references; its page tree nodes become `pagesRef`. */
export function pagesOf(file: PdfFile, copier: PartCopier, pagesRef: PdfRef): PdfValue[] {
  const tree = pageTreeOf(file);
  for (const num of tree.nodes) copier.redirect(num, pagesRef, 'a page tree node');
  for (const [num, page] of tree.inherited) copier.override(num, page);
  return tree.pages.map((num) => copier.ref(copier.file.refTo(num)));
}

/** The part's outline entry (links, Prev/Next and its place under the root are set by the caller). */
export function outlineItem(
  file: PdfFile,
  copier: PartCopier,
  out: PdfWriter,
  opts: { catalog: PdfDict; outlinesRef: PdfRef; firstPage: PdfValue | undefined; title: PdfRaw },
): { ref: PdfRef; entry: PdfDict } {
  const ref = out.allocate();
  const entry = dict({ Title: opts.title, Parent: opts.outlinesRef });
  if (opts.firstPage instanceof PdfRef) entry.set('Dest', [opts.firstPage, name('Fit')]);
  const own = opts.catalog.get('Outlines');
  const root = file.dict(own);
  if (own instanceof PdfRef && root?.get('First') instanceof PdfRef) {
    copier.redirect(own.num, ref, 'the outline root');
    entry.set('First', copier.value(root.get('First')));
    entry.set('Last', copier.value(root.get('Last') ?? root.get('First')));
    // Closed: the count is minus what opening it shows (the part's own root count, else its top-level items).
    // A count is believed only when the file has the bytes for that many items (an item takes more than one).
    const claimed = Math.abs(Number((file.resolve(root.get('Count')) as PdfRaw | undefined)?.text ?? 0));
    const count = Number.isSafeInteger(claimed) && claimed > 0 && claimed <= file.bytes.length ? claimed : siblings(file, root);
    entry.set('Count', raw(-count));
  }
  return { ref, entry };
}

/** The top-level items of a part's outline, counted along /Next until an item comes back (a loop) or the list ends. */
function siblings(file: PdfFile, root: PdfDict): number {
  const seen = new Set<number>();
  for (let ref = root.get('First'); ref instanceof PdfRef && !seen.has(ref.num); ref = file.dict(ref)?.get('Next')) {
    if (!file.dict(ref)) break;
    seen.add(ref.num);
  }
  return seen.size;
}

/** The title of a part's outline entry: the caller's, else the part's Info /Title, else `Part N`. */
export function titleOf(given: string | undefined, file: PdfFile, index: number): PdfRaw {
  if (given?.trim()) return textString(given.trim());
  const info = file.dict(file.trailer.get('Info'));
  const title = file.resolve(info?.get('Title'));
  if (title instanceof PdfRaw && /^[(<]/.test(title.text) && stringText(title.text).trim()) return title;
  return textString(`Part ${index + 1}`);
}

/** Adds a part's RoleMap or ClassMap entries not yet in `into` (the first part to name a key keeps it). */
export function mergeInto(into: PdfDict, from: PdfDict | undefined, copier: PartCopier): void {
  if (!from) return;
  for (const [key, v] of from) if (!into.has(key)) into.set(key, copier.value(v));
}

/** New names for a part's keys that earlier parts took (`terms` → `terms-2`); every final key is marked taken. */
export function renames(entries: Array<[string, PdfValue]>, taken: Set<string>, partNumber: number): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key] of entries) {
    if (out.has(key)) continue;
    let unique = key;
    for (let n = partNumber; taken.has(unique); n++) unique = `${key}-${n}`;
    if (unique !== key) out.set(key, unique);
    taken.add(unique);
  }
  return out;
}
