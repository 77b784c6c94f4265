/**
 * The structure tree of a document read once for all the files a split makes of it. An element stays in a
 * file when some of its content (a marked-content ID, MCR or OBJR) is on a page the file keeps, when some
 * content is on no page, or when it has no kids and is on no page taken out; the parent and ID trees keep
 * the entries of what stays. Walking the whole tree for each file made a split quadratic (501 files of a
 * 1,001-page tagged print: 27 s; 0.8 s so). Here the walk is done once, each content item is filed under
 * its page, and a file starts from what stays when no page is kept and follows only its own pages'
 * content up to the root: its cost is its own pages' elements, and the elements every file keeps. A
 * parent tree entry whose elements all go is left out (it was written as null).
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import { nameOf, type PdfDict, PdfRaw, PdfRef, type PdfValue } from '../profiles/pdf-objects.js';
import { flatNameTree, flatNumberTree, nameTreeEntries, numberTreeEntries } from './trees.js';

const MAX_STRUCT_DEPTH = 256;

/**
 * A document's structure tree root: what its catalog names as /StructTreeRoot when that is a /Type
 * /StructTreeRoot dictionary. Anything else named there (a page, a font) is no structure tree, and a copy
 * that took it for one would put the assembly's own root in that object's place in its other role too.
 */
export function structRootOf(file: PdfFile, catalog: PdfDict): PdfDict | undefined {
  const root = file.dict(catalog.get('StructTreeRoot'));
  return nameOf(root?.get('Type')) === 'StructTreeRoot' ? root : undefined;
}
/** The place of an element's own page among its kids: an element without kids stays as that page does. */
const OWN_PAGE = -1;

/** A kid that stays or goes with the file's pages: its element and its place among that element's kids. */
interface Place {
  el: number;
  at: number;
}

/** An element as the walk from the root first meets it (element 0 is the root). */
interface Element {
  /** Its object number when it is met by reference (then a file leaves it out or changes it). */
  num: number | undefined;
  node: PdfDict;
  kids: PdfValue[];
  /** Its page (its /Pg, else its parent's) when that is a page, for the /Pg a file drops with the page. */
  page: number | undefined;
  /** Where the element is a kid: where the walk first met it, and where it met it again after its walk. */
  up: Place[];
  /** Kids that stay when the file keeps no page, by place. */
  base: number[];
  /** Whether it stays when the file keeps no page. */
  stays: boolean;
}

/** What stays of the structure in one file: elements left out, elements changed, and the root. */
export interface KeptStructure {
  /** Whether an object is an element the file leaves out (references to it become null). */
  dropped(num: number): boolean;
  /** Elements whose kids or /Pg change, and the root, as the file writes them. */
  overrides: Array<[number, PdfDict]>;
}

/** What a file takes out, as the structure tree sees it. */
export interface TakenOut {
  /** Whether object `num` is a page the file takes out. */
  removed(num: number): boolean;
  /** The pages the file keeps. */
  kept: readonly number[];
  /** Link annotations on kept pages that the file takes out (they go to a page taken out). */
  droppedAnnots: ReadonlySet<number>;
  /** Whether a parent tree key belongs to a page or annotation taken out. */
  droppedKey(key: number): boolean;
}

/** A document's structure tree, walked once (see the file's comment). */
export class StructIndex {
  private readonly elements: Element[] = [];
  private readonly byNum = new Map<number, number>();
  /** Content on each page: it stays when the page is kept (and its annotation, for an OBJR, is not dropped). */
  private readonly onPage = new Map<number, Array<Place & { annot?: number }>>();
  /** OBJRs on no page, by annotation: they stay unless the file drops the annotation. */
  private readonly ofAnnot = new Map<number, Place[]>();
  /** Elements that stay when no page is kept and are changed even then (kids left out, or a /Pg). */
  private readonly baseChanged: number[] = [];
  private readonly parents: Entries<number>;
  private readonly ids: Entries<string> | undefined;

