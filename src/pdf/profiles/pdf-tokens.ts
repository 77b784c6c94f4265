/**
 * The token level of PDF object syntax (ISO 32000 7.2): which bytes are white space and delimiters, where
 * white space and comments end, and the tail of a reference. The parser (pdf-parser.ts), the content
 * scanner and the text copy (copy-text.ts) all read tokens here, so no two of them split the same bytes
 * differently.
 */

/**
 * Per character code: 1 white space, 2 delimiter, 0 regular (a table: the scanners ask for every byte). White
 * space is PDF's six and the vertical tab, which qpdf reads as white space too: `4 0\vR` is a reference to
 * qpdf, so every scanner here must read it as one and renumber it, or a part's text copied as written would
 * point, in the assembly, at whatever object has that number there.
 */
export const CHAR_CLASS = new Uint8Array(256);
const CLASS = CHAR_CLASS;
const WHITE_CODES = [0x00, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20];
for (const c of WHITE_CODES) CLASS[c] = 1;
for (const c of '()<>[]{}/%') CLASS[c.charCodeAt(0)] = 2;

/** CHAR_CLASS's white space as a regular expression's class, for the scanners that match with one. */
export const WHITE_SPACE = `[${WHITE_CODES.map((c) => `\\x${c.toString(16).padStart(2, '0')}`).join('')}]`;

/** An object's header at its offset, `num gen obj`: the number and the generation. */
export const OBJECT_HEAD = new RegExp(`^(\\d+)${WHITE_SPACE}+(\\d+)${WHITE_SPACE}+obj`);

/** Whether the character code is white space: PDF's six and the vertical tab (see CHAR_CLASS). */
export function isWhite(code: number): boolean {
  return CLASS[code & 0xff] === 1;
}

/** Whether the character code ends a regular token (white space or a delimiter). */
export function isDelimiter(code: number): boolean {
  return CLASS[code & 0xff] !== 0;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Whether a token is all decimal digits (an object number or a generation). */
export function isDigits(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (!isDigit(word.charCodeAt(i))) return false;
  return word.length > 0;
}

/** Where the white space and comments from `pos` end (a comment runs to the end of its line). */
export function afterWhite(t: string, pos: number): number {
  let i = pos;
  while (i < t.length) {
    const c = t.charCodeAt(i);
    if (CLASS[c & 0xff] === 1) i++;
    else if (c === 0x25) {
      while (i < t.length && t.charCodeAt(i) !== 0x0a && t.charCodeAt(i) !== 0x0d) i++;
    } else break;
  }
  return i;
}

/**
 * The ` gen R` of a reference whose object number ends at `pos`: white space, digits, white space, `R`
 * not followed by a regular character, where comments count as white space (qpdf and poppler read
 * `4 0 %note` and `R` on the next line as one reference). The parser and the text copy (copy-text.ts) both
 * read references here, so a reference either renumbers is one the other copies, never text left as it
 * stood for a reader to resolve against the assembly's objects. Each gap is scanned at most twice, by the
 * numbers on either side of it, so the whole read stays linear.
 */
export function referenceTail(t: string, pos: number): { gen: number; end: number } | undefined {
  const digits = afterWhite(t, pos);
  if (digits === pos) return undefined;
  let i = digits;
  while (i < t.length && isDigit(t.charCodeAt(i))) i++;
  const afterDigits = i;
  if (afterDigits === digits) return undefined;
  i = afterWhite(t, i);
  if (i === afterDigits || t.charCodeAt(i) !== 0x52) return undefined;
  i++;
  if (i < t.length && !isDelimiter(t.charCodeAt(i))) return undefined;
  return { gen: Number(t.slice(digits, afterDigits)), end: i };
}
