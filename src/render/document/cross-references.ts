/**
 * Cross-references in generated content (docs/rendering.md#documents-print-as-written): `target-counter()`,
 * `target-text()` and `leader()` in `content`. Chromium drops a declaration that uses them when it parses
 * the stylesheet, so the stylesheet's text is read again here: every `content` declaration of a sheet that
 * uses them is written into a style element placed right after that sheet (same selectors, same order, so
 * specificity and "later wins" decide as in CSS), each function becoming `attr(data-pageworks-xN)`, an
 * attribute set on every element the rule matches. The functions run in the page: each is serialised with
 * callExpression and refers to nothing outside itself.
 */

/** Where a document's stylesheets use the functions: style elements by index, and linked sheets to read. */
export interface CrossReferenceUse {
  /** Indexes (among `style` and stylesheet `link` elements) of style elements that use the functions. */
  styles: number[];
  /** Linked stylesheets, whose text only the network saw: their index and absolute URL. */
  links: Array<{ node: number; href: string }>;
}

/** A stylesheet that uses the functions: its element's index among `style` and stylesheet `link` elements. */
export interface CrossReferenceSource {
  node: number;
  /** The sheet's text; absent for a style element, which is read in the page. */
  text?: string;
}

/** One function of one `content` declaration, filled in on every element its selector matches. */
export interface CrossReferenceBinding {
  /** The selector of the originating element (the rule's selector without `::before`/`::after`). */
  selector: string;
  attribute: string;
  kind: 'counter' | 'text' | 'leader';
  /** Where the target is named: an attribute of the element (`attr(href)`), or the URL itself. */
  url?: { attr: string } | { literal: string };
  /** The counter style of a page number (`decimal`, `lower-roman`…); the counter must be `page`. */
  style?: string;
  counter?: string;
  /** The string a leader repeats, the pseudo-element it fills, and what follows it in `content`. */
  leader?: string;
  side?: 'before' | 'after';
  tail?: Array<{ text: string } | { attribute: string }>;
}

/**
 * Whether stylesheet text may use the functions (the parse decides): one of their names right before a
 * `(`. A style element can hold megabytes of inlined fonts: going from `(` to `(` reads 3.8 MB in about
 * 2 ms, a case-insensitive regex over the whole text in about 30. Runs in the page too (self-contained).
 */
export function mentionsCrossReferences(text: string): boolean {
  for (let at = text.indexOf('('); at >= 0; at = text.indexOf('(', at + 1)) {
    const name = text
      .slice(Math.max(0, at - 20), at)
      .trimEnd()
      .toLowerCase();
    if (name.endsWith('leader') || name.endsWith('target-counter') || name.endsWith('target-text')) return true;
  }
  return false;
}

/**
 * Runs in the page, inside the prepare round trip, given mentionsCrossReferences: which style elements
 * use the functions, and which stylesheets were linked (their text is read from the network). Undefined
 * when neither: the document prints in one pass, as it would without this feature.
 */