  constructor(
    file: PdfFile,
    private readonly rootNum: number,
    isPage: (num: number) => boolean,
  ) {
    const root = file.dict(file.refTo(rootNum)) as PdfDict;
    const rootEl = this.add(undefined, root, file.kids(root.get('K')), undefined);
    const walking = new Set<number>();
    /** Files content on page `page` under `place`; whether it stays when no page is kept. */
    const onPage = (page: number | undefined, place: Place, annot?: number): boolean => {
      if (page === undefined || !isPage(page)) {
        if (annot === undefined) return true;
        push(this.ofAnnot, annot, place);
        return true;
      }
      push(this.onPage, page, annot === undefined ? place : { ...place, annot });
      return false;
    };
    // The same walk, in the same order, as a file's own walk made: what it met first, where, and how deep.
    const visit = (kid: PdfValue, page: number | undefined, depth: number, place: Place): boolean => {
      if (kid instanceof PdfRaw) return onPage(page, place);
      const node = file.dict(kid);
      if (!node || depth > MAX_STRUCT_DEPTH) return true;
      const type = nameOf(node.get('Type'));
      const pg = node.get('Pg');
      const own = pg instanceof PdfRef ? pg.num : page;
      if (type === 'MCR') return onPage(own, place);
      if (type === 'OBJR') {
        const obj = node.get('Obj');
        return onPage(own, place, obj instanceof PdfRef ? obj.num : undefined);
      }
      if (kid instanceof PdfRef) {
        const met = this.byNum.get(kid.num);
        if (met !== undefined) {
          // Met again inside its own walk it stays (its walk has not decided yet); after, it goes as it does.
          if (walking.has(kid.num)) return true;
          this.elements[met].up.push(place);
          return this.elements[met].stays;
        }
      }
      const el = this.add(kid instanceof PdfRef ? kid.num : undefined, node, file.kids(node.get('K')), place);
      const element = this.elements[el];
      element.page = own !== undefined && isPage(own) ? own : undefined;
      if (element.num !== undefined) walking.add(element.num);
      element.kids.forEach((k, at) => {
        if (visit(k, own, depth + 1, { el, at })) element.base.push(at);
      });
      if (element.num !== undefined) walking.delete(element.num);
      element.stays = element.base.length > 0 || (element.kids.length === 0 && onPage(own, { el, at: OWN_PAGE }));
      const changed = element.base.length !== element.kids.length || (element.page !== undefined && node.has('Pg'));
      if (element.stays && element.num !== undefined && changed) this.baseChanged.push(el);
      return element.stays;
    };
    this.elements[rootEl].kids.forEach((k, at) => {
      if (visit(k, undefined, 0, { el: rootEl, at })) this.elements[rootEl].base.push(at);
    });
    const baseStays = (el: number) => this.elements[el].stays;
    this.parents = entries(numberTreeEntries(file, root.get('ParentTree')), (v) => this.elementsOf(v, true), baseStays);
    this.ids = root.has('IDTree')
      ? entries(nameTreeEntries(file, root.get('IDTree')), (v) => this.elementsOf(v, false), baseStays)
      : undefined;
  }

  private add(num: number | undefined, node: PdfDict, kids: PdfValue[], place: Place | undefined): number {
    const el = this.elements.length;
    this.elements.push({ num, node, kids, page: undefined, up: place ? [place] : [], base: [], stays: false });
    if (num !== undefined) this.byNum.set(num, el);
    return el;
  }

  /**
   * The elements a parent or ID tree value points at, when it points at nothing else: a reference to an
   * element, or (`arrays`) an array of them and nulls. Such an entry goes when they all go; others stay.
   */
  private elementsOf(value: PdfValue, arrays: boolean): number[] | undefined {
    const one = (v: PdfValue): number | undefined => (v instanceof PdfRef ? this.byNum.get(v.num) : undefined);
    if (value instanceof PdfRef) {
      const el = one(value);
      return el === undefined ? undefined : [el];
    }
    if (!arrays || !Array.isArray(value)) return undefined;
    const els: number[] = [];
    for (const v of value) {
      if (v instanceof PdfRaw && v.text === 'null') continue;
      const el = one(v);
      if (el === undefined) return undefined;
      els.push(el);
    }
    return els.length ? els : undefined;
  }

