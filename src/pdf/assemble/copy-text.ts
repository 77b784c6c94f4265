/**
 * The quick way to copy a part's object: its source text with each reference renumbered, the parent tree
 * keys shifted and renamed structure IDs replaced, and nothing else touched or built. It serves every
 * object but streams and the rare destination written as a name or a string, which the copier's parsed
 * path handles (part-copier.ts `value`, whose rules this follows). It follows the object's syntax as the
 * parser reads it (profiles/pdf-parser.ts) and leaves to the parsed path any text the parser would refuse
 * or stop short of, so that a damaged object is refused as damaged there, never written into the assembly.
 */
import { CHAR_CLASS, referenceTail } from '../profiles/pdf-tokens.js';

/** What a copy changes besides references. */
export interface TextRules {
  /** The assembly's reference text for a part's `num gen R` (`null` for an object the part lacks). */
  ref: (num: number, gen: number) => string;
  /** Added to /StructParents and /StructParent. */
  structParentOffset: number;
  /** A structure ID's new string (a hex string), given the string token; undefined keeps it. */
  renameId: (token: string) => string | undefined;
}

/** Per character code: 1 white space, 2 delimiter, 0 regular; the parser's own table, so both read one syntax. */
const CLASS = CHAR_CLASS;

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** What the token after a key is done with. */
enum Next {
  Copy,
  Shift,
  Rename,
  RenameEach,
  /** A destination: kept when an array, else the object goes the parsed way. */
  Dest,
}

/** What the scan expects next: the object's value or its end, or in a dictionary or an array. */
enum Expect {
  Start,
  End,
  Key,
  Value,
  Item,
  /** A value where none may stand: where a key is due, or after the object's value. */
  Refused,
}

/** What the scan expects after a value that starts where it expects `at`. */
function afterValue(at: Expect): Expect {
  if (at === Expect.Item) return at;
  if (at === Expect.Value) return Expect.Key;
  if (at === Expect.Start) return Expect.End;
  return Expect.Refused;
}

/** Deepest nesting copied by text, below the parser's limit (MAX_NESTING in pdf-parser.ts). */
const MAX_DEPTH = 250;

const KEYS = new Map<string, Next>([
  ['StructParents', Next.Shift],
  ['StructParent', Next.Shift],
  // An /ID string is a structure element's: no other dictionary of a printed PDF carries one.
  ['ID', Next.Rename],
  ['Headers', Next.RenameEach],
  ['Dest', Next.Dest],
  ['D', Next.Dest],
]);

/**
 * The body of the object whose text starts at `from` (just after `N G obj`), up to its `endobj`, copied as
 * `rules` say; undefined for a stream or a destination that is not an array.
 */
export function copyObjectText(text: string, from: number, rules: TextRules): string | undefined {
  const pieces: string[] = [];
  let copied = from;
  let pos = from;
  let next = Next.Copy;
  /** Depth of the /Headers array being renamed, 0 outside one. */
  let headers = 0;
  let at = Expect.Start;
  /** What each open dictionary or array's container expects after it, outermost first. */
  const outer: Expect[] = [];
  const n = text.length;
  const replace = (start: number, end: number, by: string): void => {
    pieces.push(text.slice(copied, start), by);
    copied = end;
  };
  while (pos < n) {
    const c = text.charCodeAt(pos);
    const kind = CLASS[c & 0xff];
    if (kind === 1) {
      pos++;
      continue;
    }
    const key: Next = next;
    next = Next.Copy;
    if (key === Next.Dest && c !== 0x5b) return undefined;
    if (c === 0x25) {
      next = key;
      while (pos < n && text[pos] !== '\n' && text[pos] !== '\r') pos++;
    } else if (c === 0x28 || (c === 0x3c && text.charCodeAt(pos + 1) !== 0x3c)) {
      at = afterValue(at);
      if (at === Expect.Refused) return undefined;
      const start = pos;
      pos = c === 0x28 ? literalEnd(text, pos) : text.indexOf('>', pos) + 1;
      if (pos <= 0) return undefined;
      if (key === Next.Rename || (headers > 0 && outer.length === headers)) {
        const renamed = rules.renameId(text.slice(start, pos));
        if (renamed !== undefined) replace(start, pos, renamed);
      }
    } else if (c === 0x3c || c === 0x5b) {
      at = afterValue(at);
      if (at === Expect.Refused || outer.length >= MAX_DEPTH) return undefined;
      outer.push(at);
      if (c === 0x3c) {
        at = Expect.Key;
        pos += 2;
      } else {
        at = Expect.Item;
        if (key === Next.RenameEach) headers = outer.length;
        pos++;
      }
    } else if (c === 0x3e) {
      if (text.charCodeAt(pos + 1) !== 0x3e || at !== Expect.Key) return undefined;
      at = outer.pop() as Expect;
      pos += 2;
    } else if (c === 0x5d) {
      if (at !== Expect.Item) return undefined;
      if (headers === outer.length) headers = 0;
      at = outer.pop() as Expect;
      pos++;
    } else if (c === 0x2f) {
      const isKey: boolean = at === Expect.Key;
      at = isKey ? Expect.Value : afterValue(at);
      if (at === Expect.Refused) return undefined;
      const start = ++pos;
      while (pos < n && CLASS[text.charCodeAt(pos) & 0xff] === 0) pos++;
      if (isKey) next = KEYS.get(text.slice(start, pos)) ?? Next.Copy;
    } else if (kind === 2) {
      // `)`, `{` or `}`: no object's syntax has one here.
      return undefined;
    } else {
      const start = pos;
      while (pos < n && CLASS[text.charCodeAt(pos) & 0xff] === 0) pos++;
      if (pos - start === 6 && text.startsWith('endobj', start)) {
        if (at !== Expect.End) return undefined;
        pieces.push(text.slice(copied, start));
        return pieces.join('');
      }
      at = afterValue(at);
      if (at === Expect.Refused) return undefined;
      if (!isDigit(c)) continue;
      const ref = allDigits(text, start, pos) ? referenceTail(text, pos) : undefined;
      if (ref) {
        replace(start, ref.end, rules.ref(Number(text.slice(start, pos)), ref.gen));
        pos = ref.end;
      } else if (key === Next.Shift && rules.structParentOffset !== 0 && allDigits(text, start, pos)) {
        replace(start, pos, String(Number(text.slice(start, pos)) + rules.structParentOffset));
      }
    }
  }
  return undefined;
}

function allDigits(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isDigit(text.charCodeAt(i))) return false;
  return end > start;
}

/** Where a literal string starting at `pos` ends (after its closing parenthesis), or 0. */
function literalEnd(text: string, pos: number): number {
  let depth = 0;
  for (let i = pos; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x28) depth++;
    else if (c === 0x29 && --depth === 0) return i + 1;
  }
  return 0;
}
