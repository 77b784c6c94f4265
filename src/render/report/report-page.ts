/**
 * The render report's part inside the page: the document's uncaught exceptions and unhandled rejections,
 * and its web fonts that failed. Serialised with callExpression like document/page-script.ts, so each function
 * refers to nothing outside itself. What the page collects waits in the window (one property, not
 * enumerable) and is taken with the answer of a call the render makes anyway: no extra round trip.
 */

/** What the page hands over: script errors since the last take (time, text), how many were dropped, failed fonts. */
export interface PageReport {
  errors: Array<[at: number, text: string]>;
  dropped: number;
  fonts: Array<{ family: string; urls: string[] }>;
}

/**
 * Runs in the page right after document.open() (which erases the window's listeners) and before the
 * document is written: listens for uncaught exceptions and unhandled rejections, keeps the first 100
 * (a report's most entries; each cut to 300 characters) and counts the rest, so 10,000 throws cost
 * 10,000 increments.
 */
export function watchErrors(): void {
  const limit = 100;
  const now = Date.now;
  // The document's scripts may replace globals (document.fonts included): what takeReport needs is kept here.
  const state = { errors: [] as Array<[number, string]>, taken: 0, dropped: 0, fonts: document.fonts };
  Object.defineProperty(window, Symbol.for('pageworks.report'), { value: state });
  const add = (text: () => string): void => {
    if (state.errors.length >= limit) {
      state.dropped += 1;
      return;
    }
    let said: string;
    try {
      said = text();
    } catch {
      said = 'an error whose text could not be read';
    }
    state.errors.push([now(), said.slice(0, 300)]);
  };
  window.addEventListener('error', (event) => {
    // Only script errors reach the window; a failed <img> or <link> fires on its element (not bubbling).
    if (!(event instanceof ErrorEvent)) return;
    add(() => (event.error instanceof Error ? String(event.error) : event.message || 'Script error.'));
  });
  window.addEventListener('unhandledrejection', (event) => {
    // A rejected pageworksReady is reported on its own (not_ready), once.
    if (event.promise === (window as { pageworksReady?: unknown }).pageworksReady) return;
    const reason: unknown = event.reason;
    add(() => `Unhandled rejection: ${reason instanceof Error ? String(reason) : String(reason)}`);
  });
}

/**
 * Runs in the page just before it prints: the script errors not taken yet, and every font face in state
 * `error` with the `src` URLs of the readable @font-face rules of its family (a cross-origin sheet's
 * rules cannot be read; the renderer then matches the family to a failed font request). A document that
 * broke what this needs loses its report's page part, never its print.
 */
export function takeReport(): PageReport | undefined {
  try {
    const state = (
      window as unknown as Record<symbol, { errors: Array<[number, string]>; taken: number; dropped: number; fonts: FontFaceSet }>
    )[Symbol.for('pageworks.report')];
    const errors = state ? state.errors.slice(state.taken) : [];
    if (state) state.taken = state.errors.length;
    return { errors, dropped: state ? state.dropped : 0, fonts: failedFonts(state?.fonts ?? document.fonts) };
  } catch {
    return undefined;
  }

  function failedFonts(set: FontFaceSet): PageReport['fonts'] {
    const fonts: PageReport['fonts'] = [];
    const unquote = (family: string): string => family.replace(/^(["'])(.*)\1$/, '$2');
    set.forEach((face) => {
      if (face.status !== 'error') return;
      const family = unquote(face.family);
      const urls: string[] = [];
      for (const sheet of Array.from(document.styleSheets)) {
        let rules: CSSRule[];
        try {
          rules = Array.from(sheet.cssRules);
        } catch {
          continue;
        }
        for (const rule of rules) {
          if (!(rule instanceof CSSFontFaceRule) || unquote(rule.style.getPropertyValue('font-family')) !== family) continue;
          for (const m of rule.style.getPropertyValue('src').matchAll(/url\(\s*(["']?)(.*?)\1\s*\)/g)) {
            try {
              urls.push(new URL(m[2], sheet.href ?? document.baseURI).href);
            } catch {
              // not a URL: nothing to name
            }
          }
        }
      }
      fonts.push({ family, urls });
    });
    return fonts;
  }
}
