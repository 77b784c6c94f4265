/**
 * What a document says about itself, read in the page right before it prints, for the PDF's Info
 * dictionary (src/pdf/pdf-info.ts). Runs in the page: serialised with callExpression, so it refers to nothing
 * outside itself.
 */

/** The properties a document states in its markup; absent when it states none. */
export interface DocumentInfo {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  lang?: string;
}

/**
 * Runs in the page. `<title>` (as `document.title` has it), the first non-empty `<meta name=author>`,
 * `description` and `keywords` (names compared ASCII case-insensitively, whitespace collapsed), and
 * `<html lang>`, each at most 4,096 UTF-16 code units. A document that broke the DOM methods this uses gets no properties rather than a failed
 * render.
 */
export function readDocumentInfo(): DocumentInfo {
  // A script can make a title of any length; each property stops here (not inside a surrogate pair).
  const MAX_CHARS = 4096;
  const clean = (value: unknown): string | undefined => {
    if (typeof value !== 'string') return undefined;
    let text = value.replace(/[\t\n\f\r ]+/g, ' ').trim();
    if (text.length > MAX_CHARS) {
      const high = text.charCodeAt(MAX_CHARS - 1);
      text = text.slice(0, high >= 0xd800 && high <= 0xdbff ? MAX_CHARS - 1 : MAX_CHARS);
    }
    return text === '' ? undefined : text;
  };
  try {
    const metas = Array.from(document.getElementsByTagName('meta'));
    const meta = (name: string): string | undefined => {
      for (const element of metas) {
        const own = (element.getAttribute('name') ?? '').trim().replace(/[A-Z]/g, (c) => c.toLowerCase());
        const content = own === name ? clean(element.getAttribute('content')) : undefined;
        if (content !== undefined) return content;
      }
      return undefined;
    };
    return {
      title: clean(document.title),
      author: meta('author'),
      subject: meta('description'),
      keywords: meta('keywords'),
      lang: clean(document.documentElement?.getAttribute('lang')),
    };
  } catch {
    return {};
  }
}
