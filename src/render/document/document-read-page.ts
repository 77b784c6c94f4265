/**
 * The read of a document once it is ready to print (it ends preparePage's call), in the page's own
 * (main) world: what the document says about itself (title, `lang`, the metas, which hold the Info and the
 * `pdf-profile` and `factur-x` declarations), where its stylesheets may use cross-references, whether it
 * may declare anything or attach a file, and whether a font of it failed. An isolated world would keep the
 * document's scripts out of this read as well, but Chromium makes one per document at about 4 ms of the
 * renderer's time, a twentieth of a small invoice's render; so the common render, and a document that
 * declares a profile in its metas, read here, and an isolated world is asked for only when there is more
 * to read (an attachment, a PDF/UA declaration, a failed font, a document that navigated).
 *
 * The document's scripts may replace any global or prototype of its window, so the read uses built-ins
 * taken from the fresh window before the document is written (takeReadKit), and calls them with the
 * taken Reflect.apply. What it returns it builds on objects without a prototype, so a setter the
 * document put on Object.prototype or Array.prototype is never called. It returns raw values, cut to
 * size: Node checks and cleans them (document-read.ts). Both functions run in the page: serialised with
 * their source, they refer to nothing outside themselves.
 */

/** The built-ins the read calls, as the fresh window has them. */
export type ReadKit = ReturnType<typeof takeReadKit>;

/** Caps applied in the page: metas and style/link elements looked at, characters kept of a value, of a title, of an address. */
export interface ReadLimits {
  metas: number;
  nodes: number;
  chars: number;
  titleChars: number;
  hrefChars: number;
}

/** A list as the page returns it: a prototype-less object with `n` entries at keys 0 to n-1. */
export interface PageList<T> {
  n: number;
  [index: number]: T;
}

/** What the main-world read returns, before Node checks it. */
export interface PageRead {
  title: string | null;
  lang: string | null;
  /** `<meta>` elements in document order: their `name` and `content` attributes, cut to size ('' when absent). */
  metas: PageList<{ name: string; content: string }>;
  /** How many `<meta>` elements the document has (-1 when it could not be told): `metas` holds all of them when equal. */
  metaCount: number;
  /** Style elements whose text mentions a cross-reference function, by index among style and stylesheet link elements. */
  styles: PageList<number>;
  /** Stylesheet links: their index among those elements and their absolute address. */
  links: PageList<{ node: number; href: string }>;
  /** Whether the document may declare PDF profiles, factur-x or attachments (true when it could not be told). */
  declares: boolean;
  /** Whether the document may declare attachments (true when it could not be told): only the isolated world reads those. */
  attaches: boolean;
  /** Whether a font face of the document is in the `error` state (true when it could not be told). */
  fontsFailed: boolean;
  /**
   * Whether an image printed empty, or a style sheet, script or frame has an address without a scheme (true
   * when it could not be told): the isolated world then says which (report-page.ts brokenResources).
   */
  resourcesBroken: boolean;
}

/** Runs in the page before the document is written: the built-ins of the fresh window. */
export function takeReadKit() {
  const getter = (proto: object, name: string) => Object.getOwnPropertyDescriptor(proto, name)?.get;
  return {
    apply: Reflect.apply,
    create: Object.create,
    document,
    fonts: document.fonts,
    title: getter(Document.prototype, 'title'),
    root: getter(Document.prototype, 'documentElement'),
    byTag: Document.prototype.getElementsByTagName,
    query: Document.prototype.querySelector,
    queryAll: Document.prototype.querySelectorAll,
    collectionLength: getter(HTMLCollection.prototype, 'length'),
    collectionItem: HTMLCollection.prototype.item,
    listLength: getter(NodeList.prototype, 'length'),
    listItem: NodeList.prototype.item,
    attribute: Element.prototype.getAttribute,
    localName: getter(Element.prototype, 'localName'),
    href: getter(HTMLLinkElement.prototype, 'href'),
    text: getter(Node.prototype, 'textContent'),
    eachFont: FontFaceSet.prototype.forEach,
    status: getter(FontFace.prototype, 'status'),
    images: getter(Document.prototype, 'images'),
    complete: getter(HTMLImageElement.prototype, 'complete'),
    naturalWidth: getter(HTMLImageElement.prototype, 'naturalWidth'),
    indexOf: String.prototype.indexOf,
    slice: String.prototype.slice,
    lower: String.prototype.toLowerCase,
    trimEnd: String.prototype.trimEnd,
    endsWith: String.prototype.endsWith,
  };
}

