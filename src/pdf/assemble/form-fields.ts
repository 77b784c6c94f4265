/**
 * Interactive form fields in an assembly. Every page keeps its widgets, but a field is a field only when
 * the catalog's /AcroForm lists it: without that, no reader lets it be filled, and one that draws a field
 * from its value (/NeedAppearances) shows it empty. So the merge lists in one /AcroForm every part's fields
 * that have a widget on its pages, renaming a top-level field whose name an earlier part took (`name` →
 * `name-2`), since fields of one name are one field with one value. A file that keeps some pages (a page
 * selection, each file of a split) lists only the fields with a widget on them: the others' values are not
 * its own to carry. A field a reader redraws is drawn from its /DA and the form's /DR fonts, so each part's
 * fields keep naming their own part's font (renamed where an earlier part gave the name another) and its
 * form-wide /DA and /Q. No signature field is listed (see FormIndex). Scripts and submit actions are taken out
 * before (active-content.ts); the calculation order and XFA, which only scripts use, are left out.
 */
import type { PdfFile } from '../profiles/pdf-file.js';
import {
  dict,
  isDict,
  nameOf,
  type PdfDict,
  PdfName,
  PdfRaw,
  PdfRef,
  type PdfValue,
  serialize,
  stringBytes,
  stringText,
  textString,
} from '../profiles/pdf-objects.js';
import type { PartCopier } from './part-copier.js';
import { nameKey } from './trees.js';

const MAX_DEPTH = 32;

/** Collects each part's fields as it is copied, then writes the assembly's /AcroForm. */
export class FormFields {
  private readonly fields: PdfValue[] = [];
  private readonly taken = new Set<string>();
  /** The assembly's /DR fonts, and what each is (fontIdentity), to tell a later part's font of one name apart. */
  private readonly fonts: PdfDict = new Map();
  private readonly fontIdentities = new Map<string, string | undefined>();
  /** The first form's /DA and /Q, which every field that has none of its own takes. */
  private firsts: { da?: string; q: string; copied: PdfDict } | undefined;
  private needAppearances = false;

