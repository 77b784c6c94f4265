/**
 * An invoice's XML as a plain tree, read once from libxml2's document so that the business rules walk
 * JavaScript objects instead of calling into WebAssembly for every step. Elements are known by their
 * local name: a Cross Industry Invoice uses each local name in one namespace only.
 */
import type { XmlDocument, XmlElement, XmlTreeNode } from 'libxml2-wasm';

/** One element: its local name, attributes, child elements and own text. */
export interface El {
  name: string;
  attrs: Record<string, string>;
  kids: El[];
  parent: El | null;
  /** The element's direct text (XPath's string value for the leaves the rules read). */
  own: string;
}

/** The tree and an index of every element by local name, in document order (XPath's `//name`). */
export interface CiiTree {
  root: El;
  byName: Map<string, El[]>;
}

/** Reads libxml2's document into a tree (elements and text only; comments and PIs are not data). */
export function treeOf(doc: XmlDocument): CiiTree {
  const byName = new Map<string, El[]>();
  const visit = (node: XmlElement, parent: El | null): El => {
    const attrs: Record<string, string> = {};
    for (const attr of node.attrs) attrs[attr.name] = attr.value;
    const el: El = { name: node.name, attrs, kids: [], parent, own: '' };
    const list = byName.get(el.name);
    if (list) list.push(el);
    else byName.set(el.name, [el]);
    let text = '';
    for (let child: XmlTreeNode | null = node.firstChild; child; child = child.next) {
      if ('attrs' in child) el.kids.push(visit(child as XmlElement, el));
      else if ('content' in child && !('data' in child)) text += (child as unknown as { content: string }).content;
    }
    el.own = text;
    return el;
  };
  return { root: visit(doc.root, null), byName };
}

/** The elements reached from `from` by the child steps of `path` ("A/B/C"); `..` steps to the parent. */
export function all(from: El | null | undefined, path: string): El[] {
  if (!from) return [];
  let nodes: El[] = [from];
  for (const step of path.split('/')) {
    const next: El[] = [];
    for (const n of nodes) {
      if (step === '..') {
        if (n.parent && !next.includes(n.parent)) next.push(n.parent);
      } else for (const k of n.kids) if (k.name === step) next.push(k);
    }
    nodes = next;
  }
  return nodes;
}

/** The first element at `path` from `from`, or undefined. */
export function one(from: El | null | undefined, path: string): El | undefined {
  return all(from, path)[0];
}

/** XPath's string value of an element: its text and all its descendants' text. */
export function str(el: El | undefined): string {
  if (!el) return '';
  if (el.kids.length === 0) return el.own;
  let s = el.own;
  for (const k of el.kids) s += str(k);
  return s;
}

/** Whether `path` from `from` reaches an element. */
export function has(from: El | null | undefined, path: string): boolean {
  return all(from, path).length > 0;
}

/** XPath's `path != ''`: some element at `path` whose string value is not empty. */
export function filled(from: El | null | undefined, path: string): boolean {
  return all(from, path).some((e) => str(e) !== '');
}

/** XPath's `path = 'v'` (general comparison): some element at `path` has the string value `v`. */
export function anyIs(from: El | null | undefined, path: string, ...values: string[]): boolean {
  return all(from, path).some((e) => values.includes(str(e)));
}
