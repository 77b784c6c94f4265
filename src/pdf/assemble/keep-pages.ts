/**
 * A PDF with only some of its pages, possibly turned: a part's `pages` and `rotate`, and each file of a
 * split. A page taken out takes with it what points at it: its outline entries (their kept children move
 * up into their place), the named destinations and links landing on it, the open action, and the
 * structure elements whose content is all on taken-out pages (with their parent and ID tree entries).
 * Everything else is copied as the merge copies a part (part-copier.ts), so claims made of the structure
 * tree and XMP hold for what is left.
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import {
  dict,
  isDict,
  name,
  nameOf,
  type PdfDict,
  PdfName,
  PdfRaw,
  PdfRef,
  type PdfValue,
  raw,
  stringBytes,
} from '../profiles/pdf-objects.js';
import { PageSelectionError, pageIndexes } from './page-ranges.js';
import { pagesOf } from './pages-and-outline.js';
import { PartCopier } from './part-copier.js';
import { PdfWriter } from './pdf-writer.js';
import { AssembleInputError, damaged, readPart } from './read-part.js';
import { flatNameTree, flatNumberTree, nameKey, nameTreeEntries, numberTreeEntries } from './trees.js';

/** Quarter turns a page may be given. */
export type Rotation = 0 | 90 | 180 | 270;

/** Which pages to keep and how to turn them. */
export interface KeepPagesOptions {
  /** How errors name the document, e.g. `parts[2]`. */
  label: string;
  /** A selection as text (`"1-3,5"`), resolved against the page count; or page indexes from 0; all when absent. */
  pages?: string | readonly number[];
  /** How a selection's errors name it (default `<label>.pages`). */
  field?: string;
  /** Degrees clockwise added to each kept page's /Rotate. */
  rotate?: Rotation;
}

/** The smaller PDF and its page count. */
export interface KeptPages {
  pdf: Buffer;
  pages: number;
}

const MAX_STRUCT_DEPTH = 256;
const MAX_OUTLINE_DEPTH = 64;

/** The document with only the pages `opts.pages` selects, in its order, each turned by `opts.rotate`. */
export async function keepPages(bytes: Uint8Array, opts: KeepPagesOptions): Promise<KeptPages> {
  const file = await readPart(bytes, opts.label);
  const all = file.pages();
  const field = opts.field ?? `${opts.label}.pages`;
  const indexes =
    opts.pages === undefined
      ? all.map((_, i) => i)
      : typeof opts.pages === 'string'
        ? pageIndexes(opts.pages, all.length, field)
        : opts.pages;
  try {
    return copyKept(file, opts, new Set(indexes.map((i) => all[i])));
  } catch (error) {
    if (error instanceof AssembleInputError || error instanceof PageSelectionError) throw error;
    throw damaged(opts.label, (error as Error).message);
  }
}

/**
 * Several documents out of one (a split): each piece's pages (indexes from 0, in order) copied from one
 * reading of `bytes`, as keepPages copies them.
 */
export async function splitPages(
  bytes: Uint8Array,
  pieces: ReadonlyArray<{ label: string; pages: readonly number[] }>,
): Promise<KeptPages[]> {
  const file = await readPart(bytes, 'the assembly');
  const all = file.pages();
  return pieces.map((piece) => {
    try {
      return copyKept(file, { label: piece.label }, new Set(piece.pages.map((i) => all[i])));
    } catch (error) {
      if (error instanceof AssembleInputError) throw error;
      throw damaged(piece.label, (error as Error).message);
    }
  });
}