/** Runs in the page once the document is ready to print: see the file's comment. */
export function readWithKit(k: ReadKit, limits: ReadLimits): PageRead {
  const { apply } = k;
  const call = (fn: unknown, self: unknown, args: unknown[]): unknown => apply(fn as (...a: unknown[]) => unknown, self, args);
  const cut = (value: unknown, chars: number): string =>
    typeof value === 'string' ? (call(k.slice, value, [0, chars]) as string) : '';
  const list = <T>(): PageList<T> => {
    const made = k.create(null) as PageList<T>;
    made.n = 0;
    return made;
  };
  const add = <T>(to: PageList<T>, value: T): void => {
    to[to.n] = value;
    to.n += 1;
  };
  const out = k.create(null) as PageRead;
  out.title = null;
  out.lang = null;
  out.metas = list();
  out.metaCount = -1;
  out.styles = list();
  out.links = list();
  out.declares = true;
  out.attaches = true;
  out.fontsFailed = true;
  out.resourcesBroken = true;
  try {
    const title = call(k.title, k.document, []);
    out.title = typeof title === 'string' ? cut(title, limits.titleChars) : null;
    const root = call(k.root, k.document, []);
    const lang = root ? call(k.attribute, root, ['lang']) : null;
    out.lang = typeof lang === 'string' ? cut(lang, limits.chars) : null;
    const metas = call(k.byTag, k.document, ['meta']);
    const metaCount = call(k.collectionLength, metas, []) as number;
    for (let i = 0; i < metaCount && i < limits.metas; i++) {
      const meta = call(k.collectionItem, metas, [i]);
      const entry = k.create(null) as { name: string; content: string };
      entry.name = cut(call(k.attribute, meta, ['name']), 64);
      entry.content = cut(call(k.attribute, meta, ['content']), limits.chars);
      add(out.metas, entry);
    }
    out.metaCount = metaCount;
  } catch {
    // A document that broke the DOM itself (not its prototypes: those were taken before it ran) states nothing.
  }
  const mentions = (text: string): boolean => {
    for (let at = call(k.indexOf, text, ['(']) as number; at >= 0; at = call(k.indexOf, text, ['(', at + 1]) as number) {
      const before = call(k.slice, text, [at > 20 ? at - 20 : 0, at]);
      const name = call(k.lower, call(k.trimEnd, before, []), []);
      // (No for…of over a list of names: that would use the document's Array iterator.)
      if (
        call(k.endsWith, name, ['leader']) ||
        call(k.endsWith, name, ['target-counter']) ||
        call(k.endsWith, name, ['target-text'])
      )
        return true;
    }
    return false;
  };
  try {
    const nodes = call(k.queryAll, k.document, ['style, link[rel~="stylesheet" i]']);
    const count = call(k.listLength, nodes, []) as number;
    for (let i = 0; i < count && i < limits.nodes; i++) {
      const node = call(k.listItem, nodes, [i]);
      let href: unknown;
      try {
        href = call(k.href, node, []);
      } catch {
        // not an HTML link (a style element): its text is read below
        href = undefined;
      }
      if (typeof href === 'string') {
        // A longer address (a data: URL) was no request the cross-reference passes could read back.
        if (href !== '' && href.length <= limits.hrefChars) {
          const link = k.create(null) as { node: number; href: string };
          link.node = i;
          link.href = href;
          add(out.links, link);
        }
      } else {
        const text = call(k.text, node, []);
        if (typeof text === 'string' && mentions(text)) add(out.styles, i);
      }
    }
  } catch {
    // As above: no cross-references are looked for in a document that broke its own DOM.
  }
  try {
    out.declares =
      call(k.query, k.document, ['meta[name*="pdf-profile" i], meta[name*="factur-x" i], link[rel*="attachment" i]']) !== null;
    out.attaches = out.declares && call(k.query, k.document, ['link[rel*="attachment" i]']) !== null;
  } catch {
    out.declares = true;
    out.attaches = true;
  }
  try {
    let failed = false;
    call(k.eachFont, k.fonts, [
      (face: unknown) => {
        try {
          if (call(k.status, face, []) === 'error') failed = true;
        } catch {
          failed = true;
        }
      },
    ]);
    out.fontsFailed = failed;
  } catch {
    out.fontsFailed = true;
  }
  try {
    const images = call(k.images, k.document, []);
    const count = call(k.collectionLength, images, []) as number;
    let broken = count > limits.nodes;
    for (let i = 0; i < count && !broken; i++) {
      const image = call(k.collectionItem, images, [i]);
      broken = call(k.complete, image, []) === true && call(k.naturalWidth, image, []) === 0;
    }
    const nodes = call(k.queryAll, k.document, ['link[rel~="stylesheet" i][href], script[src], iframe[src], frame[src]']);
    const addresses = call(k.listLength, nodes, []) as number;
    broken ||= addresses > limits.nodes;
    for (let i = 0; i < addresses && !broken; i++) {
      const node = call(k.listItem, nodes, [i]);
      const written = call(k.attribute, node, [call(k.localName, node, []) === 'link' ? 'href' : 'src']);
      broken = typeof written === 'string' && (call(k.indexOf, written, [':']) as number) < 0;
    }
    out.resourcesBroken = broken;
  } catch {
    out.resourcesBroken = true;
  }
  return out;
}
