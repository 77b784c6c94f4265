/**
 * PDF/A-2 and -3 keep every string within 32,767 bytes and every name within 127 (ISO 19005-2 6.1.13,
 * veraPDF 6.1.13-3 and -4). A document can make Chromium write longer ones (a link to a 40,000-character
 * address is a /URI string that long), so the objects of the printed file are read for them. Strings
 * shown in content streams are the page pass's (page-pass.ts); what Pageworks writes itself stays short.
 * PDF/A also bounds every page box to 3–14,400 units a side (6.1.13-11), which a CSS page size can pass.
 */
import { MAX_STRING_BYTES } from './page-pass.js';
import type { PdfFile } from './pdf-file.js';
import { isDict, PdfName, PdfRaw, type PdfValue, stringBytes } from './pdf-objects.js';

/** The longest name PDF/A allows, in bytes (after `#xx` escapes are read). */
const MAX_NAME_BYTES = 127;

/** The first string or name over PDF/A's limits: which, in which object, how long. */
export interface OverLimit {
  kind: 'string' | 'name';
  object: number;
  bytes: number;
  /** The dictionary key it sits under (`URI`, `Alt`), when it sits under one. */
  key?: string;
}

function nameBytes(text: string): number {
  return text.length <= MAX_NAME_BYTES ? text.length : text.replace(/#[0-9a-fA-F]{2}/g, '#').length;
}

function over(value: PdfValue, key: string | undefined, depth: number): Omit<OverLimit, 'object'> | undefined {
  if (depth > 64) return undefined;
  if (value instanceof PdfRaw) {
    const t = value.text;
    if (t.length - 2 <= MAX_STRING_BYTES || !/^[(<]/.test(t)) return undefined;
    const bytes = stringBytes(t).length;
    return bytes > MAX_STRING_BYTES ? { kind: 'string', bytes, key } : undefined;
  }
  if (value instanceof PdfName) {
    const bytes = nameBytes(value.name);
    return bytes > MAX_NAME_BYTES ? { kind: 'name', bytes, key } : undefined;
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = over(item, key, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (isDict(value)) {
    for (const [k, v] of value) {
      const found = k.length > MAX_NAME_BYTES ? { kind: 'name' as const, bytes: nameBytes(k), key: k } : over(v, k, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/** The first object of the file holding a string or name longer than PDF/A allows, if any. */
export function overLimit(file: PdfFile): OverLimit | undefined {
  for (const num of file.objectNumbers()) {
    // Most objects (a tagged PDF's structure elements) are short and read by nothing else: a scan that
    // builds nothing tells they hold no token long enough, and only the others are read and walked.
    if (file.shortTokens(num, MAX_NAME_BYTES, MAX_STRING_BYTES + 2)) continue;
    const object = file.get(num);
    const found = object ? over(object.value, undefined, 0) : undefined;
    if (found) return { ...found, object: num };
  }
  return undefined;
}

/** The page boxes PDF/A bounds (ISO 32000-1 14.11.2); MediaBox and CropBox may be inherited from the page tree. */
const PAGE_BOXES = ['MediaBox', 'CropBox', 'BleedBox', 'TrimBox', 'ArtBox'] as const;
const INHERITED = new Set<string>(['MediaBox', 'CropBox']);
/** The smallest and largest side PDF/A allows a page box, in default units (1/72 in). */
export const MIN_PAGE_SIDE = 3;
export const MAX_PAGE_SIDE = 14_400;
/** Parents followed for an inherited box (a page tree deeper than this is not one Chromium or a writer makes). */
const MAX_PARENTS = 32;

/** A page whose box is outside PDF/A's limits: its number (from 1), which box, and its size in default units. */
export interface PageOutOfRange {
  page: number;
  box: string;
  width: number;
  height: number;
}

function boxSize(file: PdfFile, value: PdfValue | undefined): { width: number; height: number } | undefined {
  const box = file.resolve(value);
  if (!Array.isArray(box) || box.length !== 4) return undefined;
  const [x0, y0, x1, y1] = box.map((v) => {
    const n = file.resolve(v);
    return n instanceof PdfRaw ? Number(n.text) : Number.NaN;
  });
  if (![x0, y0, x1, y1].every(Number.isFinite)) return undefined;
  return { width: Math.abs(x1 - x0), height: Math.abs(y1 - y0) };
}

/**
 * The first page with a box (its own, or MediaBox/CropBox from its parents) under 3 or over 14,400 units on a
 * side, which PDF/A does not allow (veraPDF 6.1.13-11): `@page { size: 250in 11in }` prints an 18,000-unit page.
 */
export function pageOutOfRange(file: PdfFile): PageOutOfRange | undefined {
  const pages = file.pages();
  for (let i = 0; i < pages.length; i++) {
    let node = file.dict(file.refTo(pages[i]));
    for (let depth = 0; node && depth <= MAX_PARENTS; depth++) {
      for (const box of PAGE_BOXES) {
        if (depth > 0 && !INHERITED.has(box)) continue;
        const size = boxSize(file, node.get(box));
        if (!size) continue;
        const sides = [size.width, size.height];
        if (sides.some((s) => s < MIN_PAGE_SIDE || s > MAX_PAGE_SIDE)) return { page: i + 1, box, ...size };
      }
      node = file.dict(node.get('Parent'));
    }
  }
  return undefined;
}
