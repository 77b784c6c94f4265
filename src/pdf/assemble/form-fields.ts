/**
 * Interactive form fields in an assembly. Every page keeps its widgets, but a field is a field only when
 * the catalog's /AcroForm lists it: without that, no reader lets it be filled, and one that draws a field
 * from its value (/NeedAppearances) shows it empty. So the merge lists in one /AcroForm every part's fields
 * that have a widget on its pages, renaming a top-level field whose name an earlier part took (`name` →
 * `name-2`), since fields of one name are one field with one value. A file that keeps some pages (a page
 * selection, each file of a split) lists only the fields with a widget on them: the others' values are not
 * its own to carry. No signature field is listed (see FormIndex). Scripts and submit actions are taken out
 * before (active-content.ts); the calculation order and XFA, which only scripts use, are left out.
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import { dict, nameOf, type PdfDict, PdfRaw, PdfRef, type PdfValue, stringText, textString } from '../profiles/pdf-objects.js';
import type { PartCopier } from './part-copier.js';

const MAX_DEPTH = 32;

/** Collects each part's fields as it is copied, then writes the assembly's /AcroForm. */
export class FormFields {
  private readonly fields: PdfValue[] = [];
  private readonly taken = new Set<string>();
  private readonly fonts: PdfDict = new Map();
  private readonly firsts: PdfDict = new Map();
  private needAppearances = false;

  /** Adds the fields of part `partNumber` (from 1), through the copier that copies its pages (call before it drains). */
  add(file: PdfFile, copier: PartCopier, catalog: PdfDict, partNumber: number): void {
    const form = file.dict(catalog.get('AcroForm'));
    if (!form) return;
    const names = new Set<string>();
    const pages = file.pages();
    for (const field of new FormIndex(file, form, pages).fieldsOn(copier, pages)) {
      const node = field instanceof PdfRef ? file.dict(field) : undefined;
      if (!(field instanceof PdfRef) || !node) continue;
      this.fields.push(copier.value(field));
      const title = file.resolve(node.get('T'));
      if (!(title instanceof PdfRaw) || !/^[(<]/.test(title.text)) continue;
      const name = stringText(title.text);
      let unique = name;
      for (let n = partNumber; this.taken.has(unique); n++) unique = `${name}-${n}`;
      names.add(unique);
      if (unique !== name) copier.override(field.num, new Map(copier.overridden(field.num) ?? node).set('T', textString(unique)));
    }
    for (const name of names) this.taken.add(name);
    const fonts = file.dict(file.dict(form.get('DR'))?.get('Font'));
    // The first part to name a font keeps it: a later part's field that names it draws in that font.
    if (fonts) for (const [key, v] of fonts) if (!this.fonts.has(key)) this.fonts.set(key, copier.value(v));
    for (const key of ['DA', 'Q']) if (form.has(key) && !this.firsts.has(key)) this.firsts.set(key, copier.value(form.get(key)));
    const need = file.resolve(form.get('NeedAppearances'));
    if (need instanceof PdfRaw && need.text === 'true') this.needAppearances = true;
  }

  /** The assembly's /AcroForm, or undefined when no part had a field. */
  form(): PdfDict | undefined {
    if (this.fields.length === 0) return undefined;
    const out: PdfDict = dict({ Fields: this.fields });
    if (this.fonts.size) out.set('DR', dict({ Font: this.fonts }));
    for (const [key, v] of this.firsts) out.set(key, v);
    if (this.needAppearances) out.set('NeedAppearances', new PdfRaw('true'));
    return out;
  }
}

/**
 * A document's form read once for all the files a split makes of it: the widgets on each page, and where
 * each field stands in the field tree. A file's fields are then found from its own pages' widgets up, so
 * its cost is its own widgets, not the whole form (a split of 1,000 parts with 10 fields each walked
 * 10,000 fields for each of the 1,000 files: 8.8 s). A signature field is never kept: the widget another
 * signer's signature shows on is taken out (active-content.ts), and the field would still name the signer
 * in a reader's signature panel.
 */
export class FormIndex {
  private readonly fields: PdfValue[];
  private readonly widgetsOn = new Map<number, number[]>();
  /** Each field tree node's parent node, its place among that parent's kids, and its top-level field. */
  private readonly parent = new Map<number, number>();
  private readonly place = new Map<number, number>();
  private readonly top = new Map<number, number>();
  /** How many kids each node has. */
  private readonly kids = new Map<number, number>();

  constructor(
    private readonly file: PdfFile,
    readonly form: PdfDict,
    pages: readonly number[],
  ) {
    for (const num of pages) {
      const widgets: number[] = [];
      for (const annot of file.array(file.dict(file.refTo(num))?.get('Annots')))
        if (annot instanceof PdfRef && nameOf(file.dict(annot)?.get('Subtype')) === 'Widget') widgets.push(annot.num);
      if (widgets.length) this.widgetsOn.set(num, widgets);
    }
    this.fields = file.array(form.get('Fields'));
    const seen = new Set<number>();
    const walk = (ref: PdfValue, top: number, depth: number): boolean => {
      if (!(ref instanceof PdfRef) || seen.has(ref.num) || depth > MAX_DEPTH) return false;
      seen.add(ref.num);
      const node = file.dict(ref);
      if (!node || nameOf(file.resolve(node.get('FT'))) === 'Sig') return false;
      this.top.set(ref.num, top);
      const kids = file.array(node.get('Kids'));
      this.kids.set(ref.num, kids.length);
      kids.forEach((kid, i) => {
        if (walk(kid, top, depth + 1)) {
          this.parent.set((kid as PdfRef).num, ref.num);
          this.place.set((kid as PdfRef).num, i);
        }
      });
      return true;
    };
    this.fields.forEach((field, i) => {
      walk(field, i, 0);
    });
  }

  /**
   * The top-level fields with a widget on `pages` (object numbers), in the form's order; a field some of
   * whose kids are on other pages gets only the kids that are on these, through the copier.
   */
  fieldsOn(copier: PartCopier, pages: readonly number[]): PdfValue[] {
    const tops = new Set<number>();
    const keptKids = new Map<number, Set<number>>();
    for (const page of pages)
      for (const widget of this.widgetsOn.get(page) ?? []) {
        const top = this.top.get(widget);
        if (top === undefined) continue;
        tops.add(top);
        // Up to the first node already kept: what is above it is kept already.
        for (let node = widget, up = this.parent.get(node); up !== undefined; node = up, up = this.parent.get(node)) {
          const kept = keptKids.get(up) ?? new Set<number>();
          if (kept.has(node)) break;
          keptKids.set(up, kept.add(node));
        }
      }
    for (const [num, kept] of keptKids) {
      if (kept.size === this.kids.get(num)) continue;
      const kids = [...kept].sort((a, b) => (this.place.get(a) as number) - (this.place.get(b) as number));
      const node = this.file.dict(this.file.refTo(num)) as PdfDict;
      copier.override(
        num,
        new Map(copier.overridden(num) ?? node).set(
          'Kids',
          kids.map((kid) => this.file.refTo(kid)),
        ),
      );
    }
    return [...tops].sort((a, b) => a - b).map((i) => this.fields[i]);
  }

  /** The /AcroForm of a file that keeps `pages` (object numbers): their fields, or undefined when none is left. */
  keptForm(copier: PartCopier, pages: readonly number[]): PdfValue | undefined {
    const fields = this.fieldsOn(copier, pages);
    if (fields.length === 0) return undefined;
    return copier.value(new Map(this.form).set('Fields', fields));
  }
}
