/**
 * A PDF with only some of its pages, possibly turned: a part's `pages` and `rotate`, and each file of a
 * split. A page taken out takes with it what points at it: its outline entries (their kept children move
 * up into their place), the named destinations and links landing on it, the open action, and the
 * structure elements whose content is all on taken-out pages (with their parent and ID tree entries).
 * Everything else is copied as the merge copies a part (part-copier.ts). The claims the caller knows the
 * document makes are checked again on what is left (kept-claims.ts): one the kept pages break (headings
 * that now start at an h2) is cut out of the XMP, and said why.
 */
import { dict, name, type PdfDict, PdfRaw, PdfRef, type PdfValue, raw } from '../profiles/pdf-objects.js';
import type { Claim, ConformanceIssue } from '../profiles/types.js';
import { KeepIndex } from './keep-index.js';
import { cutIssues, xmpWithout } from './kept-claims.js';
import { keptLabels } from './page-labels.js';
import { PageSelectionError, pageIndexes } from './page-ranges.js';
import { PartCopier } from './part-copier.js';
import { PdfWriter } from './pdf-writer.js';
import { AssembleInputError, damaged, liftedRestrictions, readPart } from './read-part.js';
import type { KeptStructure } from './struct-index.js';
import { flatNameTree } from './trees.js';

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
  /** What the caller knows the document meets (a render's claims), checked again on the kept pages; unchecked when absent. */
  claims?: readonly Claim[];
}

/** The smaller PDF, its page count, and why it no longer claims what the kept pages break of `claims`. */
export interface KeptPages {
  pdf: Buffer;
  pages: number;
  /** A `conformance` issue for each claim of `claims` the file no longer makes (taken out of its XMP), naming it by its label. */
  withheld: ConformanceIssue[];
  /** What the owner of the file read forbade that the kept file no longer does (read-part.ts `liftedRestrictions`). */
  restrictions?: string[];
}

const NULL = raw('null');

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
  const restrictions = liftedRestrictions(file);
  try {
    const kept = copyKept(new KeepIndex(file), opts, new Set(indexes.map((i) => all[i])));
    return restrictions.length > 0 ? { ...kept, restrictions: [...restrictions] } : kept;
  } catch (error) {
    if (error instanceof AssembleInputError || error instanceof PageSelectionError) throw error;
    throw damaged(opts.label, (error as Error).message);
  }
}

/** What each file of a split is checked for: the document's claims, and the pages its invoice is on. */
export interface SplitChecks {
  /** What the document is known to meet (an assembly's claims). */
  claims: readonly Claim[];
  /** The invoice's pages, the document's first ones (a Factur-X assembly's first part); every page when absent. */
  invoicePages?: number;
}

/**
 * Several documents out of one (a split): each piece's pages (indexes from 0, in order) copied from one
 * reading of `bytes`, as keepPages copies them, each checked for what `checks` claims. The document is
 * indexed once (keep-index.ts), so each piece costs what its own pages hold.
 */
export async function splitPages(
  bytes: Uint8Array,
  pieces: ReadonlyArray<{ label: string; pages: readonly number[] }>,
  checks?: SplitChecks,
): Promise<KeptPages[]> {
  const file = await readPart(bytes, 'the assembly');
  const all = file.pages();
  let index: KeepIndex | undefined;
  return pieces.map((piece) => {
    try {
      // Read in the first piece's name: what the index finds damaged, that piece was the first to meet.
      index ??= new KeepIndex(file);
      const opts = { label: piece.label, ...(checks ? { claims: checks.claims } : {}) };
      return copyKept(index, opts, new Set(piece.pages.map((i) => all[i])), checks?.invoicePages);
    } catch (error) {
      if (error instanceof AssembleInputError) throw error;
      throw damaged(piece.label, (error as Error).message);
    }
  });
}

