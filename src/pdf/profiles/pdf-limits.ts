/**
 * PDF/A-2 and -3 keep every string within 32,767 bytes and every name within 127 (ISO 19005-2 6.1.13,
 * veraPDF 6.1.13-3 and -4). A document can make Chromium write longer ones (a link to a 40,000-character
 * address is a /URI string that long), so the objects of the printed file are read for them. Strings
 * shown in content streams are the page pass's (page-pass.ts); what Pageworks writes itself stays short.
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
    const object = file.get(num);
    const found = object ? over(object.value, undefined, 0) : undefined;
    if (found) return { ...found, object: num };
  }
  return undefined;
}
