/**
 * The gaps a document's page showed for PDF/UA-1 (accessibility-page.ts), checked as they cross into
 * Node and put in words: each names the clause veraPDF would fail, the element and what to do.
 */
import type { ConformanceIssue } from '../../pdf/profiles/types.js';
import type { AccessibilityGaps, HeadingGap } from './accessibility-page.js';

/** Findings kept per kind; the rest are counted in one more issue. */
export const MAX_FINDINGS = 20;
/** Characters kept of an element's name. */
export const MAX_NAME = 200;

const text = (v: unknown): string => (typeof v === 'string' ? v.slice(0, MAX_NAME) : '');

/** What the page answered, as values of the expected types and sizes; null when it is not that shape at all. */
export function checkedGaps(value: unknown): AccessibilityGaps | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const list = (x: unknown): unknown[] => (Array.isArray(x) ? x.slice(0, MAX_FINDINGS) : []);
  const headings: HeadingGap[] = list(v.headings).flatMap((h) => {
    const g = (h ?? {}) as Record<string, unknown>;
    const level = Number(g.level);
    const previous = Number(g.previous);
    if (!Number.isInteger(level) || !Number.isInteger(previous) || level < 1 || level > 6 || previous < 0 || previous > 6)
      return [];
    return [{ element: text(g.element), level, previous }];
  });
  const more = Number(v.more);
  return {
    lang: text(v.lang),
    title: text(v.title),
    figures: list(v.figures).map(text),
    headings,
    more: Number.isSafeInteger(more) && more > 0 ? more : 0,
  };
}

/** The PDF/UA-1 issues of a document with these gaps; none when it has none. */
export function accessibilityIssues(gaps: AccessibilityGaps): ConformanceIssue[] {
  const issue = (clause: string, element: string, message: string): ConformanceIssue => ({
    profile: 'PDF/UA-1',
    clause,
    element,
    message,
  });
  const issues: ConformanceIssue[] = [];
  if (gaps.lang === '') {
    issues.push(
      issue(
        '7.2-34',
        'html',
        'The document does not say its language (<html lang="…">), so a screen reader cannot tell which language ' +
          'to read it in: add lang to <html>',
      ),
    );
  }
  if (gaps.title === '') {
    issues.push(
      issue('7.1-9', 'title', 'The document has no <title>, which a PDF/UA file shows as its name: add a <title> to <head>'),
    );
  }
  for (const element of gaps.figures) {
    issues.push(
      issue(
        '7.3-1',
        element,
        element.startsWith('canvas')
          ? `The canvas ${element} has no alternative text, which a screen reader reads instead of it: add ` +
              'aria-label="…" (or aria-hidden="true" when it is only decoration)'
          : `The image ${element} has no alternative text, which a screen reader reads instead of it: add alt="…" ` +
              '(or alt="" when it is only decoration)',
      ),
    );
  }
  for (const h of gaps.headings) {
    const why =
      h.previous === 0
        ? `the document's first heading is an h${h.level}, where PDF/UA-1 asks for an h1`
        : `an h${h.level} follows an h${h.previous}, skipping ${h.level - h.previous === 2 ? `h${h.previous + 1}` : `h${h.previous + 1}–h${h.level - 1}`}`;
    issues.push(issue('7.4.2-1', h.element, `The heading ${h.element} breaks the outline: ${why}. Use heading levels in order`));
  }
  if (gaps.more > 0) {
    issues.push(
      issue(
        gaps.figures.length >= MAX_FINDINGS ? '7.3-1' : '7.4.2-1',
        'body',
        `${gaps.more} more ${gaps.more === 1 ? 'element' : 'elements'} like the ones above were not listed`,
      ),
    );
  }
  return issues;
}
