/**
 * Name trees and number trees (ISO 32000 7.9.6, 7.9.7) read flat from a part and written flat into the
 * assembly: the assembly's trees hold a few thousand entries at most, which one node carries well. A part's
 * tree is read once per node: a node reached a second time (a loop, or a subtree listed twice) makes the
 * part damaged, since walking it again would double the work at every level.
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import { type PdfDict, type PdfName, PdfRaw, PdfRef, type PdfValue, raw, stringBytes } from '../profiles/pdf-objects.js';

const MAX_DEPTH = 32;

/** A tree's nodes as a walk reaches them, each node once (a second visit throws). */
function nodesOf(file: PdfFile, root: PdfValue | undefined, what: string): PdfDict[] {
  const out: PdfDict[] = [];
  const seen = new Set<number>();
  const walk = (value: PdfValue | undefined, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (value instanceof PdfRef) {
      if (seen.has(value.num)) throw new Error(`the ${what} reaches object ${value.num} twice`);
      seen.add(value.num);
    }
    const node = file.dict(value);
    if (!node) return;
    out.push(node);
    const kids = file.resolve(node.get('Kids'));
    if (Array.isArray(kids)) for (const kid of kids) walk(kid, depth + 1);
  };
  walk(root, 0);
  return out;
}

/** A name tree's entries in order, keys as byte strings (latin1). */
export function nameTreeEntries(file: PdfFile, root: PdfValue | undefined): Array<[string, PdfValue]> {
  const out: Array<[string, PdfValue]> = [];
  for (const node of nodesOf(file, root, 'name tree')) {
    const names = file.resolve(node.get('Names'));
    if (Array.isArray(names))
      for (let i = 0; i + 1 < names.length; i += 2) {
        const key = names[i];
        if (key instanceof PdfRaw) out.push([stringBytes(key.text).toString('latin1'), names[i + 1]]);
      }
  }
  return out;
}

/** A number tree's entries in order. */
export function numberTreeEntries(file: PdfFile, root: PdfValue | undefined): Array<[number, PdfValue]> {
  const out: Array<[number, PdfValue]> = [];
  for (const node of nodesOf(file, root, 'number tree')) {
    const nums = file.resolve(node.get('Nums'));
    if (Array.isArray(nums))
      for (let i = 0; i + 1 < nums.length; i += 2) {
        const key = nums[i];
        if (key instanceof PdfRaw && /^\d+$/.test(key.text)) out.push([Number(key.text), nums[i + 1]]);
      }
  }
  return out;
}

/** The key a name object (or a name as written, such as a dictionary key) stands for, `#xx` escapes decoded, as a byte string. */
export function nameKey(value: PdfName | string): string {
  return (typeof value === 'string' ? value : value.name).replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/** A byte string written as a PDF hex string. */
export function hexString(key: string): PdfRaw {
  return raw(`<${Buffer.from(key, 'latin1').toString('hex')}>`);
}

/** A flat name tree node from entries (sorted by key bytes, as the tree requires). */
export function flatNameTree(entries: Array<[string, PdfValue]>): PdfDict {
  const sorted = [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return new Map<string, PdfValue>([['Names', sorted.flatMap(([key, value]) => [hexString(key), value])]]);
}

/** A flat number tree node from entries (sorted by key). */
export function flatNumberTree(entries: Array<[number, PdfValue]>): PdfDict {
  const sorted = [...entries].sort((a, b) => a[0] - b[0]);
  return new Map<string, PdfValue>([['Nums', sorted.flatMap(([key, value]) => [raw(key), value])]]);
}

/** A key made unique against `taken` (`name`, then `name-2`, `name-3`…, before any extension). */
export function uniqueKey(key: string, taken: Set<string>, hint: number): string {
  if (!taken.has(key)) return key;
  const dot = key.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [key.slice(0, dot), key.slice(dot)] : [key, ''];
  for (let n = hint; ; n++) {
    const candidate = `${stem}-${n}${ext}`;
    if (!taken.has(candidate)) return candidate;
  }
}
