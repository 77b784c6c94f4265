/**
 * What a reader sees of a document's text, read in the page (an isolated world) while it is laid out for
 * print (shown-text-read.ts sets print media and the page's printable width). A text node counts only
 * where it is printed visibly: on the page (inside the printable width, not above the document's top),
 * inside every box that clips it, not hidden or transparent, at least `minFontPx` tall, in a colour that
 * stands out from what is under it (where backgrounds print at all), and, for the nodes that hold a value
 * the invoice must show, not covered by another opaque box (elementsFromPoint, scrolled into view).
 * Serialised with callExpression: it must not refer to anything outside itself.
 */

/** How the page prints: its printable width in CSS px, the smallest readable font size (6 pt), whether backgrounds print. */
export interface PrintedView {
  widthPx: number;
  minFontPx: number;
  backgrounds: boolean;
}

/** What the read looks for and how far it goes. */
export interface ShownTextQuery {
  /** Texts (the invoice number) whose nodes get the covering check. */
  texts: string[];
  /** Digit strings (an amount without separators, e.g. `63000`) whose nodes get the covering check. */
  digits: string[];
  /** Most characters of text returned, most nodes given the covering check, most marked elements. */
  maxText: number;
  maxCovered: number;
  maxMarked: number;
}

/** A document's visible text (hidden text is a line break; nodes side by side on a line are joined by a tab) and its marked terms. */
export interface ShownTextAnswer {
  text: string;
  lang: string;
  /** Each `data-bt` element: the term it marks, and its visible text (null when none of it is visible). */
  marked: Array<{ term: string; text: string | null }>;
}