function copyKept(file: PdfFile, opts: KeepPagesOptions, kept: Set<number>): KeptPages {
  const out = new PdfWriter();
  const catalogRef = out.allocate();
  const pagesRef = out.allocate();
  const copier = new PartCopier(file, out, opts.label, { structParentOffset: 0, dests: new Map(), ids: new Map() });
  const catalog = file.catalog();
  copier.redirect(catalog.num, catalogRef);
  const removed = new Set(file.pages().filter((num) => !kept.has(num)));
  for (const num of removed) copier.omit(num);

  const names = file.dict(catalog.value.get('Names'));
  const namedDests = nameTreeEntries(file, names?.get('Dests'));
  const oldDests = file.dict(catalog.value.get('Dests'));
  if (oldDests) for (const [key, v] of oldDests) namedDests.push([nameKey(new PdfName(key)), v]);
  const target = destinationPages(file, namedDests);
  const lost = (value: PdfValue | undefined): boolean => {
    const page = target(value);
    return page !== undefined && removed.has(page);
  };

  const pageRefs = pagesOf(file, copier, pagesRef).filter((r) => r instanceof PdfRef);
  const droppedKeys = new Set<number>();
  const droppedAnnots = new Set<number>();
  for (const num of file.pages()) {
    const page = file.dict(new PdfRef(num, 0));
    if (!page) continue;
    if (removed.has(num)) {
      const key = file.resolve(page.get('StructParents'));
      if (key instanceof PdfRaw) droppedKeys.add(Number(key.text));
      continue;
    }
    const changed = new Map(copier.overridden(num) ?? page);
    let touched = false;
    const annots = file.resolve(page.get('Annots'));
    if (Array.isArray(annots) && removed.size > 0) {
      const left = annots.filter((a) => {
        const annot = file.dict(a);
        if (!annot || !lost(linkTarget(file, annot))) return true;
        if (a instanceof PdfRef) {
          droppedAnnots.add(a.num);
          copier.omit(a.num);
        }
        const key = file.resolve(annot.get('StructParent'));
        if (key instanceof PdfRaw) droppedKeys.add(Number(key.text));
        return false;
      });
      if (left.length !== annots.length) {
        changed.set('Annots', left);
        touched = true;
      }
    }
    if (opts.rotate) {
      const current = Number((file.resolve(changed.get('Rotate')) as PdfRaw | undefined)?.text ?? 0) || 0;
      changed.set('Rotate', raw((((current + opts.rotate) % 360) + 360) % 360));
      touched = true;
    }
    if (touched) copier.override(num, changed);
  }

  const catalogOut: PdfDict = new Map();
  for (const [key, v] of catalog.value) {
    if (['Pages', 'Outlines', 'Names', 'Dests', 'StructTreeRoot', 'OpenAction'].includes(key)) continue;
    catalogOut.set(key, copier.value(v));
  }
  catalogOut.set('Pages', pagesRef);
  const open = catalog.value.get('OpenAction');
  if (open !== undefined && !lost(isDict(file.resolve(open)) ? linkTarget(file, file.dict(open) as PdfDict) : open))
    catalogOut.set('OpenAction', copier.value(open));
  const struct = catalog.value.get('StructTreeRoot');
  if (struct instanceof PdfRef && file.dict(struct)) {
    pruneStructure(file, copier, struct, { removed, droppedAnnots, droppedKeys });
    catalogOut.set('StructTreeRoot', copier.value(struct));
  }
  const outline = copyOutline(file, copier, out, catalog.value.get('Outlines'), lost);
  if (outline) catalogOut.set('Outlines', outline);
  const namesOut: PdfDict = new Map();
  if (names) for (const [key, v] of names) if (key !== 'Dests') namesOut.set(key, copier.value(v));
  const keptDests = namedDests.filter(([, v]) => !lost(v)).map(([key, v]): [string, PdfValue] => [key, copier.value(v)]);
  if (keptDests.length) namesOut.set('Dests', out.add(flatNameTree(keptDests)));
  if (namesOut.size) catalogOut.set('Names', namesOut);

  out.set(pagesRef, dict({ Type: name('Pages'), Kids: pageRefs, Count: raw(pageRefs.length) }));
  out.set(catalogRef, catalogOut);
  const trailer: PdfDict = dict({ Root: catalogRef });
  if (file.trailer.has('Info')) trailer.set('Info', copier.value(file.trailer.get('Info')));
  copier.drain();
  const version = /^%PDF-(\d\.\d)/.exec(file.text.slice(0, 16))?.[1] ?? '1.7';
  return { pdf: out.finish(version, trailer), pages: pageRefs.length };
}

/** Where a link, outline item or open action goes: its /Dest, or its GoTo action's /D. */
function linkTarget(file: PdfFile, item: PdfDict): PdfValue | undefined {
  if (item.has('Dest')) return item.get('Dest');
  const action = file.dict(item.get('A')) ?? (nameOf(item.get('S')) === 'GoTo' ? item : undefined);
  return action && nameOf(action.get('S')) === 'GoTo' ? action.get('D') : undefined;
}

