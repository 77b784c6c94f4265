/**
 * One pass over the pages' content for what PDF/UA and PDF/A "u" need: untagged content wrapped as
 * artifacts (artifacts.ts), the text each marked-content sequence shows (for link alternate text), and
 * every glyph code checked against its font's ToUnicode map. Each content stream and Form XObject is
 * inflated once; only the streams that change are written again.
 */
import zlib from 'node:zlib';
import { markArtifacts, type XObjectKind } from './artifacts.js';
import { charCodes, countCodes, FontCache, type FontUnicode, visitText } from './page-text.js';
import type { PdfFile } from './pdf-file.js';
import { isDict, name, nameOf, type PdfDict, PdfRef, stringBytes } from './pdf-objects.js';

/** What the pass is asked to do. */
export interface PagePassOptions {
  artifacts: boolean;
  unicode: boolean;
  /** Look for glyph codes that show a font's .notdef glyph (PDF/A 6.2.11.8, PDF/UA 7.21.8). */
  notdef: boolean;
  /** Look for shown strings longer than PDF/A's limit on any string (6.1.13-3). */
  stringLength: boolean;
  /** The marked content whose text is wanted (page object number → MCIDs): the links'. */
  mcids: Map<number, Set<number>>;
  /** Epoch ms past which the pass gives up (throws PassBudgetExceeded). */
  deadline?: number;
}

/** Inflated content the pass reads at most (a document that prints more is not read to the end). */
export const MAX_PASS_BYTES = 512 * 1024 * 1024;

/** The pass ran out of its time or memory budget: nothing it found can be relied on. */
export class PassBudgetExceeded extends Error {
  constructor(readonly budget: 'time' | 'size') {
    super(budget === 'time' ? 'the page pass ran past its deadline' : 'the page pass read more than its budget');
  }
}

/** A font some glyph of which has no Unicode value. */
export interface FontWithoutUnicode {
  font: string;
  page: number;
  missing: number;
  /**
   * Whether a code has no Unicode value at all (the rule's test 1); otherwise each maps to a value that is
   * not text, U+0000, U+FEFF or U+FFFE (its test 2).
   */
  unmapped: boolean;
}

/** What the pass found. */
export interface PagePassResult {
  /** Pages (1-based) with content outside marked content that could not be marked as an artifact. */
  unmarkablePages: number[];
  fontsWithoutUnicode: FontWithoutUnicode[];
  /** Fonts some shown code of which is their .notdef glyph: the font, the first page, how many codes. */
  notdefFonts: Array<{ font: string; page: number; count: number }>;
  /** The first page showing a string longer than MAX_STRING_BYTES, if any. */
  longStringPage?: number;
  mcidText: Map<number, Map<number, string>>;
}

/** The longest string PDF/A-2 and -3 allow (ISO 19005-2 6.1.13, from ISO 32000-1 Annex C), in bytes. */
export const MAX_STRING_BYTES = 32767;

/** The bytes a shown string token stands for, counted without decoding the common hex case. */
function tokenBytes(token: string): number {
  if (token.length - 2 <= MAX_STRING_BYTES) return 0;
  return token.startsWith('<') ? Math.floor(token.replace(/\s+/g, '').length / 2) - 1 : stringBytes(token).length;
}

/** Characters of one marked-content sequence's text kept for a link's alternate text. */
const MAX_MCID_TEXT = 1000;

/** Code points a ToUnicode value may not be (ISO 19005-2 6.2.11.7.2). */
const NOT_TEXT = /^$|[\u0000\ufeff\ufffe]/;

function contentRefs(page: PdfDict): PdfRef[] {
  const contents = page.get('Contents');
  if (contents instanceof PdfRef) return [contents];
  return Array.isArray(contents) ? contents.filter((c): c is PdfRef => c instanceof PdfRef) : [];
}

/** The font's name without its subset tag, for a report entry. */
function fontName(file: PdfFile, font: FontUnicode): string {
  const dict = font.num > 0 ? file.dict(file.refTo(font.num)) : undefined;
  // A Type 3 font (Chromium writes one for glyphs it draws itself) has no BaseFont; its descriptor names it.
  const name = nameOf(dict?.get('BaseFont')) ?? nameOf(file.dict(dict?.get('FontDescriptor'))?.get('FontName'));
  return name?.replace(/^[A-Z]{6}\+/, '') ?? `object ${font.num}`;
}

