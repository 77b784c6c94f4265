/**
 * What PDF/UA-1 asks of the structure tree that only the document can settle, read from the tree Chromium
 * made of its DOM: every /Lang a language tag (veraPDF 7.2-29 and kin; `<html lang="en_US">` is not one),
 * and tables whose rows have as many columns and whose columns as many rows, spans counted (7.2-42:
 * rows of 3, 1 and 5 cells). Each is the document's markup, so it is reported, not rewritten.
 */
import { isLanguageTag } from './language-tag.js';
import type { StructureReader } from './pdf-file.js';
import { isDict, nameOf, type PdfDict, PdfRaw, PdfRef, type PdfValue, stringText } from './pdf-objects.js';

/** Deepest structure tree walked, and most elements read (a table of 100,000 cells stops there). */
const MAX_DEPTH = 256;
const MAX_ELEMENTS = 200_000;
const ROW_GROUPS = new Set(['THead', 'TBody', 'TFoot']);
const CELLS = new Set(['TH', 'TD']);

/** A /Lang that is not a language tag: where it is and what it says. */
export interface BadLanguage {
  where: string;
  value: string;
}

/** A table whose rows do not line up: the cells each row covers, spans counted. */
export interface IrregularTable {
  index: number;
  widths: number[];
}

/** What the checks found (each the first of its kind). */
export interface StructureFindings {
  language?: BadLanguage;
  table?: IrregularTable;
}

/** The text a string value holds, or undefined. */
function text(value: PdfValue | undefined): string | undefined {
  return value instanceof PdfRaw && /^[(<]/.test(value.text) ? stringText(value.text) : undefined;
}

/** A cell's RowSpan and ColSpan, from its attribute objects (a dictionary, or an array of them with revisions). */
function spans(file: StructureReader, cell: PdfDict): { rows: number; cols: number } {
  const out = { rows: 1, cols: 1 };
  const attributes = file.resolve(cell.get('A'));
  for (const item of Array.isArray(attributes) ? attributes : [attributes]) {
    const attr = file.dict(item);
    if (!attr) continue;
    const rows = file.resolve(attr.get('RowSpan'));
    const cols = file.resolve(attr.get('ColSpan'));
    if (rows instanceof PdfRaw && Number(rows.text) >= 1) out.rows = Math.min(Number(rows.text), 10_000);
    if (cols instanceof PdfRaw && Number(cols.text) >= 1) out.cols = Math.min(Number(cols.text), 10_000);
  }
  return out;
}

/** The slots each row of a table covers (cells and the rows spanned into it), or undefined when regular. */
function irregular(file: StructureReader, rows: PdfDict[]): number[] | undefined {
  const widths = rows.map(() => 0);
  let overflow = false;
  rows.forEach((row, r) => {
    for (const kid of file.kids(row.get('K'))) {
      const cell = file.dict(kid);
      if (!cell || !CELLS.has(nameOf(cell.get('S')) ?? '')) continue;
      const span = spans(file, cell);
      if (r + span.rows > rows.length) overflow = true;
      for (let i = r; i < Math.min(rows.length, r + span.rows); i++) widths[i] += span.cols;
    }
  });
  return overflow || widths.some((w) => w !== widths[0]) ? widths : undefined;
}

/** Reads the structure tree (and the catalog's /Lang) for what PDF/UA-1 cannot have. */
export function checkStructure(file: StructureReader): StructureFindings {
  const found: StructureFindings = {};
  const catalog = file.catalog().value;
  const lang = text(file.resolve(catalog.get('Lang')));
  if (lang !== undefined && !isLanguageTag(lang)) found.language = { where: 'document', value: lang };
  const root = file.dict(catalog.get('StructTreeRoot'));
  if (!root) return found;
  const roleMap = file.dict(root.get('RoleMap'));
  const typeOf = (el: PdfDict): string => {
    const type = nameOf(el.get('S')) ?? '';
    return nameOf(roleMap?.get(type)) ?? type;
  };
  const seen = new Set<number>();
  let tables = 0;
  const walk = (value: PdfValue, depth: number): void => {
    if (depth > MAX_DEPTH || seen.size > MAX_ELEMENTS) return;
    if (value instanceof PdfRef) {
      if (seen.has(value.num)) return;
      seen.add(value.num);
    }
    const el = file.dict(value);
    if (!el?.has('S')) return;
    const type = typeOf(el);
    const elLang = text(file.resolve(el.get('Lang')));
    if (!found.language && elLang !== undefined && !isLanguageTag(elLang)) found.language = { where: type, value: elLang };
    if (type === 'Table') {
      tables++;
      const rows: PdfDict[] = [];
      for (const kid of file.kids(el.get('K'))) {
        const child = file.dict(kid);
        if (!child) continue;
        if (typeOf(child) === 'TR') rows.push(child);
        else if (ROW_GROUPS.has(typeOf(child)))
          for (const row of file.kids(child.get('K')).map((k) => file.dict(k))) if (row && typeOf(row) === 'TR') rows.push(row);
      }
      const widths = found.table ? undefined : irregular(file, rows);
      if (widths) found.table = { index: tables, widths };
    }
    for (const kid of file.kids(el.get('K'))) if (kid instanceof PdfRef || isDict(kid)) walk(kid, depth + 1);
  };
  for (const kid of file.kids(root.get('K'))) walk(kid, 0);
  return found;
}
