/**
 * What a document lacks for PDF/UA-1 that no post-processing of its PDF can add, found in the page
 * before it prints: the language, the title, alternative text of images, and heading levels in order
 * (docs/standards.md, "What makes a document fail PDF/UA"). Runs in the page's isolated world,
 * serialised with callExpression, so it refers to nothing outside itself; Node checks what it answers
 * (accessibility-issues.ts).
 */

/** One heading that breaks the order PDF/UA-1 asks for: its level, the level before it (0 at the start), and how to find it. */
export interface HeadingGap {
  element: string;
  level: number;
  previous: number;
}

/** The gaps found, each list capped; `more` counts what the caps left out. */
export interface AccessibilityGaps {
  lang: string;
  title: string;
  /** Images, canvases (and `role="img"` elements) that print with no alternative text. */
  figures: string[];
  headings: HeadingGap[];
  more: number;
}

/** Runs in the page (isolated world). `max` caps each list; `chars` each name. */
export function findAccessibilityGaps(max: number, chars: number): AccessibilityGaps {
  const gaps: AccessibilityGaps = {
    lang: (document.documentElement?.getAttribute('lang') ?? '').trim().slice(0, chars),
    title: (document.title ?? '').trim().slice(0, chars),
    figures: [],
    headings: [],
    more: 0,
  };
  const attr = (el: Element, name: string) => (el.getAttribute(name) ?? '').trim();
  const quote = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);
  // How a customer finds the element in their source: its id, or what it shows (an image's src).
  const describe = (el: Element): string => {
    const tag = el.localName;
    const role = attr(el, 'role') ? `[role=${quote(attr(el, 'role'))}]` : '';
    if (el.id) return `${tag}#${el.id}${role}`.slice(0, chars);
    const src = attr(el, 'src');
    if (src)
      return `${tag}[src=${quote(/^data:/i.test(src) ? `${src.slice(0, src.indexOf(',') + 1)}…` : src)}]${role}`.slice(0, chars);
    const cls = attr(el, 'class').split(/\s+/)[0];
    return `${tag}${cls ? `.${cls}` : ''}${role}`.slice(0, chars);
  };
  const printed = (el: Element) =>
    typeof el.checkVisibility === 'function' ? el.checkVisibility({ visibilityProperty: true }) : el.getClientRects().length > 0;
  const hiddenFromTags = (el: Element) => el.closest('[aria-hidden="true" i]') !== null;
  const named = (el: Element): boolean => {
    if (attr(el, 'aria-label') !== '' || attr(el, 'title') !== '') return true;
    const ids = attr(el, 'aria-labelledby').split(/\s+/).filter(Boolean);
    if (ids.some((id) => (document.getElementById(id)?.textContent ?? '').trim() !== '')) return true;
    const svgTitle = el.localName === 'svg' ? Array.from(el.children).find((c) => c.localName === 'title') : undefined;
    return (svgTitle?.textContent ?? '').trim() !== '';
  };
  const add = <T>(list: T[], item: T) => {
    if (list.length < max) list.push(item);
    else gaps.more += 1;
  };

  // Chromium tags a <canvas> as a Figure like an <img>: a script's drawing needs its text alternative too.
  for (const el of Array.from(document.querySelectorAll('img, canvas, [role]'))) {
    const role = attr(el, 'role').toLowerCase().split(/\s+/)[0];
    const image = el.localName === 'img' || el.localName === 'canvas' ? role === '' || role === 'img' : role === 'img';
    if (!image || hiddenFromTags(el) || !printed(el)) continue;
    // An <img> with no source and no size prints nothing, and Chromium tags no Figure for it (with a size it does).
    const box = el.getBoundingClientRect();
    if (el.localName === 'img' && (el as HTMLImageElement).currentSrc === '' && box.width * box.height === 0) continue;
    // alt="" says the image is decoration: not a figure, nothing to describe.
    if (el.localName === 'img' && el.hasAttribute('alt')) continue;
    if (!named(el)) add(gaps.figures, describe(el));
  }

  let previous = 0;
  for (const el of Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role="heading" i]'))) {
    const role = attr(el, 'role').toLowerCase();
    if ((role !== '' && role !== 'heading') || hiddenFromTags(el) || !printed(el)) continue;
    const ariaLevel = Number.parseInt(attr(el, 'aria-level'), 10);
    const tagLevel = /^h[1-6]$/.test(el.localName) ? Number(el.localName[1]) : 2;
    const level = ariaLevel >= 1 && ariaLevel <= 6 ? ariaLevel : tagLevel;
    if (level > previous + 1) {
      const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
      add(gaps.headings, { element: `${describe(el)} ${quote(text)}`.slice(0, chars), level, previous });
    }
    previous = level;
  }
  return gaps;
}
