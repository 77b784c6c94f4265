/**
 * A document's outline in a file that keeps some of its pages: the items going to a page taken out are left
 * out, their kept children taking their place. The outline is walked once for all the files of a split;
 * each item is filed under the page it goes to, and a file looks only at its own pages' items and the
 * items going to no page.
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import { dict, name, type PdfDict, type PdfRaw, PdfRef, type PdfValue, raw } from '../profiles/pdf-objects.js';
import type { PartCopier } from './part-copier.js';
import type { PdfWriter } from './pdf-writer.js';

const MAX_OUTLINE_DEPTH = 64;

/** An outline item as the walk met it: items are numbered in that order, each after its parent. */
interface OutlineItem {
  node: PdfDict;
  /** Its parent item, or -1 for the outline's root. */
  parent: number;
}

/** A document's outline, walked once (see the file's comment). */
export class OutlineIndex {
  private readonly items: OutlineItem[] = [];
  /** Items going to no page: every file keeps them. */
  private readonly always: number[] = [];
  private readonly onPage = new Map<number, number[]>();

  /** `pageOf` is the page an item goes to, when it goes to a page. */
  constructor(
    private readonly file: PdfFile,
    root: PdfDict,
    pageOf: (item: PdfDict) => number | undefined,
  ) {
    const seen = new Set<number>();
    const level = (first: PdfValue | undefined, depth: number, parent: number): void => {
      for (let at = first; at instanceof PdfRef && !seen.has(at.num) && depth < MAX_OUTLINE_DEPTH; ) {
        seen.add(at.num);
        const node = file.dict(at);
        if (!node) break;
        const item = this.items.length;
        this.items.push({ node, parent });
        const page = pageOf(node);
        if (page === undefined) this.always.push(item);
        else {
          const list = this.onPage.get(page);
          if (list) list.push(item);
          else this.onPage.set(page, [item]);
        }
        level(node.get('First'), depth + 1, item);
        at = node.get('Next');
      }
    };
    level(root.get('First'), 0, -1);
  }

  /** The outline of a file keeping `kept` (page object numbers), written into `out`; undefined when no item is left. */
  copy(copier: PartCopier, out: PdfWriter, kept: readonly number[]): PdfRef | undefined {
    const picked = new Set(this.always);
    for (const page of kept) for (const item of this.onPage.get(page) ?? []) picked.add(item);
    const children = new Map<number, number[]>();
    for (const item of [...picked].sort((a, b) => a - b)) {
      let parent = this.items[item].parent;
      while (parent >= 0 && !picked.has(parent)) parent = this.items[parent].parent;
      const list = children.get(parent);
      if (list) list.push(item);
      else children.set(parent, [item]);
    }
    // Children are written before their parent, as the file's own outline is read: numbers follow that order.
    const write = (item: number): Written => {
      const kids = (children.get(item) ?? []).map(write);
      const { node } = this.items[item];
      const entry: PdfDict = new Map();
      for (const key of ['Title', 'Dest', 'A', 'C', 'F']) if (node.has(key)) entry.set(key, copier.value(node.get(key)));
      const ref = out.allocate();
      adopt(out, entry, ref, kids);
      if (kids.length) {
        const open = Number((this.file.resolve(node.get('Count')) as PdfRaw | undefined)?.text ?? 0) > 0;
        entry.set('Count', raw(open ? kids.length : -kids.length));
      }
      return { ref, entry };
    };
    const top = (children.get(-1) ?? []).map(write);
    if (top.length === 0) return undefined;
    const rootRef = out.allocate();
    const rootOut = dict({ Type: name('Outlines'), Count: raw(top.length) });
    adopt(out, rootOut, rootRef, top);
    out.set(rootRef, rootOut);
    return rootRef;
  }
}

type Written = { ref: PdfRef; entry: PdfDict };

/** Writes `items` as the children of `parent` (an outline item or the root). */
function adopt(out: PdfWriter, parent: PdfDict, parentRef: PdfRef, items: Written[]): void {
  items.forEach(({ ref, entry }, i) => {
    entry.set('Parent', parentRef);
    if (i > 0) entry.set('Prev', items[i - 1].ref);
    if (i < items.length - 1) entry.set('Next', items[i + 1].ref);
    out.set(ref, entry);
  });
  if (items.length === 0) return;
  parent.set('First', items[0].ref);
  parent.set('Last', items[items.length - 1].ref);
}
