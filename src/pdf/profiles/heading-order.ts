/**
 * PDF/UA 7.4.2: headings that skip a level (an h3 right after an h1, a document that starts at h2) fail
 * the standard. That is the document's own markup, so it is reported, not rewritten: read from the
 * structure tree Chromium made from the DOM, in document order.
 */
import type { StructureReader } from './pdf-file.js';
import { nameOf } from './pdf-objects.js';

/** Deepest structure tree walked; deeper elements are not checked. */
const MAX_DEPTH = 256;

/** The first heading that skips a level: its tag (`H3`) and the level before it (0 at the start), if any. */
export function skippedHeading(file: StructureReader): { tag: string; previous: number; index: number } | undefined {
  const root = file.dict(file.catalog().value.get('StructTreeRoot'));
  let previous = 0;
  let index = 0;
  let found: { tag: string; previous: number; index: number } | undefined;
  const seen = new Set<unknown>();
  const walk = (value: unknown, depth: number): void => {
    if (found || depth > MAX_DEPTH) return;
    const element = file.dict(value as never);
    if (!element || seen.has(element)) return;
    seen.add(element);
    const tag = nameOf(element.get('S'));
    const level = tag && /^H([1-6])$/.exec(tag);
    if (level) {
      index++;
      const n = Number(level[1]);
      if (n > previous + 1) {
        found = { tag: tag as string, previous, index };
        return;
      }
      previous = n;
    }
    for (const kid of file.kids(element.get('K'))) walk(kid, depth + 1);
  };
  if (root) for (const kid of file.kids(root.get('K'))) walk(kid, 0);
  return found;
}
