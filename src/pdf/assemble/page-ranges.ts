/**
 * Page selections as a part's `pages` and a split's `ranges` write them: `"1-3,5"`, `"2-"` (to the end),
 * `"-1"` (the last page; `-2` the one before it), `"!1"` (all but page 1). Pure: the text is checked on
 * its own when a request arrives, and resolved against a page count once the part's pages are known.
 */

/** A page selection that is malformed or names a page the document does not have; `field` names it. */
export class PageSelectionError extends Error {
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`${field}: ${detail}`);
  }
}

/** Longest selection accepted: far beyond any real list, short enough to keep parsing trivial. */
export const MAX_SELECTION_LENGTH = 1000;

/** One item: a page or range (`from`/`to` from 1, negative from the end), possibly negated. */
interface Item {
  exclude: boolean;
  from: number;
  /** Inclusive; `Infinity` for an open range (`2-`). */
  to: number;
}

const EXAMPLES = '"1-3,5", "2-", "!1", "-1"';
const PAGE = /^-?[1-9][0-9]{0,6}$/;

/** Parses a selection's text (not its pages); throws PageSelectionError naming `field`. */
export function parsePageSelection(text: string, field: string): Item[] {
  const bad = () => new PageSelectionError(field, `${JSON.stringify(text.slice(0, 60))} is not a page selection (${EXAMPLES})`);
  if (text.length > MAX_SELECTION_LENGTH)
    throw new PageSelectionError(field, `${text.length} characters is more than the limit of ${MAX_SELECTION_LENGTH}`);
  const items: Item[] = [];
  for (const piece of text.split(',')) {
    let item = piece.trim();
    const exclude = item.startsWith('!');
    if (exclude) item = item.slice(1).trim();
    if (PAGE.test(item)) {
      const page = Number(item);
      items.push({ exclude, from: page, to: page });
      continue;
    }
    // A range: `a-b` or `a-` with a positive `a` (a leading minus is a page counted from the end).
    const dash = item.indexOf('-', 1);
    if (dash < 0) throw bad();
    const from = item.slice(0, dash);
    const to = item.slice(dash + 1);
    if (!PAGE.test(from) || from.startsWith('-') || (to !== '' && (!PAGE.test(to) || to.startsWith('-')))) throw bad();
    const range = { exclude, from: Number(from), to: to === '' ? Number.POSITIVE_INFINITY : Number(to) };
    if (range.to < range.from) throw new PageSelectionError(field, `"${item}" runs backwards (write "${to}-${from}")`);
    items.push(range);
  }
  if (items.length === 0) throw bad();
  return items;
}

/**
 * The pages a selection keeps out of `count`, as indexes from 0 in the document's order. A page past the
 * end, or a selection that keeps nothing, throws PageSelectionError naming `field` and the count.
 */
export function pageIndexes(text: string, count: number, field: string): number[] {
  const items = parsePageSelection(text, field);
  const keep = new Uint8Array(count);
  const page = (n: number): number => {
    const at = n < 0 ? count + n + 1 : n;
    if (at < 1 || at > count)
      throw new PageSelectionError(field, `page ${n} is past the document's ${count} page${count === 1 ? '' : 's'}`);
    return at;
  };
  // Only negations: they take pages out of all of them.
  if (items.every((i) => i.exclude)) keep.fill(1);
  for (const item of items) {
    const from = page(item.from);
    const to = item.to === Number.POSITIVE_INFINITY ? count : page(item.to);
    for (let p = from; p <= to; p++) keep[p - 1] = item.exclude ? 0 : 1;
  }
  const out: number[] = [];
  keep.forEach((k, i) => {
    if (k) out.push(i);
  });
  if (out.length === 0) throw new PageSelectionError(field, `"${text.slice(0, 60)}" keeps none of the ${count} pages`);
  return out;
}