/** Runs in the page: see the file's comment. */
export function readShownText(view: PrintedView, query: ShownTextQuery): ShownTextAnswer {
  const doc = document;
  const root = doc.body;
  const lang = (doc.documentElement.getAttribute('lang') ?? '').slice(0, 35);
  if (!root) return { text: '', lang, marked: [] };
  const styles = new Map<Element, CSSStyleDeclaration>();
  const style = (el: Element): CSSStyleDeclaration => {
    let s = styles.get(el);
    if (!s) {
      s = getComputedStyle(el);
      styles.set(el, s);
    }
    return s;
  };
  // Colours as the screen has them (any CSS syntax: oklch, color-mix, …): painted on one pixel and read back.
  const canvas = doc.createElement('canvas');
  canvas.width = 1;
  canvas.height = 1;
  const paint = canvas.getContext('2d', { willReadFrequently: true });
  const colours = new Map<string, number[]>();
  const rgba = (css: string): number[] => {
    let c = colours.get(css);
    if (c) return c;
    c = [0, 0, 0, 1];
    if (paint) {
      paint.clearRect(0, 0, 1, 1);
      paint.fillStyle = '#000';
      paint.fillStyle = css;
      paint.fillRect(0, 0, 1, 1);
      const d = paint.getImageData(0, 0, 1, 1).data;
      c = [d[0], d[1], d[2], d[3] / 255];
    }
    colours.set(css, c);
    return c;
  };
  const luminance = (c: number[]): number => {
    const lin = (v: number) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  };
  const WHITE = [255, 255, 255, 1];
  // An element's own opacity times its ancestors'.
  const opacities = new Map<Element, number>();
  const opacity = (el: Element | null): number => {
    if (!el) return 1;
    let o = opacities.get(el);
    if (o === undefined) {
      o = Number.parseFloat(style(el).opacity) * opacity(el.parentElement);
      if (!(o >= 0)) o = 1;
      opacities.set(el, o);
    }
    return o;
  };
  const paintsBackground = (el: Element): boolean => view.backgrounds || style(el).printColorAdjust === 'exact';
  // What an element paints over what lies under it: its background colour, or null (an image: not judged).
  const backgroundOf = (el: Element): number[] | null | undefined => {
    const s = style(el);
    if (!paintsBackground(el)) return undefined;
    if (s.backgroundImage !== 'none') return null;
    const c = rgba(s.backgroundColor);
    return c[3] >= 0.5 ? c : undefined;
  };
  // The background an element's text lies on, from it up (null: an image; paper white when none paints).
  const unders = new Map<Element, number[] | null>();
  const underOf = (el: Element | null): number[] | null => {
    if (!el) return WHITE;
    let u = unders.get(el);
    if (u === undefined) {
      const own = backgroundOf(el);
      u = own === undefined ? underOf(el.parentElement) : own;
      unders.set(el, u);
    }
    return u;
  };
  // Elements that clip their content (their box is where it may show), nearest first, for each element.
  const clippers = new Map<Element, Element[]>();
  const clipsOf = (el: Element | null): Element[] => {
    if (!el || el === doc.documentElement) return [];
    let list = clippers.get(el);
    if (!list) {
      const s = style(el);
      const clips = s.overflowX !== 'visible' || s.overflowY !== 'visible' || /paint|strict|content/.test(s.contain);
      list = clips ? [el, ...clipsOf(el.parentElement)] : clipsOf(el.parentElement);
      clippers.set(el, list);
    }
    return list;
  };
  // Hidden by a means that is not a box: clip-path, clip, visibility.
  const cut = new Map<Element, boolean>();
  const isCut = (el: Element | null): boolean => {
    if (!el) return false;
    let c = cut.get(el);
    if (c === undefined) {
      const s = style(el);
      c = s.clipPath !== 'none' || (s.clip !== 'auto' && s.clip !== '') || isCut(el.parentElement);
      cut.set(el, c);
    }
    return c;
  };
  const pageHeight = Math.max(doc.documentElement.scrollHeight, root.scrollHeight);
  const within = (r: DOMRect, box: DOMRect): boolean =>
    r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;

  /** The node's visible rects (empty when it is not printed visibly), without the covering check. */
  const visibleRects = (node: Text, el: Element): DOMRect[] => {
    const s = style(el);
    if (s.visibility !== 'visible' || isCut(el)) return [];
    const range = doc.createRange();
    range.selectNodeContents(node);
    const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0.5 && r.height > 0.5);
    if (rects.length === 0) return [];
    const fontPx = Number.parseFloat(s.fontSize);
    const sy = window.scrollY;
    const clips = clipsOf(el).map((c) => c.getBoundingClientRect());
    for (const r of rects) {
      if (Math.min(fontPx, r.height) < view.minFontPx) return [];
      if (r.left < -1 || r.right > view.widthPx + 1 || r.top + sy < -1 || r.bottom + sy > pageHeight + 1) return [];
      if (!clips.every((box) => within(r, box))) return [];
    }
    // The text's colour over what lies under it among its ancestors (paper when none paints).
    if (!contrasts(s, el, underOf(el))) return [];
    return rects;
  };
  const contrasts = (s: CSSStyleDeclaration, el: Element, under: number[] | null): boolean => {
    const ink = rgba(s.webkitTextFillColor || s.color);
    const alpha = ink[3] * opacity(el);
    if (alpha < 0.35) return false;
    if (under === null) return true;
    const seen = [0, 1, 2].map((i) => alpha * ink[i] + (1 - alpha) * under[i]);
    const [l1, l2] = [luminance(seen), luminance(under)];
    // 1.5:1 tells faint from hidden: a pale brand colour (#1ee494 on #f6f6f6, 1.55:1) is read, near-white (#e5e5e5, 1.26:1) is not.
    return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05) >= 1.5;
  };
  const REPLACED = /^(IMG|CANVAS|VIDEO|SVG|IFRAME|OBJECT|EMBED|INPUT|SELECT|TEXTAREA|BUTTON)$/i;
  /** Whether another box paints over the node at any of a few points along each of its rects. */
  const covered = (node: Text, el: Element): boolean => {
    const range = doc.createRange();
    range.selectNodeContents(node);
    const count = range.getClientRects().length;
    if (count === 0) return true;
    for (let k = 0; k < count; k++) {
      let r = range.getClientRects()[k];
      const outside = (box: DOMRect) => box.top < 0 || box.bottom > window.innerHeight;
      if (outside(r)) {
        // elementsFromPoint sees only the viewport: the rect is scrolled into it first (at once, whatever
        // the document's scroll-behavior), by its own scroller when the window does not scroll to it.
        window.scrollTo({ left: 0, top: Math.max(0, r.top + window.scrollY - 100), behavior: 'instant' });
        r = range.getClientRects()[k];
        if (outside(r)) {
          el.scrollIntoView({ block: 'center', behavior: 'instant' });
          r = range.getClientRects()[k];
        }
      }
      if (r.width <= 0.5 || r.height <= 0.5) continue;
      for (const f of [0.1, 0.3, 0.5, 0.7, 0.9]) {
        const stack = doc.elementsFromPoint(r.left + r.width * f, r.top + r.height / 2);
        const at = stack.findIndex((e) => e === el || e.contains(el));
        if (at < 0) return true;
        for (let i = 0; i < at; i++) {
          const over = stack[i];
          if (el.contains(over)) continue;
          if (opacity(over) < 0.35) continue;
          if (REPLACED.test(over.tagName) || backgroundOf(over) !== undefined) return true;
        }
      }
    }
    return false;
  };
  // Boxes a document made click-through (pointer-events: none) still paint: the covering check must hit
  // them. A first cascade layer's !important beats every stylesheet of the document, a style attribute is
  // overridden where it names the property; where the document's policy refuses the sheet, every element.
  const probe = doc.createElement('style');
  probe.textContent =
    '@layer pageworks-probe { * { pointer-events: auto !important } [data-pageworks-probe] { --pageworks-probe: 1 } }';
  (doc.head ?? doc.documentElement).prepend(probe);
  const marker = doc.createElement('i');
  marker.setAttribute('data-pageworks-probe', '');
  root.append(marker);
  const applied = getComputedStyle(marker).getPropertyValue('--pageworks-probe').trim() === '1';
  marker.remove();
  const inline = applied ? doc.querySelectorAll('[style*="pointer-events" i]') : doc.querySelectorAll('*');
  for (const el of Array.from(inline)) {
    if (getComputedStyle(el).pointerEvents === 'none')
      (el as HTMLElement).style?.setProperty('pointer-events', 'auto', 'important');
  }
  const wanted = (text: string): boolean => {
    if (query.texts.some((t) => t !== '' && text.includes(t))) return true;
    const digits = text.replace(/\D+/g, '');
    return query.digits.some((d) => d !== '' && digits.includes(d));
  };
  const marks = new Map<Element, string[]>();
  for (const el of Array.from(doc.querySelectorAll('[data-bt]')).slice(0, query.maxMarked)) marks.set(el, []);
  const markOf = (el: Element | null): Element | null => {
    for (let a = el; a; a = a.parentElement) if (marks.has(a)) return a;
    return null;
  };

  const parts: string[] = [];
  let length = 0;
  let checked = 0;
  // The last visible node's last rect, in the document's coordinates (the covering check scrolls).
  let last: { top: number; bottom: number; right: number } | null = null;
  let lastBlock: Element | null = null;
  const blocks = new Map<Element, Element>();
  const blockOf = (el: Element): Element => {
    let b = blocks.get(el);
    if (!b) {
      const d = style(el).display;
      b = d.startsWith('inline') || d === 'contents' ? (el.parentElement ? blockOf(el.parentElement) : el) : el;
      blocks.set(el, b);
    }
    return b;
  };
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  for (let n = walker.nextNode(); n && length < query.maxText; n = walker.nextNode()) {
    if (n.nodeType === 1) {
      if ((n as Element).tagName === 'BR') last = null;
      continue;
    }
    const node = n as Text;
    const el = node.parentElement;
    const raw = node.data;
    if (!el || raw.trim() === '') continue;
    const sy = window.scrollY;
    let rects = visibleRects(node, el);
    const mark = markOf(el);
    if (rects.length > 0 && (mark || wanted(raw))) {
      checked += 1;
      if (checked > query.maxCovered || covered(node, el)) rects = [];
    }
    if (rects.length === 0) {
      parts.push('\n');
      last = null;
      continue;
    }
    const transform = style(el).textTransform;
    const text = transform === 'uppercase' ? raw.toUpperCase() : transform === 'lowercase' ? raw.toLowerCase() : raw;
    const block = blockOf(el);
    const r = rects[0];
    // Side by side on one line (table cells, flex items): a tab; the same block's flow: nothing; else a new line.
    const sameLine = last !== null && r.top + sy < last.bottom && r.bottom + sy > last.top && r.left >= last.right - 1;
    const sep = last === null ? '\n' : block === lastBlock ? '' : sameLine ? '\t' : '\n';
    parts.push(sep, text);
    length += sep.length + text.length;
    if (mark) marks.get(mark)?.push(text);
    const end = rects[rects.length - 1];
    last = { top: end.top + sy, bottom: end.bottom + sy, right: end.right };
    lastBlock = block;
  }
  window.scrollTo({ left: 0, top: 0, behavior: 'instant' });
  const marked = Array.from(marks.entries()).map(([el, texts]) => ({
    term: (el.getAttribute('data-bt') ?? '').trim().slice(0, 20),
    text: texts.length > 0 ? texts.join('') : null,
  }));
  return { text: parts.join('').slice(0, query.maxText), lang, marked };
}
