/**
 * The text a page shows, as its fonts' ToUnicode maps read it: for PDF/A's "u" levels (every glyph has
 * Unicode, 6.2.11.7.2) and for a link's alternate text (the words it covers, PDF/UA 7.18.5).
 */
import { scanContent } from './content-scan.js';
import type { PdfFile } from './pdf-file.js';
import { isDict, nameOf, type PdfDict, PdfRef, stringBytes } from './pdf-objects.js';

/** A font's code → Unicode map and its code width in bytes. */
export interface FontUnicode {
  /** The font's object number (0 for a font given directly in a resource dictionary). */
  num: number;
  bytes: 1 | 2;
  map: Map<number, string>;
  /** Whether the font has a ToUnicode map at all. */
  hasMap: boolean;
  /**
   * Whether a code shows the font's .notdef glyph (glyph 0), where that can be told: a Type 0 font with
   * an Identity encoding (the code is the CID) and an Identity or stream CIDToGIDMap, as Chromium writes.
   */
  notdef?: (code: number) => boolean;
}

function hexValue(hex: string): number {
  return Number.parseInt(hex, 16);
}

function utf16(hex: string): string {
  const buffer = Buffer.from(hex.length % 4 ? hex.padStart(Math.ceil(hex.length / 4) * 4, '0') : hex, 'hex');
  return buffer.swap16().toString('utf16le');
}

/** Reads a ToUnicode CMap's bfchar and bfrange sections. */
export function parseToUnicode(cmap: string): Map<number, string> {
  const map = new Map<number, string>();
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const m of block[1].matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]*)>/g)) map.set(hexValue(m[1]), utf16(m[2]));
  }
  for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const m of block[1].matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*(<[0-9a-fA-F]*>|\[[^\]]*\])/g)) {
      const [lo, hi] = [hexValue(m[1]), hexValue(m[2])];
      if (hi - lo > 0xffff) continue;
      if (m[3].startsWith('[')) {
        const items = [...m[3].matchAll(/<([0-9a-fA-F]*)>/g)];
        items.forEach((item, i) => {
          if (lo + i <= hi) map.set(lo + i, utf16(item[1]));
        });
      } else {
        const hex = m[3].slice(1, -1);
        const base = utf16(hex);
        const last = base.charCodeAt(base.length - 1);
        for (let code = lo; code <= hi; code++) map.set(code, base.slice(0, -1) + String.fromCharCode(last + (code - lo)));
      }
    }
  }
  return map;
}

/** Reads fonts once per file. */
export class FontCache {
  private readonly fonts = new Map<number, FontUnicode>();

  constructor(private readonly file: PdfFile) {}

  /** How a Type 0 font's codes reach glyph 0 (see FontUnicode.notdef); undefined when it cannot be told. */
  private notdefOf(font: PdfDict): ((code: number) => boolean) | undefined {
    if (nameOf(font.get('Subtype')) !== 'Type0' || !/^Identity-[HV]$/.test(nameOf(font.get('Encoding')) ?? '')) return undefined;
    const descendants = this.file.resolve(font.get('DescendantFonts'));
    const cid = this.file.dict(Array.isArray(descendants) ? descendants[0] : undefined);
    if (!cid) return undefined;
    const map = cid.get('CIDToGIDMap');
    if (map === undefined || nameOf(map) === 'Identity') return (code) => code === 0;
    const data = map instanceof PdfRef ? this.file.streamData(map.num) : undefined;
    if (!data) return undefined;
    return (code) => 2 * code + 1 >= data.length || data.readUInt16BE(2 * code) === 0;
  }

