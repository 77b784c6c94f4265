/**
 * The render report's part inside the page. The document is untrusted and so is everything its scripts
 * can reach (globals, symbols, prototypes, the DOM): no report state lives there.
 * - Script errors: listeners added before the document runs keep them in their own closure, with the
 *   built-ins they use taken first; the take function is held only by the render (on a holder object
 *   no global leads to), so a document can neither read nor rewrite what was collected.
 * - Failed fonts: read in an isolated world, whose globals the document cannot touch.
 * Every function here is serialised with callExpression (like document/page-script.ts), so it refers to
 * nothing outside itself, and bounds what it hands over (count and length): the collector checks it
 * again in Node.
 */

/** Script errors since the last take (time, text), and how many were not kept. */
export interface PageErrors {
  errors: Array<[at: number, text: string]>;
  dropped: number;
}

/** The failed font families of the document, with the `src` URLs of their readable @font-face rules. */
export type PageFonts = Array<{ family: string; urls: string[] }>;

/** What the document asked for that no request fetched or showed: the address as written or asked for, and why. */
export type PageBroken = Array<{ url: string; why: 'relative' | 'undecodable' }>;

/** A report keeps this many script errors, each of this many characters. */
export const PAGE_LIMITS = { errors: 100, text: 300, fonts: 100, urls: 10, url: 2048, broken: 100 } as const;

/**
 * Runs in the page right after document.open() (which erases the window's listeners) and before the
 * document is written: listens for uncaught exceptions and unhandled rejections, keeps the first
 * `limits.errors` (each cut to `limits.text` characters) and counts the rest, so 10,000 throws cost
 * 10,000 increments. Returns the take function: what was collected since its last call.
 */
export function watchErrors(limits: { errors: number; text: number }): () => PageErrors {
  // Everything used later is taken now, before the document can replace it. Collected values go into
  // objects without a prototype and arrays are filled with defineProperty: a setter the document puts
  // on Object.prototype or Array.prototype never sees them.
  const apply = Reflect.apply;
  const define = Object.defineProperty;
  const create = Object.create;
  const slice = String.prototype.slice;
  const toText = String;
  const now = Date.now;
  const ErrorClass = Error;
  const ErrorEventClass = ErrorEvent;
  const RejectionClass = PromiseRejectionEvent;
  const get = (proto: object, name: string) => Object.getOwnPropertyDescriptor(proto, name)?.get;
  const message = get(ErrorEvent.prototype, 'message');
  const error = get(ErrorEvent.prototype, 'error');
  const reason = get(PromiseRejectionEvent.prototype, 'reason');
  const promise = get(PromiseRejectionEvent.prototype, 'promise');
  const readySignal = Object.getOwnPropertyDescriptor(window, 'pageworksReady')?.get;
  const listen = EventTarget.prototype.addEventListener;
  const times: Record<number, number> = create(null);
  const texts: Record<number, string> = create(null);
  let kept = 0;
  let taken = 0;
  let dropped = 0;
  const add = (text: () => unknown): void => {
    if (kept >= limits.errors) {
      dropped += 1;
      return;
    }
    let said: string;
    try {
      said = apply(slice, toText(text()), [0, limits.text]) as string;
    } catch {
      said = 'an error whose text could not be read';
    }
    times[kept] = now();
    texts[kept] = said;
    kept += 1;
  };
  apply(listen, window, [
    'error',
    (event: Event) => {
      // Only script errors reach the window; a failed <img> or <link> fires on its element (not bubbling).
      if (!(event instanceof ErrorEventClass)) return;
      add(() => {
        const thrown: unknown = error ? apply(error, event, []) : undefined;
        return thrown instanceof ErrorClass ? thrown : (message ? apply(message, event, []) : '') || 'Script error.';
      });
    },
  ]);
  apply(listen, window, [
    'unhandledrejection',
    (event: Event) => {
      if (!(event instanceof RejectionClass)) return;
      // A rejected pageworksReady is reported on its own (not_ready), once.
      if (readySignal && promise && apply(promise, event, []) === apply(readySignal, window, [])) return;
      add(() => `Unhandled rejection: ${toText(reason ? apply(reason, event, []) : undefined)}`);
    },
  ]);
  return () => {
    const errors: Array<[number, string]> = [];
    for (let i = taken; i < kept; i++) {
      define(errors, i - taken, { value: [times[i], texts[i]], enumerable: true, writable: true, configurable: true });
    }
    taken = kept;
    const out: PageErrors = create(null);
    out.errors = errors;
    out.dropped = dropped;
    return out;
  };
}