export function findCrossReferenceUse(mentions: (text: string) => boolean): CrossReferenceUse | undefined {
  try {
    const styles: number[] = [];
    const links: Array<{ node: number; href: string }> = [];
    document.querySelectorAll('style, link[rel~="stylesheet" i]').forEach((node, i) => {
      if (node instanceof HTMLLinkElement) {
        if (node.href !== '') links.push({ node: i, href: node.href });
      } else if (mentions(node.textContent ?? '')) styles.push(i);
    });
    return styles.length > 0 || links.length > 0 ? { styles, links } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs in the page. Parses each source's text, places the rewritten `content` declarations right after it,
 * and adds the leader layout.
 * Returns the bindings to fill.
 */
export function installCrossReferences(sources: CrossReferenceSource[]): CrossReferenceBinding[] {
  const functions = /^(target-counter|target-text|leader)\(/i;
  const nodes = document.querySelectorAll('style, link[rel~="stylesheet" i]');
  const bindings: CrossReferenceBinding[] = [];
  // Strings (a font inlined as a quoted data: URL can be megabytes) and blocks are crossed with indexOf
  // and a regex, not character by character.
  const skipString = (text: string, j: number): number => {
    for (let k = j + 1; ; ) {
      const end = text.indexOf(text[j], k);
      if (end < 0) return text.length;
      let escapes = 0;
      while (text[end - 1 - escapes] === '\\') escapes++;
      if (escapes % 2 === 0) return end + 1;
      k = end + 1;
    }
  };
  const skipComment = (text: string, j: number): number => {
    const end = text.indexOf('*/', j + 2);
    return end < 0 ? text.length : end + 2;
  };
  // Splits at `separator` outside strings, comments, parentheses and blocks.
  const split = (text: string, separator: string): string[] => {
    const parts: string[] = [];
    let depth = 0;
    let from = 0;
    for (let j = 0; j < text.length; ) {
      const c = text[j];
      if (c === '"' || c === "'") j = skipString(text, j);
      else if (c === '/' && text[j + 1] === '*') j = skipComment(text, j);
      else {
        if (c === '(' || c === '[' || c === '{') depth++;
        else if (c === ')' || c === ']' || c === '}') depth--;
        else if (c === separator && depth === 0) {
          parts.push(text.slice(from, j));
          from = j + 1;
        }
        j++;
      }
    }
    parts.push(text.slice(from));
    return parts;
  };
  const blockEnd = (text: string, j: number): number => {
    let depth = 1;
    const special = /["'{}]|\/\*/g;
    special.lastIndex = j;
    for (let m = special.exec(text); m; m = special.exec(text)) {
      const c = m[0];
      if (c === '"' || c === "'") special.lastIndex = skipString(text, m.index);
      else if (c === '/*') special.lastIndex = skipComment(text, m.index);
      else if (c === '{') depth++;
      else if (--depth === 0) return m.index;
    }
    return text.length;
  };
  // The body of a rule without the rules nested in it (CSS nesting): its own declarations.
  const ownDeclarations = (text: string, from: number, to: number): string => {
    let own = '';
    let kept = from;
    let statement = from;
    const special = /["'{};]|\/\*/g;
    special.lastIndex = from;
    for (let m = special.exec(text); m && m.index < to; m = special.exec(text)) {
      const c = m[0];
      if (c === '"' || c === "'") special.lastIndex = skipString(text, m.index);
      else if (c === '/*') special.lastIndex = skipComment(text, m.index);
      else if (c === ';' || c === '}') statement = m.index + 1;
      else {
        own += text.slice(kept, statement);
        kept = statement = special.lastIndex = blockEnd(text, m.index + 1) + 1;
      }
    }
    return own + text.slice(kept, to);
  };
  // A nested rule's selector, as CSS nesting reads it: `&` is the parent, else a descendant of it.
  const nest = (parent: string, selectors: string): string =>
    split(selectors, ',')
      .map((selector) =>
        selector.includes('&') ? selector.replace(/&/g, `:is(${parent})`) : `:is(${parent}) ${selector.trim()}`,
      )
      .join(', ');
  const unquote = (s: string): string =>
    s
      .slice(1, -1)
      .replace(/\\([0-9a-fA-F]{1,6})\s?/g, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
      .replace(/\\(.)/g, '$1');
  const urlOf = (arg: string): CrossReferenceBinding['url'] => {
    const a = /^attr\(\s*([\w-]+)(?:\s+url)?\s*\)$/i.exec(arg);
    if (a) return { attr: a[1].toLowerCase() };
    const u = /^url\(\s*(?:"([^"]*)"|'([^']*)'|([^)\s]*))\s*\)$/i.exec(arg);
    if (u) return { literal: u[1] ?? u[2] ?? u[3] };
    if (/^["']/.test(arg)) return { literal: unquote(arg) };
    return undefined;
  };
  const leaderString = (arg: string): string => {
    const keyword = arg.toLowerCase();
    if (keyword === 'dotted') return '.';
    if (keyword === 'solid') return '_';
    if (keyword === 'space') return ' ';
    return /^["']/.test(arg) ? unquote(arg) : '.';
  };
  let count = 0;
  let leaders = false;
  // The `content` value with each function turned into an attribute, and the bindings that fill them.
  const rewrite = (selectors: string, value: string): string => {
    const parts =
      value.match(
        /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[\w-]+\((?:[^()"']|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\([^()]*\))*\)|\S+/g,
      ) ?? [];
    const made: CrossReferenceBinding[] = [];
    const out: string[] = [];
    let leader: CrossReferenceBinding | undefined;
    for (const part of parts) {
      const fn = functions.exec(part);
      if (!fn) {
        out.push(part);
        // What follows a leader: the room its pseudo-element keeps for it when the line is short.
        leader?.tail?.push({ text: /^["']/.test(part) ? unquote(part) : '' });
        continue;
      }
      const args = split(part.slice(fn[0].length, -1), ',').map((s) => s.trim());
      const attribute = `data-pageworks-x${count++}`;
      const name = fn[1].toLowerCase();
      leader?.tail?.push({ attribute });
      if (name === 'leader') {
        leader = { selector: '', attribute, kind: 'leader', leader: leaderString(args[0] ?? ''), tail: [] };
        leaders = true;
        made.push(leader);
      } else if (name === 'target-text') made.push({ selector: '', attribute, kind: 'text', url: urlOf(args[0] ?? '') });
      else
        made.push({
          selector: '',
          attribute,
          kind: 'counter',
          url: urlOf(args[0] ?? ''),
          counter: (args[1] ?? '').toLowerCase(),
          style: (args[2] ?? 'decimal').toLowerCase(),
        });
      out.push(`attr(${attribute})`);
    }
    for (const selector of split(selectors, ',')) {
      const pseudo = /::?(before|after)\s*$/i.exec(selector.trim());
      if (!pseudo) continue;
      const element = selector.trim().slice(0, -pseudo[0].length).trim() || '*';
      const side = pseudo[1].toLowerCase() as 'before' | 'after';
      for (const b of made) bindings.push({ ...b, selector: element, ...(b.kind === 'leader' ? { side } : {}) });
    }
    return out.join(' ');
  };
  const parse = (text: string, from: number, to: number, groups: string[], parent: string | null, css: string[]): void => {
    let start = from;
    const special = /["'{};]|\/\*/g;
    special.lastIndex = from;
    for (let m = special.exec(text); m && m.index < to; m = special.exec(text)) {
      const [c, j] = [m[0], m.index];
      if (c === '"' || c === "'") special.lastIndex = skipString(text, j);
      else if (c === '/*') special.lastIndex = skipComment(text, j);
      else if (c === ';' || c === '}') start = j + 1;
      else {
        const end = blockEnd(text, j + 1);
        const prelude = text
          .slice(start, j)
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .trim();
        if (/^@(media|supports|layer|container|scope)\b/i.test(prelude))
          parse(text, j + 1, end, [...groups, prelude], parent, css);
        else if (!prelude.startsWith('@') && prelude !== '') {
          const selector = parent === null ? prelude : nest(parent, prelude);
          let content: string | undefined;
          for (const declaration of split(ownDeclarations(text, j + 1, end), ';')) {
            const colon = declaration.indexOf(':');
            if (colon > 0 && declaration.slice(0, colon).trim().toLowerCase() === 'content')
              content = declaration.slice(colon + 1).trim();
          }
          if (content !== undefined) {
            const important = /!\s*important\s*$/i.test(content);
            const value = content.replace(/!\s*important\s*$/i, '').trim();
            const rewritten = /target-(?:counter|text)\s*\(|leader\s*\(/i.test(value) ? rewrite(selector, value) : value;
            const open = groups.map((g) => `${g}{`).join('');
            css.push(`${open}${selector}{content:${rewritten}${important ? ' !important' : ''}}${'}'.repeat(groups.length)}`);
          }
          parse(text, j + 1, end, groups, selector, css);
        }
        start = special.lastIndex = end + 1;
      }
    }
  };
  for (const source of sources) {
    const node = nodes[source.node];
    if (!node) continue;
    const text = source.text ?? node.textContent ?? '';
    const css: string[] = [];
    const before = bindings.length;
    parse(text, 0, text.length, [], null, css);
    if (bindings.length === before) continue;
    const style = document.createElement('style');
    style.textContent = css.join('\n');
    node.after(style);
  }
  if (leaders) {
    // leader(): the originating element lays its line out as a row, and the pseudo-element takes the rest
    // of it, its text (the leader run, then the number) set against its end and cut at its start. The row
    // is the weakest author rule (first, one attribute): a document that sets the element's display (none
    // in print, say) keeps it.
    const style = document.createElement('style');
    style.textContent = `[data-pageworks-leader]{display:flex;align-items:baseline}
[data-pageworks-leader=after]::after,[data-pageworks-leader=before]::before{display:flex!important;flex:1 1 0!important;justify-content:flex-end!important;overflow:hidden!important;white-space:pre!important;min-width:var(--pageworks-leader-tail,2ch)!important}`;
    document.head?.prepend(style);
  }
  return bindings;
}
