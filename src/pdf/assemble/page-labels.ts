/**
 * Page labels, the numbers a reader's page box shows (i, ii, 1, 2, A-1 …), in an assembly. A part's labels
 * follow its pages; a part without labels is numbered by its pages' places in the assembly, as a reader
 * numbers a file that has none, so no part's numbering runs on into the next. A file that keeps some pages
 * (a page selection, each file of a split) gives every kept page the label it had: a range starts again
 * wherever the pages kept are not consecutive, or the kept page before was in another range.
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import { dict, name, nameOf, type PdfDict, PdfRaw, type PdfValue, raw } from '../profiles/pdf-objects.js';
import type { PartCopier } from './part-copier.js';
import { flatNumberTree, numberTreeEntries } from './trees.js';

/** One range of a file's labels: from page index `from`, style and prefix, numbered from `start`. */
export interface LabelRange {
  from: number;
  label: PdfDict;
  start: number;
}

/** The file's label ranges on its `pages` pages, in order, or none when it has no labels. */
export function rangesOf(file: PdfFile, catalog: PdfDict, pages: number): LabelRange[] {
  const out: LabelRange[] = [];
  for (const [from, value] of numberTreeEntries(file, catalog.get('PageLabels'))) {
    const label = file.dict(value);
    if (!label || from >= pages || (out.length > 0 && from <= out[out.length - 1].from)) continue;
    const st = file.resolve(label.get('St'));
    const start = st instanceof PdfRaw && /^\d{1,9}$/.test(st.text) && Number(st.text) >= 1 ? Number(st.text) : 1;
    out.push({ from, label, start });
  }
  // Pages before the first range are numbered as a reader numbers them without labels.
  if (out.length > 0 && out[0].from > 0) out.unshift({ from: 0, label: dict({ S: name('D') }), start: 1 });
  return out;
}

/** A label dictionary of `range`'s style and prefix, numbered from `start`. */
function labelFrom(copier: PartCopier, range: LabelRange, start: number): PdfDict {
  const out: PdfDict = new Map();
  const style = copier.file.resolve(range.label.get('S'));
  if (['D', 'R', 'r', 'A', 'a'].includes(nameOf(style) ?? '')) out.set('S', style as PdfValue);
  if (range.label.has('P')) out.set('P', copier.value(range.label.get('P')));
  out.set('St', raw(start));
  return out;
}

/** Collects each part's labels as it is copied, then writes the assembly's /PageLabels. */
export class PageLabels {
  private readonly entries: Array<[number, PdfValue]> = [];
  private labelled = false;

  /** Adds the part whose `pages` pages start at the assembly's page index `first`. */
  add(file: PdfFile, copier: PartCopier, catalog: PdfDict, first: number, pages: number): void {
    const ranges = pages > 0 ? rangesOf(file, catalog, pages) : [];
    if (ranges.length === 0) {
      if (pages > 0) this.entries.push([first, dict({ S: name('D'), St: raw(first + 1) })]);
      return;
    }
    this.labelled = true;
    for (const range of ranges) this.entries.push([first + range.from, labelFrom(copier, range, range.start)]);
  }

  /** The assembly's /PageLabels, or undefined when no part had labels. */
  tree(): PdfDict | undefined {
    return this.labelled ? flatNumberTree(this.entries) : undefined;
  }
}

/**
 * The /PageLabels of a file keeping the pages at `kept` (indexes into the document's pages, rising), each
 * with the label it had there in the document's `ranges` (read once for all the files of a split), or
 * undefined when the document has no labels.
 */
export function keptLabels(copier: PartCopier, ranges: readonly LabelRange[], kept: readonly number[]): PdfDict | undefined {
  if (ranges.length === 0) return undefined;
  const entries: Array<[number, PdfValue]> = [];
  // `kept` rises, so the range each page is in only moves forward.
  let r = 0;
  kept.forEach((index, i) => {
    const before = r;
    while (r + 1 < ranges.length && ranges[r + 1].from <= index) r++;
    if (i > 0 && kept[i - 1] === index - 1 && r === before) return;
    const range = ranges[r];
    entries.push([i, labelFrom(copier, range, range.start + index - range.from)]);
  });
  return flatNumberTree(entries);
}
