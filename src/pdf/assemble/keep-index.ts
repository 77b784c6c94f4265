/**
 * What keeping some pages of a document needs to know of the whole of it, read once: its page tree, where
 * its named destinations, outline items and open action go, and its structure tree (struct-index.ts). A
 * split makes hundreds of files of one document; each looks up its own pages here instead of walking the
 * document again.
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import { isDict, nameOf, type PdfDict, PdfName, PdfRaw, PdfRef, type PdfValue, stringBytes } from '../profiles/pdf-objects.js';
import { FormIndex } from './form-fields.js';
import { OutlineIndex } from './kept-outline.js';
import { type LabelRange, rangesOf } from './page-labels.js';
import { type PageTree, pageTreeOf } from './pages-and-outline.js';
import { type KeptStructure, StructIndex, structRootOf, type TakenOut, wholeStructure } from './struct-index.js';
import { nameKey, nameTreeEntries } from './trees.js';

/** A document read for keeping some of its pages (see the file's comment). */
export class KeepIndex {
  readonly tree: PageTree;
  /** Each page's place in the document. */
  readonly position: Map<number, number>;
  /** The named destinations: the name tree's, then the catalog's /Dests. */
  private readonly dests: Array<[string, PdfValue]>;
  /** Destinations by the page they go to. */
  private readonly destsOn = new Map<number, number[]>();
  /** Destinations going to no page: every file keeps them. */
  private readonly destsAlways: number[] = [];
  /** The structure tree root's object number, when the document is tagged. */
  private readonly structRoot: number | undefined;
  private struct: StructIndex | undefined;
  private formIndex: FormIndex | null | undefined;
  private labelRanges: LabelRange[] | undefined;
  readonly outline: OutlineIndex | undefined;
  /** The page the catalog's open action goes to. */
  readonly openPage: number | undefined;
  private readonly keyPages = new Map<number, number[]>();
  private readonly byName: Map<string, number | undefined>;

  constructor(readonly file: PdfFile) {
    this.tree = pageTreeOf(file);
    this.position = new Map(this.tree.pages.map((num, i) => [num, i]));
    const catalog = file.catalog().value;
    const named = nameTreeEntries(file, file.dict(catalog.get('Names'))?.get('Dests'));
    const oldDests = file.dict(catalog.get('Dests'));
    if (oldDests) for (const [key, v] of oldDests) named.push([nameKey(new PdfName(key)), v]);
    this.byName = new Map(named.map(([key, v]) => [key, this.explicitPage(v)]));
    this.dests = named;
    named.forEach(([, value], i) => {
      const page = this.pageOf(value);
      if (page === undefined) this.destsAlways.push(i);
      else push(this.destsOn, page, i);
    });
    for (const num of this.tree.pages) {
      const key = file.resolve(file.dict(file.refTo(num))?.get('StructParents'));
      if (key instanceof PdfRaw) push(this.keyPages, Number(key.text), num);
    }
    const open = catalog.get('OpenAction');
    this.openPage =
      open === undefined
        ? undefined
        : this.pageOf(isDict(file.resolve(open)) ? this.linkTarget(file.dict(open) as PdfDict) : open);
    const struct = catalog.get('StructTreeRoot');
    this.structRoot = struct instanceof PdfRef && structRootOf(file, catalog) ? struct.num : undefined;
    const outline = file.dict(catalog.get('Outlines'));
    this.outline = outline && new OutlineIndex(file, outline, (item) => this.pageOf(this.linkTarget(item)));
  }

  /** The named destinations a file keeping `kept` keeps (those going to its pages or to no page), in the document's order. */
  keptDests(kept: readonly number[]): Array<[string, PdfValue]> {
    const picked = new Set(this.destsAlways);
    for (const page of kept) for (const i of this.destsOn.get(page) ?? []) picked.add(i);
    return [...picked].sort((a, b) => a - b).map((i) => this.dests[i]);
  }

  /** What stays of the structure tree in a file that takes out what `gone` says; undefined when the document has none. */
  keptStructure(gone: TakenOut): KeptStructure | undefined {
    if (this.structRoot === undefined) return undefined;
    // Every page kept keeps every element as it is (the metadata's rewrite): nothing to index.
    if (gone.kept.length === this.tree.pages.length) return wholeStructure(this.file, this.structRoot);
    this.struct ??= new StructIndex(this.file, this.structRoot, (num) => this.position.has(num));
    return this.struct.keep(gone);
  }

  /** The document's form, read once (null when it has none). */
  get form(): FormIndex | null {
    if (this.formIndex === undefined) {
      const form = this.file.dict(this.file.catalog().value.get('AcroForm'));
      this.formIndex = form ? new FormIndex(this.file, form, this.tree.pages) : null;
    }
    return this.formIndex;
  }

  /** The document's page label ranges, read once. */
  get labels(): readonly LabelRange[] {
    this.labelRanges ??= rangesOf(this.file, this.file.catalog().value, this.tree.pages.length);
    return this.labelRanges;
  }

  /** The pages whose /StructParents is `key`. */
  pagesWithKey(key: number): readonly number[] {
    return this.keyPages.get(key) ?? [];
  }

  /** Where a link, outline item or open action goes: its /Dest, or its GoTo action's /D. */
  linkTarget(item: PdfDict): PdfValue | undefined {
    if (item.has('Dest')) return item.get('Dest');
    const action = this.file.dict(item.get('A')) ?? (nameOf(item.get('S')) === 'GoTo' ? item : undefined);
    return action && nameOf(action.get('S')) === 'GoTo' ? action.get('D') : undefined;
  }

  /** The page a destination (explicit or named) goes to, when it goes to a page of the document. */
  pageOf(value: PdfValue | undefined): number | undefined {
    const v = this.file.resolve(value);
    let page: number | undefined;
    if (v instanceof PdfName) page = this.byName.get(nameKey(v));
    else if (v instanceof PdfRaw && /^[(<]/.test(v.text)) page = this.byName.get(stringBytes(v.text).toString('latin1'));
    else page = this.explicitPage(v);
    return page !== undefined && this.position.has(page) ? page : undefined;
  }

  private explicitPage(value: PdfValue | undefined): number | undefined {
    let v = this.file.resolve(value);
    if (isDict(v)) v = this.file.resolve(v.get('D'));
    return Array.isArray(v) && v[0] instanceof PdfRef ? v[0].num : undefined;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
