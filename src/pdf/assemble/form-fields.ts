/**
 * Interactive form fields in an assembly. Every page keeps its widgets, but a field is a field only when
 * the catalog's /AcroForm lists it: without that, no reader lets it be filled, and one that draws a field
 * from its value (/NeedAppearances) shows it empty. So the merge lists in one /AcroForm every part's fields
 * that have a widget on its pages, renaming a top-level field whose name an earlier part took (`name` →
 * `name-2`), since fields of one name are one field with one value. A file that keeps some pages (a page
 * selection, each file of a split) lists only the fields with a widget on them: the others' values are not
 * its own to carry. No signature field is listed (see fieldsWith). Scripts and submit actions are taken out
 * before (active-content.ts); the calculation order and XFA, which only scripts use, are left out.
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import { dict, nameOf, type PdfDict, PdfRaw, PdfRef, type PdfValue, stringText, textString } from '../profiles/pdf-objects.js';
import type { PartCopier } from './part-copier.js';

const MAX_DEPTH = 32;

/** The part's array at `value`, or nothing: a hostile file may put anything there. */
function arrayOf(file: PdfFile, value: PdfValue | undefined): PdfValue[] {
  const resolved = file.resolve(value);
  return Array.isArray(resolved) ? resolved : [];
}

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
    for (const field of fieldsWith(file, copier, form, widgetsOn(file, file.pages()))) {
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
 * The top-level fields of `form` with a widget among `widgets` (annotation object numbers), each field's
 * kids cut to those through the copier. A signature field is never kept: the widget another signer's
 * signature shows on is taken out (active-content.ts), and the field would still name the signer in a
 * reader's signature panel.
 */
function fieldsWith(file: PdfFile, copier: PartCopier, form: PdfDict, widgets: ReadonlySet<number>): PdfValue[] {
  const seen = new Set<number>();
  // Whether the field at `ref` keeps a widget; a field whose kids are cut gets its kids overridden.
  const keeps = (ref: PdfValue, depth: number): boolean => {
    if (!(ref instanceof PdfRef) || seen.has(ref.num) || depth > MAX_DEPTH) return false;
    seen.add(ref.num);
    const node = file.dict(ref);
    if (!node || nameOf(file.resolve(node.get('FT'))) === 'Sig') return false;
    if (widgets.has(ref.num)) return true;
    const kids = arrayOf(file, node.get('Kids'));
    const left = kids.filter((kid) => keeps(kid, depth + 1));
    if (left.length > 0 && left.length < kids.length)
      copier.override(ref.num, new Map(copier.overridden(ref.num) ?? node).set('Kids', left));
    return left.length > 0;
  };
  return arrayOf(file, form.get('Fields')).filter((field) => keeps(field, 0));
}

/** The /AcroForm of a file that keeps `pages` (object numbers) of `file`: their fields, or undefined when none is left. */
export function keptForm(file: PdfFile, copier: PartCopier, form: PdfDict, pages: readonly number[]): PdfValue | undefined {
  const fields = fieldsWith(file, copier, form, widgetsOn(file, pages));
  if (fields.length === 0) return undefined;
  const out = new Map(form);
  out.set('Fields', fields);
  return copier.value(out);
}

/** The widgets on `pages` (object numbers): their /Annots entries that are references to widget annotations. */
function widgetsOn(file: PdfFile, pages: readonly number[]): Set<number> {
  const out = new Set<number>();
  for (const num of pages)
    for (const annot of arrayOf(file, file.dict(file.refTo(num))?.get('Annots'))) {
      if (annot instanceof PdfRef && nameOf(file.dict(annot)?.get('Subtype')) === 'Widget') out.add(annot.num);
    }
  return out;
}