/** Runs the pass; streams it changes are replaced in `file`'s update. */
export function pagePass(file: PdfFile, options: PagePassOptions): PagePassResult {
  const fonts = new FontCache(file);
  const result: PagePassResult = { unmarkablePages: [], fontsWithoutUnicode: [], notdefFonts: [], mcidText: new Map() };
  const used = new Map<FontUnicode, { codes: Set<number>; page: number }>();
  const notdef = new Map<FontUnicode, { page: number; count: number }>();
  const formsDone = new Set<number>();
  let read = 0;

  /** `pageNum` is the page object's number for a page's own content, undefined for a form's (its MCIDs are its own). */
  const stream = (
    num: number,
    resources: PdfDict | undefined,
    page: number,
    pageNum: number | undefined,
    tagged: boolean,
  ): void => {
    if (options.deadline !== undefined && Date.now() > options.deadline) throw new PassBudgetExceeded('time');
    const data = file.streamData(num);
    read += data?.length ?? 0;
    if (read > MAX_PASS_BYTES) throw new PassBudgetExceeded('size');
    const object = file.get(num);
    if (!data || !object || !isDict(object.value)) {
      if (options.artifacts) result.unmarkablePages.push(page);
      return;
    }
    const text = data.toString('latin1');
    const xobjects = file.dict(resources?.get('XObject'));
    const kindOf: XObjectKind = (resource) => {
      const subtype = nameOf(file.dict(xobjects?.get(resource))?.get('Subtype'));
      return subtype === 'Form' ? 'form' : subtype === 'Image' ? 'image' : undefined;
    };
    const wanted = pageNum === undefined ? undefined : options.mcids.get(pageNum);
    if (options.unicode || options.notdef || options.stringLength || wanted) {
      visitText(text, resources, file, fonts, (font, strings, mcid) => {
        if (options.notdef && font.notdef) {
          const isNotdef = font.notdef;
          let count = 0;
          for (const token of strings) count += countCodes(token, font.bytes, isNotdef);
          if (count > 0) {
            const entry = notdef.get(font) ?? { page, count: 0 };
            notdef.set(font, { page: entry.page, count: entry.count + count });
          }
        }
        if (options.stringLength && result.longStringPage === undefined && strings.some((t) => tokenBytes(t) > MAX_STRING_BYTES))
          result.longStringPage = page;
        if (options.unicode) {
          const entry = used.get(font) ?? { codes: new Set<number>(), page };
          used.set(font, entry);
          for (const token of strings) for (const code of charCodes(token, font.bytes)) entry.codes.add(code);
        }
        if (wanted && pageNum !== undefined && mcid !== undefined && wanted.has(mcid)) {
          const map = result.mcidText.get(pageNum) ?? new Map<number, string>();
          result.mcidText.set(pageNum, map);
          const known = map.get(mcid) ?? '';
          // A link's alternate text needs its first words only (link-annotations.ts): what it keeps is bounded.
          if (known.length < MAX_MCID_TEXT) {
            const words = strings.flatMap((token) => charCodes(token, font.bytes).map((c) => font.map.get(c) ?? ''));
            map.set(mcid, known + words.join('').slice(0, MAX_MCID_TEXT));
          }
        }
      });
    }
    let formsOutside: string[] = [];
    if (options.artifacts && !tagged) {
      const marked = markArtifacts(text, kindOf);
      formsOutside = marked.forms;
      if (marked.unmarkable > 0) result.unmarkablePages.push(page);
      if (marked.text !== undefined) {
        const value = new Map(object.value);
        value.delete('DecodeParms');
        value.set('Filter', name('FlateDecode'));
        file.set(num, value, zlib.deflateSync(Buffer.from(marked.text, 'latin1')));
      }
    }
    // Forms drawn anywhere are checked for Unicode; those drawn outside marked content are marked too.
    for (const [key, value] of xobjects ?? []) {
      if (!(value instanceof PdfRef) || formsDone.has(value.num) || kindOf(key) !== 'form') continue;
      formsDone.add(value.num);
      const form = file.dict(value);
      const formResources = file.dict(form?.get('Resources')) ?? resources;
      stream(value.num, formResources, page, undefined, tagged || !formsOutside.includes(key));
    }
  };

  file.pages().forEach((pageNum, index) => {
    const page = file.dict(file.refTo(pageNum));
    if (!page) return;
    const resources = file.dict(page.get('Resources'));
    for (const ref of contentRefs(page)) stream(ref.num, resources, index + 1, pageNum, false);
  });
  for (const [font, { page, count }] of notdef) {
    const name = fontName(file, font);
    const same = result.notdefFonts.find((f) => f.font === name);
    if (same) same.count += count;
    else result.notdefFonts.push({ font: name, page, count });
  }
  for (const [font, { codes, page }] of used) {
    let missing = 0;
    let unmapped = false;
    for (const code of codes) {
      // A .notdef glyph has its own warning (what to do is another font, not another mapping).
      if (options.notdef && font.notdef?.(code)) continue;
      const text = font.map.get(code);
      if (text === undefined) unmapped = true;
      if (text === undefined || NOT_TEXT.test(text)) missing++;
    }
    if (missing === 0) continue;
    // Chromium can write one font as two objects (Noto Sans Thai in an h1 came as a Type 3 font beside the
    // Type 0 one of the text): an entry each would read as the same warning twice, so they count together.
    const name = fontName(file, font);
    const same = result.fontsWithoutUnicode.find((f) => f.font === name && f.page === page);
    if (same) {
      same.missing += missing;
      same.unmapped ||= unmapped;
    } else result.fontsWithoutUnicode.push({ font: name, page, missing, unmapped });
  }
  return result;
}