/** The page object number a destination lands on (explicit or named), if any. */
function destinationPages(file: PdfFile, named: Array<[string, PdfValue]>): (value: PdfValue | undefined) => number | undefined {
  const explicit = (value: PdfValue | undefined): number | undefined => {
    let v = file.resolve(value);
    if (isDict(v)) v = file.resolve(v.get('D'));
    return Array.isArray(v) && v[0] instanceof PdfRef ? v[0].num : undefined;
  };
  const byName = new Map<string, number | undefined>(named.map(([key, v]) => [key, explicit(v)]));
  return (value) => {
    const v = file.resolve(value);
    if (v instanceof PdfName) return byName.get(nameKey(v));
    if (v instanceof PdfRaw && /^[(<]/.test(v.text)) return byName.get(stringBytes(v.text).toString('latin1'));
    return explicit(v);
  };
}

/** What a page selection takes out, as the structure tree sees it. */
interface Removed {
  removed: Set<number>;
  droppedAnnots: Set<number>;
  /** Parent tree keys of taken-out pages and links. */
  droppedKeys: Set<number>;
}

/**
 * Takes out the structure elements whose content is all on taken-out pages (or links), and the marked
 * content and object references pointing there; the parent and ID trees lose their entries.
 */
function pruneStructure(file: PdfFile, copier: PartCopier, rootRef: PdfRef, gone: Removed): void {
  const root = file.dict(rootRef) as PdfDict;
  const dropped = new Set<number>();
  const seen = new Set<number>();
  const pageOf = (v: PdfValue | undefined): number | undefined => {
    const r = v instanceof PdfRef ? v : undefined;
    return r?.num;
  };
  /** Whether the element (or kid) stays; elements that change are overridden. */
  const visit = (kid: PdfValue, page: number | undefined, depth: number): boolean => {
    if (kid instanceof PdfRaw) return !(page !== undefined && gone.removed.has(page));
    const node = file.dict(kid);
    if (!node || depth > MAX_STRUCT_DEPTH) return true;
    const type = nameOf(node.get('Type'));
    const own = pageOf(node.get('Pg')) ?? page;
    if (type === 'MCR') return !(own !== undefined && gone.removed.has(own));
    if (type === 'OBJR') {
      const obj = node.get('Obj');
      if (obj instanceof PdfRef && gone.droppedAnnots.has(obj.num)) return false;
      return !(own !== undefined && gone.removed.has(own));
    }
    if (kid instanceof PdfRef) {
      if (seen.has(kid.num)) return !dropped.has(kid.num);
      seen.add(kid.num);
    }
    const kids = file.kids(node.get('K'));
    const left = kids.filter((k) => visit(k, own, depth + 1));
    const stays = left.length > 0 || (kids.length === 0 && !(own !== undefined && gone.removed.has(own)));
    if (!(kid instanceof PdfRef)) return stays;
    if (!stays) {
      dropped.add(kid.num);
      copier.omit(kid.num);
      return false;
    }
    const pgGone = own !== undefined && gone.removed.has(own) && node.has('Pg');
    if (left.length !== kids.length || pgGone) {
      const changed = new Map(node);
      changed.set('K', left);
      if (pgGone) changed.delete('Pg');
      copier.override(kid.num, changed);
    }
    return true;
  };
  const topKids = file.kids(root.get('K'));
  const top = topKids.filter((k) => visit(k, undefined, 0));
  const changed = new Map(root);
  changed.set('K', top);
  const parents = numberTreeEntries(file, root.get('ParentTree')).filter(([key]) => !gone.droppedKeys.has(key));
  changed.set('ParentTree', flatNumberTree(parents));
  if (root.has('IDTree')) {
    const ids = nameTreeEntries(file, root.get('IDTree')).filter(([, v]) => !(v instanceof PdfRef && dropped.has(v.num)));
    changed.set('IDTree', flatNameTree(ids));
  }
  copier.override(rootRef.num, changed);
}

/** The outline with the items landing on taken-out pages left out (their kept children take their place). */
function copyOutline(
  file: PdfFile,
  copier: PartCopier,
  out: PdfWriter,
  rootValue: PdfValue | undefined,
  lost: (value: PdfValue | undefined) => boolean,
): PdfRef | undefined {
  const root = file.dict(rootValue);
  if (!root) return undefined;
  const seen = new Set<number>();
  type Item = { ref: PdfRef; entry: PdfDict };
  /** Writes `items` as the children of `parent` (an outline item or the root) and returns `parent` with them. */
  const adopt = (parent: PdfDict, parentRef: PdfRef, items: Item[]): void => {
    items.forEach(({ ref, entry }, i) => {
      entry.set('Parent', parentRef);
      if (i > 0) entry.set('Prev', items[i - 1].ref);
      if (i < items.length - 1) entry.set('Next', items[i + 1].ref);
      out.set(ref, entry);
    });
    if (items.length === 0) return;
    parent.set('First', items[0].ref);
    parent.set('Last', items[items.length - 1].ref);
  };
  const level = (first: PdfValue | undefined, depth: number): Item[] => {
    const items: Item[] = [];
    for (let at = first; at instanceof PdfRef && !seen.has(at.num) && depth < MAX_OUTLINE_DEPTH; ) {
      seen.add(at.num);
      const node = file.dict(at);
      if (!node) break;
      const kids = level(node.get('First'), depth + 1);
      if (lost(linkTarget(file, node))) for (const kid of kids) items.push(kid);
      else {
        const entry: PdfDict = new Map();
        for (const key of ['Title', 'Dest', 'A', 'C', 'F']) if (node.has(key)) entry.set(key, copier.value(node.get(key)));
        const ref = out.allocate();
        adopt(entry, ref, kids);
        if (kids.length) {
          const open = Number((file.resolve(node.get('Count')) as PdfRaw | undefined)?.text ?? 0) > 0;
          entry.set('Count', raw(open ? kids.length : -kids.length));
        }
        items.push({ ref, entry });
      }
      at = node.get('Next');
    }
    return items;
  };
  const top = level(root.get('First'), 0);
  if (top.length === 0) return undefined;
  const rootRef = out.allocate();
  const rootOut = dict({ Type: name('Outlines'), Count: raw(top.length) });
  adopt(rootOut, rootRef, top);
  out.set(rootRef, rootOut);
  return rootRef;
}