  /** The font a resource value names. */
  font(value: PdfDict | PdfRef | undefined): FontUnicode | undefined {
    if (value instanceof PdfRef) {
      const known = this.fonts.get(value.num);
      if (known) return known;
    }
    const font = this.file.dict(value);
    if (!font) return undefined;
    const toUnicode = font.get('ToUnicode');
    const data = toUnicode instanceof PdfRef ? this.file.streamData(toUnicode.num) : undefined;
    let map: Map<number, string> | undefined;
    const entry: FontUnicode = {
      num: value instanceof PdfRef ? value.num : 0,
      bytes: nameOf(font.get('Subtype')) === 'Type0' ? 2 : 1,
      // Read when first asked for: a PDF/A "b" level looks at glyph codes only, never at their text.
      get map() {
        map ??= data ? parseToUnicode(data.toString('latin1')) : new Map();
        return map;
      },
      hasMap: data !== undefined,
      notdef: this.notdefOf(font),
    };
    if (value instanceof PdfRef) this.fonts.set(value.num, entry);
    return entry;
  }
}

/** The character codes of a shown string in a font `width` bytes wide. */
export function charCodes(token: string, width: 1 | 2): number[] {
  if (token.startsWith('<') && /^<[0-9a-fA-F]*>$/.test(token)) {
    // The common case (Chromium writes hex strings): read the digits directly.
    const digits = width * 2;
    const out: number[] = [];
    for (let i = 1; i + digits <= token.length - 1; i += digits) out.push(Number.parseInt(token.slice(i, i + digits), 16));
    return out;
  }
  const bytes = stringBytes(token);
  const out: number[] = [];
  for (let i = 0; i + width <= bytes.length; i += width) out.push(width === 2 ? bytes.readUInt16BE(i) : bytes[i]);
  return out;
}

/** The value of a hex digit's character code, or -1. */
function hexDigit(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  return -1;
}

/** How many of a shown string's character codes `test` holds for: charCodes' count, without its array. */
export function countCodes(token: string, width: 1 | 2, test: (code: number) => boolean): number {
  let count = 0;
  if (token.charCodeAt(0) === 0x3c && token.charCodeAt(token.length - 1) === 0x3e && token.length >= 2) {
    let hex = true;
    for (let i = 1; i < token.length - 1 && hex; i++) hex = hexDigit(token.charCodeAt(i)) >= 0;
    if (hex) {
      // The common case (Chromium writes hex strings), as charCodes reads it.
      const digits = width * 2;
      for (let i = 1; i + digits <= token.length - 1; i += digits) {
        let code = 0;
        for (let d = 0; d < digits; d++) code = code * 16 + hexDigit(token.charCodeAt(i + d));
        if (test(code)) count++;
      }
      return count;
    }
  }
  for (const code of charCodes(token, width)) if (test(code)) count++;
  return count;
}

const SHOW_TEXT = new Set(['Tj', 'TJ', "'", '"']);

/**
 * Calls `show` for every text-showing operator of a content stream with its font, its string operands
 * (hex or literal, as written) and the innermost MCID around it.
 */
export function visitText(
  text: string,
  resources: PdfDict | undefined,
  file: PdfFile,
  fonts: FontCache,
  show: (font: FontUnicode, strings: string[], mcid: number | undefined) => void,
): void {
  const fontDict = file.dict(resources?.get('Font'));
  const mcids: Array<number | undefined> = [];
  let font: FontUnicode | undefined;
  scanContent(text, ({ op, operand, count }) => {
    if (op === 'BDC') {
      const mcid = /\/MCID\s+(\d+)/.exec(operand(1));
      mcids.push(mcid ? Number(mcid[1]) : mcids[mcids.length - 1]);
    } else if (op === 'BMC') mcids.push(mcids[mcids.length - 1]);
    else if (op === 'EMC') mcids.pop();
    else if (op === 'Tf') {
      const value = fontDict?.get(operand(0).slice(1));
      font = value instanceof PdfRef || isDict(value) ? fonts.font(value) : undefined;
    } else if (font && SHOW_TEXT.has(op)) {
      const last = operand(count - 1);
      const strings = op === 'TJ' ? [...last.matchAll(/\((?:\\[\s\S]|[^\\)])*\)|<[0-9a-fA-F\s]*>/g)].map((m) => m[0]) : [last];
      show(font, strings, mcids[mcids.length - 1]);
    }
  });
}
