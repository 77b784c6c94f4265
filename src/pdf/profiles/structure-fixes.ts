/**
 * Where Chromium's structure tree says what the document meant in a way PDF/UA-1 (on PDF 1.7) does not
 * accept, it is said again in standard terms, never changing what is read or in which order:
 * - types PDF 1.7 does not define (`Aside`, from HTML's <aside>) get a RoleMap entry (7.1-5);
 * - a nested list or paragraph sits in its item's LBody, not directly in the LI (7.2-20);
 * - what a list holds besides lists, items and a caption (a <div> or <p> inside <ul>) becomes an item of
 *   its own, LI > LBody around it (7.2-19: an L holds only L, LI and Caption); text directly in the list
 *   (no element around it) cannot be moved without renumbering its marked content, so it is counted;
 * - a <figure> that groups an image with alt text and its caption is a Div around them, since a Figure
 *   element needs its own alternate text (7.3-1) and the image inside already has one.
 */
import type { PdfFile } from './pdf-file.js';
import { dict, name, nameOf, type PdfDict, PdfRef, type PdfValue } from './pdf-objects.js';

const STANDARD = new Set(
  (
    'Document Part Art Sect Div BlockQuote Caption TOC TOCI Index NonStruct Private P H H1 H2 H3 H4 H5 H6 L LI Lbl LBody ' +
    'Table TR TH TD THead TBody TFoot Span Quote Note Reference BibEntry Code Link Annot Ruby RB RT RP Warichu WT WP ' +
    'Figure Formula Form'
  ).split(' '),
);
/** Types of HTML's (and PDF 2.0's) vocabulary that read as inline text; every other unknown type groups blocks. */
const INLINE = new Set(['Strong', 'Em', 'Sub', 'Sup', 'Mark', 'Abbr', 'Small']);
const MAX_DEPTH = 256;
/** What a list item may hold (7.2-20), and what a list may (7.2-19). */
const ITEM_PARTS = new Set(['Lbl', 'LBody']);
const LIST_PARTS = new Set(['L', 'LI', 'Caption']);

interface Element {
  ref: PdfRef;
  value: PdfDict;
}

/** What the fixes could not settle: lists holding content outside any element (7.2-19). */
export interface StructureLeft {
  looseListContent: number;
}

/** Applies the fixes (changed objects are replaced in `file`'s update); returns what they could not settle. */
export function fixStructure(file: PdfFile): StructureLeft {
  const left: StructureLeft = { looseListContent: 0 };
  const catalog = file.catalog().value;
  const rootRef = catalog.get('StructTreeRoot');
  const root = file.dict(rootRef);
  if (!root || !(rootRef instanceof PdfRef)) return left;
  const roleMap: PdfDict = new Map(file.dict(root.get('RoleMap')) ?? []);
  const unknown = new Set<string>();
  const edited = new Map<number, PdfDict>();
  const current = (el: Element): PdfDict => edited.get(el.ref.num) ?? el.value;
  const edit = (el: Element, key: string, value: PdfValue): void => {
    edited.set(el.ref.num, new Map(current(el)).set(key, value));
  };

  const children = (value: PdfDict): Element[] => {
    const out: Element[] = [];
    for (const kid of file.kids(value.get('K'))) {
      const child = kid instanceof PdfRef ? file.dict(kid) : undefined;
      if (kid instanceof PdfRef && child?.has('S')) out.push({ ref: kid, value: child });
    }
    return out;
  };

  const walk = (el: Element, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    const type = nameOf(el.value.get('S')) ?? '';
    if (!STANDARD.has(type) && !roleMap.has(type)) unknown.add(type);
    const inner = children(el.value);
    if (type === 'LI') nestLists(el, inner);
    if ((nameOf(roleMap.get(type)) ?? type) === 'L') wrapListContent(el);
    if (type === 'Figure' && !el.value.has('Alt') && inner.some((c) => nameOf(c.value.get('S')) === 'Figure'))
      edit(el, 'S', name('Div'));
    for (const child of inner) walk(child, depth + 1);
  };

  // What an LI holds besides Lbl and LBody (a nested L, a P) moves into its LBody (a new one when it has none).
  const nestLists = (li: Element, inner: Element[]): void => {
    const lists = inner.filter((c) => !ITEM_PARTS.has(nameOf(c.value.get('S')) ?? ''));
    if (lists.length === 0) return;
    const kidsOf = file.kids(li.value.get('K'));
    const body = inner.find((c) => nameOf(c.value.get('S')) === 'LBody');
    if (body) {
      edit(body, 'K', [...file.kids(current(body).get('K')), ...lists.map((l) => l.ref)]);
      edit(
        li,
        'K',
        kidsOf.filter((k) => !(k instanceof PdfRef && lists.some((l) => l.ref.num === k.num))),
      );
      for (const l of lists) edit(l, 'P', body.ref);
      return;
    }
    const wrapper = file.add(dict({ Type: name('StructElem'), S: name('LBody'), P: li.ref, K: lists.map((l) => l.ref) }));
    for (const l of lists) edit(l, 'P', wrapper);
    const first = kidsOf.findIndex((k) => k instanceof PdfRef && lists.some((l) => l.ref.num === k.num));
    const rest = kidsOf.filter((k) => !(k instanceof PdfRef && lists.some((l) => l.ref.num === k.num)));
    rest.splice(first, 0, wrapper);
    edit(li, 'K', rest);
  };

  // Each run of kids a list may not hold becomes one item: LI > LBody > the kids, in place.
  const wrapListContent = (list: Element): void => {
    const kids = file.kids(current(list).get('K'));
    const typeOf = (kid: PdfValue): string | undefined => {
      const child = kid instanceof PdfRef ? file.dict(kid) : undefined;
      const type = child?.has('S') ? (nameOf(child.get('S')) ?? '') : undefined;
      return type === undefined ? undefined : (nameOf(roleMap.get(type)) ?? type);
    };
    if (kids.every((kid) => LIST_PARTS.has(typeOf(kid) ?? 'L'))) {
      left.looseListContent += kids.filter((kid) => typeOf(kid) === undefined).length;
      return;
    }
    const out: PdfValue[] = [];
    let run: PdfRef[] = [];
    const flush = (): void => {
      if (run.length === 0) return;
      const item = file.add(dict({}));
      const body = file.add(dict({ Type: name('StructElem'), S: name('LBody'), P: item, K: run }));
      file.set(item.num, dict({ Type: name('StructElem'), S: name('LI'), P: list.ref, K: [body] }));
      for (const ref of run) {
        const child = file.dict(ref);
        if (child) edited.set(ref.num, new Map(edited.get(ref.num) ?? child).set('P', body));
      }
      out.push(item);
      run = [];
    };
    for (const kid of kids) {
      const type = typeOf(kid);
      if (type === undefined) left.looseListContent += 1;
      if (kid instanceof PdfRef && type !== undefined && !LIST_PARTS.has(type)) run.push(kid);
      else {
        flush();
        out.push(kid);
      }
    }
    flush();
    edit(list, 'K', out);
  };

  for (const kid of file.kids(root.get('K'))) {
    const value = kid instanceof PdfRef ? file.dict(kid) : undefined;
    if (kid instanceof PdfRef && value) walk({ ref: kid, value }, 0);
  }
  for (const [num, value] of edited) file.set(num, value);
  if (unknown.size === 0) return left;
  for (const type of unknown) if (type !== '') roleMap.set(type, name(INLINE.has(type) ? 'Span' : 'Div'));
  const rootValue = new Map(root);
  rootValue.set('RoleMap', roleMap);
  file.set(rootRef.num, rootValue);
  return left;
}