  /** What stays of the structure in a file that takes out what `gone` says. */
  keep(gone: TakenOut): KeptStructure {
    const els = this.elements;
    // Per element: its kids that stay now and did not when no page was kept (true), or the reverse (false).
    const flips = new Map<number, Map<number, boolean>>();
    const count = new Map<number, number>();
    const stays = (el: number): boolean => (flips.has(el) ? (count.get(el) as number) > 0 : els[el].stays);
    const flip = (place: Place, now: boolean): void => {
      const { el, at } = place;
      let mine = flips.get(el);
      if (!mine) {
        mine = new Map();
        flips.set(el, mine);
        const element = els[el];
        count.set(el, element.base.length + (element.kids.length === 0 && element.stays ? 1 : 0));
      }
      const before = stays(el);
      if (mine.has(at)) mine.delete(at);
      else mine.set(at, now);
      count.set(el, (count.get(el) as number) + (now ? 1 : -1));
      const after = stays(el);
      if (before !== after) for (const up of els[el].up) flip(up, after);
    };
    for (const annot of gone.droppedAnnots) for (const place of this.ofAnnot.get(annot) ?? []) flip(place, false);
    for (const page of gone.kept)
      for (const place of this.onPage.get(page) ?? [])
        if (place.annot === undefined || !gone.droppedAnnots.has(place.annot)) flip(place, true);

    const overrides: Array<[number, PdfDict]> = [];
    const left = (el: number): PdfValue[] => {
      const { kids, base } = els[el];
      const mine = flips.get(el);
      if (!mine?.size) return base.map((at) => kids[at]);
      const places = base.filter((at) => mine.get(at) !== false);
      for (const [at, now] of mine) if (now && at !== OWN_PAGE) places.push(at);
      return places.sort((a, b) => a - b).map((at) => kids[at]);
    };
    for (const el of new Set([...this.baseChanged, ...flips.keys()])) {
      const { num, node, kids, page } = els[el];
      if (el === 0 || num === undefined || !stays(el)) continue;
      const kept = left(el);
      const pgGone = page !== undefined && gone.removed(page) && node.has('Pg');
      if (kept.length === kids.length && !pgGone) continue;
      const changed = new Map(node);
      changed.set('K', kept);
      if (pgGone) changed.delete('Pg');
      overrides.push([num, changed]);
    }

    const staying = [...flips.keys()].filter((el) => el !== 0 && stays(el) && !els[el].stays);
    const root = new Map(els[0].node);
    root.set('K', left(0));
    root.set('ParentTree', flatNumberTree(this.parents.kept(staying, stays, (key) => !gone.droppedKey(key))));
    if (this.ids) root.set('IDTree', flatNameTree(this.ids.kept(staying, stays, () => true)));
    overrides.push([this.rootNum, root]);
    return {
      dropped: (num) => {
        const el = this.byNum.get(num);
        return el !== undefined && !stays(el);
      },
      overrides,
    };
  }
}

/**
 * The structure of a file that keeps every page: every element stays as it is, and only the root is
 * written again, its parent and ID trees flat as in any other file.
 */
export function wholeStructure(file: PdfFile, rootNum: number): KeptStructure {
  const root = file.dict(file.refTo(rootNum)) as PdfDict;
  const changed = new Map(root);
  changed.set('K', file.kids(root.get('K')));
  changed.set('ParentTree', flatNumberTree(numberTreeEntries(file, root.get('ParentTree'))));
  if (root.has('IDTree')) changed.set('IDTree', flatNameTree(nameTreeEntries(file, root.get('IDTree'))));
  return { dropped: () => false, overrides: [[rootNum, changed]] };
}

/** A parent or ID tree's entries, each kept by a file as the elements it points at are (see `elementsOf`). */
interface Entries<K> {
  /** The entries a file keeps, in the tree's order; `staying` are the elements it keeps that no-page-kept does not. */
  kept(staying: readonly number[], stays: (el: number) => boolean, keyStays: (key: K) => boolean): Array<[K, PdfValue]>;
}

function entries<K>(
  list: Array<[K, PdfValue]>,
  elementsOf: (value: PdfValue) => number[] | undefined,
  baseStays: (el: number) => boolean,
): Entries<K> {
  const of = new Map<number, number[]>();
  const on = list.map(([, value]) => elementsOf(value));
  // What every file looks at: entries on no element, and entries on elements that stay when no page is kept.
  const usual: number[] = [];
  on.forEach((els, i) => {
    if (!els || els.some(baseStays)) usual.push(i);
    if (els) for (const el of new Set(els)) push(of, el, i);
  });
  return {
    kept(staying, stays, keyStays) {
      const picked = new Set(usual);
      for (const el of staying) for (const i of of.get(el) ?? []) picked.add(i);
      return [...picked]
        .sort((a, b) => a - b)
        .filter((i) => keyStays(list[i][0]) && (on[i]?.some(stays) ?? true))
        .map((i) => list[i]);
    },
  };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
