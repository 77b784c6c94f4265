/**
 * Filling in cross-references (cross-references.ts rewrites the rules into attributes): each binding's
 * attribute on the elements it matches gets a page number in its counter style, a target's text, or a
 * leader run. Runs in the page: serialised with callExpression, it refers to nothing outside itself.
 */
import type { CrossReferenceBinding } from './cross-references.js';

/** What filling the bindings found: every target id named, and those the document does not have. */
export interface CrossReferenceTargets {
  targets: string[];
  missing: string[];
}

/**
 * Runs in the page. Sets every binding's attribute on the elements it matches: a page number (from
 * `pages`, by target id; a placeholder of the same style when `pages` is null), a target's text, or a
 * leader run. With `anchor`, also links every target once from the head: Chromium writes a named
 * destination (the target's page) only for an id something links to, and a link without a box adds no
 * annotation of its own.
 */
export function fillCrossReferences(
  bindings: CrossReferenceBinding[],
  pages: Record<string, number> | null,
  anchor: boolean,
): CrossReferenceTargets {
  // A leader run longer than any line: the pseudo-element cuts it to the room left.
  const LEADER_CHARS = 800;
  const TEXT_CHARS = 500;
  const roman = (n: number): string => {
    if (n <= 0 || n >= 4000) return String(n);
    const table: Array<[number, string]> = [
      [1000, 'm'],
      [900, 'cm'],
      [500, 'd'],
      [400, 'cd'],
      [100, 'c'],
      [90, 'xc'],
      [50, 'l'],
      [40, 'xl'],
      [10, 'x'],
      [9, 'ix'],
      [5, 'v'],
      [4, 'iv'],
      [1, 'i'],
    ];
    let out = '';
    let rest = n;
    for (const [value, letters] of table) {
      while (rest >= value) {
        out += letters;
        rest -= value;
      }
    }
    return out;
  };
  const alphabetic = (n: number, letters: string): string => {
    let out = '';
    for (let rest = n; rest > 0; rest = Math.floor((rest - 1) / letters.length)) out = letters[(rest - 1) % letters.length] + out;
    return out || String(n);
  };
  const format = (n: number, style: string): string => {
    switch (style) {
      case 'none':
        return '';
      case 'decimal-leading-zero':
        return n < 10 ? `0${n}` : String(n);
      case 'lower-roman':
        return roman(n);
      case 'upper-roman':
        return roman(n).toUpperCase();
      case 'lower-alpha':
      case 'lower-latin':
        return alphabetic(n, 'abcdefghijklmnopqrstuvwxyz');
      case 'upper-alpha':
      case 'upper-latin':
        return alphabetic(n, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
      case 'lower-greek':
        return alphabetic(n, 'αβγδεζηθικλμνξοπρστυφχψω');
      default:
        return String(n);
    }
  };
  const targetOf = (element: Element, url: CrossReferenceBinding['url']): string | undefined => {
    const raw = url && 'attr' in url ? element.getAttribute(url.attr) : url?.literal;
    if (!raw?.trim().startsWith('#')) return raw ? raw.trim() : undefined;
    const fragment = raw.trim().slice(1);
    try {
      return decodeURIComponent(fragment);
    } catch {
      return fragment;
    }
  };
  const targets = new Set<string>();
  const missing = new Set<string>();
  const leaders: Array<[Element, CrossReferenceBinding]> = [];
  // Elements without ::before and ::after boxes: a leader has no line to fill there.
  const replaced = /^(input|textarea|select|img|video|audio|canvas|iframe|object|embed|br|hr|meter|progress|svg)$/i;
  for (const binding of bindings) {
    let elements: Element[];
    try {
      elements = Array.from(document.querySelectorAll(binding.selector));
    } catch {
      continue; // a selector Chromium does not know matches nothing, as in CSS
    }
    for (const element of elements) {
      let value = '';
      if (binding.kind === 'leader') {
        if (replaced.test(element.localName)) continue;
        value = (binding.leader || '.').repeat(Math.ceil(LEADER_CHARS / Math.max(1, (binding.leader ?? '.').length)));
        element.setAttribute('data-pageworks-leader', binding.side ?? 'after');
        leaders.push([element, binding]);
      } else {
        const id = targetOf(element, binding.url);
        const target = id !== undefined && id !== '' ? document.getElementById(id) : null;
        if (id !== undefined && !target) missing.add(id);
        if (target && id !== undefined) {
          if (binding.kind === 'text') value = (target.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, TEXT_CHARS);
          else if (binding.counter === 'page') {
            targets.add(id);
            const page = pages === null ? 10 : pages[id];
            value = page === undefined ? '' : format(page, binding.style ?? 'decimal');
            if (pages !== null && page === undefined) missing.add(id);
          }
        }
      }
      element.setAttribute(binding.attribute, value);
    }
  }
  for (const [element, binding] of leaders) {
    let chars = 0;
    for (const part of binding.tail ?? [])
      chars += 'text' in part ? part.text.length : (element.getAttribute(part.attribute) ?? '').length;
    (element as HTMLElement).style?.setProperty('--pageworks-leader-tail', `${chars + 1}ch`);
  }
  if (anchor) {
    // In the head, hidden even from a document that shows its head: no box, no selector of the body moved.
    for (const id of targets) {
      const link = document.createElement('a');
      link.href = `#${encodeURIComponent(id)}`;
      link.style.setProperty('display', 'none', 'important');
      (document.head ?? document.documentElement).append(link);
    }
  }
  return { targets: [...targets], missing: [...missing] };
}