/** The file keeping `keptSet` (page object numbers); the first `invoicePages` pages (all when undefined) are the invoice's. */
function copyKept(index: KeepIndex, opts: KeepPagesOptions, keptSet: Set<number>, invoicePages?: number): KeptPages {
  const { file, tree } = index;
  const out = new PdfWriter();
  const catalogRef = out.allocate();
  const pagesRef = out.allocate();
  const kept = [...keptSet].filter((num) => index.position.has(num));
  kept.sort((a, b) => (index.position.get(a) as number) - (index.position.get(b) as number));
  const removed = (num: number): boolean => index.position.has(num) && !keptSet.has(num);
  const someRemoved = kept.length < tree.pages.length;
  const lost = (page: number | undefined): boolean => page !== undefined && !keptSet.has(page);
  const catalog = file.catalog();
  const pageNodes = new Set(tree.nodes);
  let structure: KeptStructure | undefined;
  // What the whole document decides for each reference: looked up, not marked object by object for each file.
  const mapped = (num: number): PdfValue | undefined => {
    if (structure?.dropped(num) || removed(num)) return NULL;
    if (pageNodes.has(num)) return pagesRef;
    if (num === catalog.num) return catalogRef;
    return undefined;
  };
  const copier = new PartCopier(file, out, opts.label, { structParentOffset: 0, dests: new Map(), ids: new Map(), mapped });

  const pageRefs = kept.map((num) => copier.ref(copier.file.refTo(num))).filter((r) => r instanceof PdfRef);
  const droppedKeys = new Set<number>();
  const droppedAnnots = new Set<number>();
  for (const num of kept) {
    const page = file.dict(file.refTo(num));
    if (!page) continue;
    const changed = new Map(tree.inherited.get(num) ?? page);
    let touched = false;
    const annots = file.resolve(page.get('Annots'));
    if (Array.isArray(annots) && someRemoved) {
      const left = annots.filter((a) => {
        const annot = file.dict(a);
        if (!annot || !lost(index.pageOf(index.linkTarget(annot)))) return true;
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
      const written = Number((file.resolve(changed.get('Rotate')) as PdfRaw | undefined)?.text ?? 0);
      // A rotation is a multiple of 90; readers take any other for none, and the sum must stay a number.
      const current = Number.isInteger(written) && written % 90 === 0 ? written : 0;
      changed.set('Rotate', raw((((current + opts.rotate) % 360) + 360) % 360));
      touched = true;
    }
    if (touched || tree.inherited.has(num)) copier.override(num, changed);
  }

  structure = index.keptStructure({
    removed,
    kept,
    droppedAnnots,
    droppedKey: (key) => droppedKeys.has(key) || index.pagesWithKey(key).some(removed),
  });
  const claims = someRemoved ? opts.claims : undefined;
  const withheld = claims
    ? cutIssues(file, opts.label, {
        claims,
        structure,
        invoiceCut: claims.includes('Factur-X') && tree.pages.slice(0, invoicePages).some((num) => !keptSet.has(num)),
      })
    : [];
  const catalogOut: PdfDict = new Map();
  for (const [key, v] of catalog.value) {
    if (['Pages', 'Outlines', 'Names', 'Dests', 'StructTreeRoot', 'OpenAction'].includes(key)) continue;
    if (key === 'AcroForm' && someRemoved) {
      const left = index.form?.keptForm(copier, kept);
      if (left) catalogOut.set(key, left);
      continue;
    }
    if (key === 'PageLabels' && someRemoved) {
      const left = keptLabels(
        copier,
        index.labels,
        kept.map((num) => index.position.get(num) as number),
      );
      if (left) catalogOut.set(key, left);
      continue;
    }
    if (key === 'Metadata' && withheld.length > 0) {
      // The old packet is never copied: its claims would still be in the file's bytes.
      const xmp = xmpWithout(file, out, opts.label, withheld);
      if (xmp.ref) catalogOut.set(key, xmp.ref);
      withheld.push(...xmp.lost);
      continue;
    }
    catalogOut.set(key, copier.value(v));
  }
  catalogOut.set('Pages', pagesRef);
  const open = catalog.value.get('OpenAction');
  if (open !== undefined && !lost(index.openPage)) catalogOut.set('OpenAction', copier.value(open));
  if (structure) {
    for (const [num, value] of structure.overrides) copier.override(num, value);
    catalogOut.set('StructTreeRoot', copier.value(catalog.value.get('StructTreeRoot')));
  }
  const outline = index.outline?.copy(copier, out, kept);
  if (outline) catalogOut.set('Outlines', outline);
  const namesOut: PdfDict = new Map();
  const names = file.dict(catalog.value.get('Names'));
  if (names) for (const [key, v] of names) if (key !== 'Dests') namesOut.set(key, copier.value(v));
  const keptDests = index.keptDests(kept).map(([key, v]): [string, PdfValue] => [key, copier.value(v)]);
  if (keptDests.length) namesOut.set('Dests', out.add(flatNameTree(keptDests)));
  if (namesOut.size) catalogOut.set('Names', namesOut);

  out.set(pagesRef, dict({ Type: name('Pages'), Kids: pageRefs, Count: raw(pageRefs.length) }));
  out.set(catalogRef, catalogOut);
  const trailer: PdfDict = dict({ Root: catalogRef });
  if (file.trailer.has('Info')) trailer.set('Info', copier.value(file.trailer.get('Info')));
  copier.drain();
  const version = /^%PDF-(\d\.\d)/.exec(file.text.slice(0, 16))?.[1] ?? '1.7';
  return { pdf: out.finish(version, trailer), pages: pageRefs.length, withheld };
}