  /** Adds the fields of part `partNumber` (from 1), through the copier that copies its pages (call before it drains). */
  add(file: PdfFile, copier: PartCopier, catalog: PdfDict, partNumber: number): void {
    const form = file.dict(catalog.get('AcroForm'));
    if (!form) return;
    const pages = file.pages();
    const index = new FormIndex(file, form, pages);
    const da = byteText(file.resolve(form.get('DA')));
    const named = index.fontsNamed();
    for (const font of fontsIn(da ?? '')) named.add(font);
    const renamed = this.addFonts(file, copier, form, partNumber, named);
    if (renamed.size) index.rewriteDa(copier, (text) => renameFonts(text, renamed));
    const ownDa = da === undefined ? undefined : renameFonts(da, renamed);
    // Alignment is 0, 1 or 2; anything else reads as 0 (and is never written back as it stood).
    const qValue = file.resolve(form.get('Q'));
    const q = qValue instanceof PdfRaw && /^[0-2]$/.test(qValue.text) ? qValue.text : '0';
    if (!this.firsts) {
      const copied: PdfDict = new Map();
      for (const key of ['DA', 'Q']) if (form.has(key)) copied.set(key, copier.value(form.get(key)));
      this.firsts = { da: ownDa, q, copied };
    }
    // A field without its own /DA or /Q takes the form's: where this part's differ from the assembly's,
    // its top-level fields get its own, so a reader that redraws them draws them as the part did.
    const inherited: PdfDict = new Map();
    if (ownDa !== undefined && ownDa !== this.firsts.da) inherited.set('DA', byteString(ownDa));
    if (q !== this.firsts.q) inherited.set('Q', new PdfRaw(q));
    const names = new Set<string>();
    for (const field of index.fieldsOn(copier, pages)) {
      const node = field instanceof PdfRef ? file.dict(field) : undefined;
      if (!(field instanceof PdfRef) || !node) continue;
      this.fields.push(copier.value(field));
      const current = copier.overridden(field.num) ?? node;
      const changes: PdfDict = new Map([...inherited].filter(([key]) => !current.has(key)));
      const title = file.resolve(node.get('T'));
      if (title instanceof PdfRaw && /^[(<]/.test(title.text)) {
        const name = stringText(title.text);
        let unique = name;
        for (let n = partNumber; this.taken.has(unique); n++) unique = `${name}-${n}`;
        names.add(unique);
        if (unique !== name) changes.set('T', textString(unique));
      }
      if (changes.size) copier.override(field.num, new Map([...current, ...changes]));
    }
    for (const name of names) this.taken.add(name);
    const need = file.resolve(form.get('NeedAppearances'));
    if (need instanceof PdfRaw && need.text === 'true') this.needAppearances = true;
  }

  /**
   * Adds the part's /DR fonts. A name an earlier part gave another font is renamed (`F1` → `F1-2`) when
   * one of the part's /DA strings names it (`named`, decoded), and left out otherwise, so an unused font
   * program is not copied twice: the returned map, from the name to its new one, is for those /DA strings,
   * so each field is redrawn in its own part's font.
   */
  private addFonts(
    file: PdfFile,
    copier: PartCopier,
    form: PdfDict,
    partNumber: number,
    named: ReadonlySet<string>,
  ): Map<string, string> {
    const renamed = new Map<string, string>();
    const fonts = file.dict(file.dict(form.get('DR'))?.get('Font'));
    if (!fonts) return renamed;
    for (const [key, v] of fonts) {
      const identity = fontIdentity(file, v);
      let unique = key;
      for (let n = partNumber; this.fonts.has(unique); n++) {
        if (unique === key && identity !== undefined && this.fontIdentities.get(key) === identity) break;
        unique = `${key}-${n}`;
      }
      if (this.fonts.has(unique) || (unique !== key && !named.has(nameKey(key)))) continue;
      this.fonts.set(unique, copier.value(v));
      this.fontIdentities.set(unique, identity);
      if (unique !== key) renamed.set(nameKey(key), unique);
    }
    return renamed;
  }

  /** The assembly's /AcroForm, or undefined when no part had a field. */
  form(): PdfDict | undefined {
    if (this.fields.length === 0) return undefined;
    const out: PdfDict = dict({ Fields: this.fields });
    if (this.fonts.size) out.set('DR', dict({ Font: this.fonts }));
    for (const [key, v] of this.firsts?.copied ?? []) out.set(key, v);
    if (this.needAppearances) out.set('NeedAppearances', new PdfRaw('true'));
    return out;
  }
}

/**
 * What a /DR font is, when two parts' fonts of one name can be told the same without comparing their
 * programs: a simple font a reader supplies itself (no embedded program), by type, base font and encoding
 * (a name, or a dictionary of a base encoding and differences, as forms commonly give /Helv and /ZaDb).
 * Undefined for any other font, which is then never taken for another part's.
 */
function fontIdentity(file: PdfFile, value: PdfValue): string | undefined {
  const font = file.dict(value);
  if (!font) return undefined;
  const subtype = nameOf(file.resolve(font.get('Subtype')));
  const base = nameOf(file.resolve(font.get('BaseFont')));
  const descriptor = file.dict(font.get('FontDescriptor'));
  if (!subtype || !['Type1', 'TrueType'].includes(subtype) || !base) return undefined;
  if (descriptor && ['FontFile', 'FontFile2', 'FontFile3'].some((key) => descriptor.has(key))) return undefined;
  const encoding = encodingIdentity(file, file.resolve(font.get('Encoding')));
  // Names as written: a written name holds no white space, so the parts cannot run together.
  return encoding === undefined ? undefined : `/${subtype} /${base} ${encoding}`;
}

/** A font's /Encoding as text (a name, or a base encoding and its differences), or undefined for anything else. */
function encodingIdentity(file: PdfFile, encoding: PdfValue | undefined): string | undefined {
  if (encoding === undefined) return '';
  if (encoding instanceof PdfName) return serialize(encoding);
  if (!isDict(encoding)) return undefined;
  const base = file.resolve(encoding.get('BaseEncoding'));
  const differences = file.resolve(encoding.get('Differences'));
  if ((base !== undefined && !(base instanceof PdfName)) || (differences !== undefined && !Array.isArray(differences)))
    return undefined;
  const items = differences ?? [];
  if (!items.every((item) => item instanceof PdfName || (item instanceof PdfRaw && /^\d+$/.test(item.text)))) return undefined;
  // As written (escapes kept): two encodings that only spell a name differently are merely told apart.
  return `${base ? serialize(base) : ''}[${items.map(serialize).join(' ')}]`;
}

/** A font name in a /DA string (as written), then its size and `Tf`. */
const DA_FONT = /\/([^\s()<>[\]{}/%]*)(\s+[-+.\d]+\s+Tf\b)/g;

/** The fonts a /DA string names, decoded. */
function fontsIn(da: string): string[] {
  return [...da.matchAll(DA_FONT)].map((m) => nameKey(m[1]));
}

/** A /DA string with its font (the name before `Tf`) renamed when `renamed` has it. */
function renameFonts(da: string, renamed: ReadonlyMap<string, string>): string {
  return da.replace(DA_FONT, (whole, font: string, rest: string) => {
    const to = renamed.get(nameKey(font));
    return to === undefined ? whole : `/${to}${rest}`;
  });
}

/** The bytes of a string or number token as latin1 text (a /DA is bytes, not a text string). */
function byteText(value: PdfValue | undefined): string | undefined {
  if (!(value instanceof PdfRaw)) return undefined;
  return /^[(<]/.test(value.text) ? stringBytes(value.text).toString('latin1') : value.text;
}

/** A byte string token for latin1 text: literal when printable ASCII, else hex. */
function byteString(text: string): PdfRaw {
  if (/^[\x20-\x7e]*$/.test(text)) return new PdfRaw(`(${text.replace(/[()\\]/g, '\\$&')})`);
  return new PdfRaw(`<${Buffer.from(text, 'latin1').toString('hex')}>`);
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

  /** The fonts the field tree's own /DA strings name, decoded. */
  fontsNamed(): Set<string> {
    const named = new Set<string>();
    for (const num of this.top.keys())
      for (const font of fontsIn(byteText(this.file.resolve(this.file.dict(this.file.refTo(num))?.get('DA'))) ?? ''))
        named.add(font);
    return named;
  }

  /** Rewrites the /DA of every node of the field tree that has its own (through the copier). */
  rewriteDa(copier: PartCopier, rewrite: (da: string) => string): void {
    for (const num of this.top.keys()) {
      const node = copier.overridden(num) ?? (this.file.dict(this.file.refTo(num)) as PdfDict);
      const da = byteText(this.file.resolve(node.get('DA')));
      if (da === undefined) continue;
      const to = rewrite(da);
      if (to !== da) copier.override(num, new Map(node).set('DA', byteString(to)));
    }
  }

  /** The /AcroForm of a file that keeps `pages` (object numbers): their fields, or undefined when none is left. */
  keptForm(copier: PartCopier, pages: readonly number[]): PdfValue | undefined {
    const fields = this.fieldsOn(copier, pages);
    if (fields.length === 0) return undefined;
    return copier.value(new Map(this.form).set('Fields', fields));
  }
}
