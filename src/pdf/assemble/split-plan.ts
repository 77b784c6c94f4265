/**
 * How a split cuts an assembly into files: one per part (named by its title), one per `every` pages, or one
 * per range given (`"1-3"`, `"4-"`), each file named by what it holds. Pure: page counts in, pieces out.
 */
import { safeFileName } from '../zip-files.js';
import { PageSelectionError, pageIndexes } from './page-ranges.js';

/** A split as the request writes it. */
export type SplitSpec = 'parts' | { every: number } | { ranges: readonly string[] };

/** One file of a split: its name in the zip and its pages (indexes from 0, in order). */
export interface SplitPiece {
  name: string;
  pages: number[];
}

/** Most files one split makes. */
export const MAX_SPLIT_FILES = 5000;

/** The pieces of an assembly of `pages` pages whose parts have `parts` (title and page count, in order). */
export function splitPlan(spec: SplitSpec, pages: number, parts: ReadonlyArray<{ title: string; pages: number }>): SplitPiece[] {
  const pieces: SplitPiece[] = [];
  const span = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + i);
  const pagesName = (list: number[]): string =>
    list.length === 1 ? `page-${list[0] + 1}` : `pages-${list[0] + 1}-${list[list.length - 1] + 1}`;
  if (spec === 'parts') {
    let at = 0;
    parts.forEach((part, k) => {
      pieces.push({ name: safeFileName(part.title, `part-${k + 1}`), pages: span(at, part.pages) });
      at += part.pages;
    });
  } else if ('every' in spec) {
    const files = Math.ceil(pages / spec.every);
    if (files > MAX_SPLIT_FILES)
      throw new PageSelectionError('split.every', `${files} files is more than the limit of ${MAX_SPLIT_FILES}`);
    for (let at = 0; at < pages; at += spec.every) {
      const list = span(at, Math.min(spec.every, pages - at));
      pieces.push({ name: pagesName(list), pages: list });
    }
  } else {
    spec.ranges.forEach((range, i) => {
      const list = pageIndexes(range, pages, `split.ranges[${i}]`);
      const contiguous = list[list.length - 1] - list[0] === list.length - 1;
      pieces.push({ name: contiguous ? pagesName(list) : safeFileName(`pages ${range}`, `range-${i + 1}`), pages: list });
    });
  }
  const taken = new Set<string>();
  return pieces.map((piece) => {
    let name = `${piece.name}.pdf`;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${piece.name}-${n}.pdf`;
    taken.add(name.toLowerCase());
    return { ...piece, name };
  });
}