/**
 * Runs in an isolated world just before the document prints: each family with a font face in state
 * `error`, with the `src` URLs of the readable @font-face rules of its failed faces (a family of many faces
 * lists a file Chromium never asked for otherwise: only the faces a document uses are loaded), or of all
 * its rules when none of them is one of those faces (a cross-origin sheet's rules cannot be read; the
 * renderer then matches the family to a failed font request), cut to `limits`.
 */
export function failedFonts(limits: { fonts: number; urls: number; url: number; text: number }): PageFonts {
  const fonts: PageFonts = [];
  const unquote = (family: string): string => family.replace(/^(["'])(.*)\1$/, '$2');
  // A face's descriptors as FontFace reads them; a rule leaves out those at their initial value.
  const descriptors = (face: { style: string; weight: string; stretch: string; unicodeRange: string }): string =>
    [face.style || 'normal', face.weight || 'normal', face.stretch || 'normal', face.unicodeRange || 'U+0-10FFFF'].join('|');
  try {
    const failed = new Map<string, Set<string>>();
    document.fonts.forEach((face) => {
      if (face.status !== 'error') return;
      const family = unquote(face.family);
      if (!failed.has(family) && failed.size >= limits.fonts) return;
      failed.set(family, (failed.get(family) ?? new Set<string>()).add(descriptors(face)));
    });
    const rules: CSSFontFaceRule[] = [];
    for (const sheet of Array.from(document.styleSheets)) {
      try {
        for (const rule of Array.from(sheet.cssRules)) if (rule instanceof CSSFontFaceRule) rules.push(rule);
      } catch {
        // cross-origin: its rules cannot be read
      }
    }
    for (const [family, faces] of failed) {
      const ofFamily = rules.filter((rule) => unquote(rule.style.getPropertyValue('font-family')) === family);
      const ofFaces = ofFamily.filter((rule) =>
        faces.has(
          descriptors({
            style: rule.style.getPropertyValue('font-style'),
            weight: rule.style.getPropertyValue('font-weight'),
            stretch: rule.style.getPropertyValue('font-stretch'),
            unicodeRange: rule.style.getPropertyValue('unicode-range'),
          }),
        ),
      );
      const urls: string[] = [];
      for (const rule of ofFaces.length > 0 ? ofFaces : ofFamily) {
        const base = rule.parentStyleSheet?.href ?? document.baseURI;
        for (const m of rule.style.getPropertyValue('src').matchAll(/url\(\s*(["']?)(.*?)\1\s*\)/g)) {
          if (urls.length >= limits.urls) break;
          try {
            urls.push(new URL(m[2], base).href.slice(0, limits.url));
          } catch {
            // not a URL: nothing to name
          }
        }
      }
      fonts.push({ family: family.slice(0, limits.text), urls });
    }
  } catch {
    // A document that broke what this reads loses its fonts' part of the report, never its print.
  }
  return fonts;
}

/**
 * Runs in an isolated world just before the document prints: what the document asked for that no network
 * event reports. A relative address (a document written as HTML has about:blank for its address, so
 * `/img/logo.png` resolves to nothing and Chromium asks for nothing) on an image, style sheet, script or
 * frame; and an image whose bytes arrived and are not an image (a broken-image icon prints). An image that
 * failed on the network is complete and empty too: the collector leaves those to their request's entry.
 */
export function brokenResources(limits: { broken: number; url: number }): PageBroken {
  const broken: PageBroken = [];
  // The address as written when it is relative and resolves to nothing; null otherwise.
  const unresolved = (value: string | null | undefined): string | null => {
    const written = (value ?? '').trim();
    if (written === '' || /^[a-z][a-z\d+.-]*:/i.test(written)) return null;
    try {
      new URL(written, document.baseURI);
      return null;
    } catch {
      return written.slice(0, limits.url);
    }
  };
  try {
    for (const image of Array.from(document.images)) {
      if (broken.length >= limits.broken) return broken;
      if (!image.complete || image.naturalWidth > 0) continue;
      if (image.currentSrc !== '') {
        broken.push({ url: image.currentSrc.slice(0, limits.url), why: 'undecodable' });
        continue;
      }
      // The first candidate of a srcset stands for it: one relative candidate makes them all so.
      const written = image.getAttribute('src') ?? image.getAttribute('srcset')?.trim().split(/\s+/)[0];
      const url = unresolved(written);
      if (url !== null) broken.push({ url, why: 'relative' });
    }
    const others = document.querySelectorAll('link[rel~="stylesheet" i][href], script[src], iframe[src], frame[src]');
    for (const element of Array.from(others)) {
      if (broken.length >= limits.broken) break;
      const url = unresolved(element.getAttribute(element.localName === 'link' ? 'href' : 'src'));
      if (url !== null) broken.push({ url, why: 'relative' });
    }
  } catch {
    // A document that broke what this reads loses this part of the report, never its print.
  }
  return broken;
}
