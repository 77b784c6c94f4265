/**
 * Where a document prints a term as what it is: the labels invoices give BT-1 (invoice number) and
 * BT-115 (amount due), in EN 16931's words and the usual words of each EU language (term-labels.json,
 * kept as data), found in a document's visible text.
 */
import table from './term-labels.json' with { type: 'json' };

/** The terms whose labels are known. */
export type LabelledTerm = 'BT-1' | 'BT-115';

/** A label found in a text: which one, and where the text after it starts. */
export interface FoundLabel {
  label: string;
  end: number;
}

const TERMS = table.terms as Record<LabelledTerm, { name: string; labels: Record<string, string[]> }>;

/**
 * A label as a regular expression: its spaces match any run of white space, and where it begins or ends
 * with a letter or digit, that is a word's start or end (Zu zahlen is not Zu zahlender Betrag).
 */
function pattern(label: string): string {
  const words = label
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('\\s+');
  const before = /^[\p{L}\p{N}]/u.test(label.trim()) ? '(?<![\\p{L}\\p{N}])' : '';
  const after = /[\p{L}\p{N}]$/u.test(label.trim()) ? '(?![\\p{L}\\p{N}])' : '';
  return `${before}${words}${after}`;
}

/** The labels of `term` in the document's language (`lang`, a BCP 47 tag), with the standard's name; every language's when the tag is none of them. */
export function labelsOf(term: LabelledTerm, lang: string): string[] {
  const { name, labels } = TERMS[term];
  const primary = lang.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  const own = labels[primary];
  const all = own ? [name, ...(primary === 'en' ? [] : labels.en), ...own] : [name, ...Object.values(labels).flat()];
  return [...new Set(all)];
}

/** Compiled matchers, by term and language: a label as a whole word, case-insensitive, longest first. */
const matchers = new Map<string, RegExp>();

/** Each place in `text` where a label of `term` (in `lang`) is printed, in order. */
export function labelsIn(text: string, term: LabelledTerm, lang: string): FoundLabel[] {
  const key = `${term}|${lang.trim().toLowerCase().split(/[-_]/)[0]}`;
  let re = matchers.get(key);
  if (!re) {
    const alternatives = labelsOf(term, lang)
      .sort((a, b) => b.length - a.length)
      .map(pattern);
    re = new RegExp(alternatives.join('|'), 'giu');
    matchers.set(key, re);
  }
  re.lastIndex = 0;
  return [...text.matchAll(re)].map((m) => ({ label: m[0], end: (m.index ?? 0) + m[0].length }));
}
