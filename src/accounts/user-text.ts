// Text a user chooses (key names, email addresses) is shown back in terminals and on pages. Control
// characters (C0 and C1: a CSI byte drives the operator's terminal) and format characters (bidi
// overrides and isolates reorder what is shown; zero-width characters make two names look alike)
// have no business in a name.
const UNSHOWABLE = /[\p{Cc}\p{Cf}]/u;
const UNSHOWABLE_ALL = /[\p{Cc}\p{Cf}]/gu;

/** `U+202E`-style name of a code point. */
function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Why `text` cannot be a name a user chose, or undefined when it can: it holds a control or format
 * character (Unicode categories Cc and Cf). `what` names the field in the message ("The key name").
 */
export function unshowableCharacterProblem(what: string, text: string): string | undefined {
  const found = UNSHOWABLE.exec(text);
  if (!found) return undefined;
  const position = [...text.slice(0, found.index)].length + 1;
  return `${what} cannot contain control or invisible formatting characters (found ${codePoint(found[0])} at position ${position})`;
}

/**
 * The text with every control or format character written as a visible `\u{202e}` escape, for output
 * where such a character would act instead of show (a terminal); rows stored before names were
 * checked come out harmless too.
 */
export function escapeUnshowable(text: string): string {
  return text.replace(UNSHOWABLE_ALL, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`);
}

/**
 * JSON text with every control or format character inside its strings written as a `\uXXXX` escape
 * (JSON.stringify leaves C1 controls and bidi characters raw): the same value once parsed.
 */
export function escapeUnshowableJson(json: string): string {
  return json.replace(UNSHOWABLE_ALL, (c) =>
    // Raw line breaks and tabs are only ever the layout between tokens (in strings they are escaped already).
    c === '\n' || c === '\r' || c === '\t'
      ? c
      : Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}

/**
 * How many characters (Unicode code points) `text` has when that is more than `max`, else undefined: a
 * limit said in characters counts as JSON Schema's maxLength does, an emoji one character where
 * `text.length` counts its two UTF-16 units. Only a text longer than `max` units is counted at all.
 */
export function charactersOver(text: string, max: number): number | undefined {
  if (text.length <= max) return undefined;
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      // A surrogate pair is one character; a lone surrogate stays one of its own.
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        i += 1;
      }
    }
  }
  return count > max ? count : undefined;
}
