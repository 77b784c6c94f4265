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
 * A property as the PDF's Info gets it: whitespace collapsed and trimmed, at most 4,096 UTF-16 code units
 * (a script can make a title of any length; it stops there, not inside a surrogate pair), undefined when
 * nothing is left or it is not text. Runs in the page (readDocumentInfo's argument) and in Node
 * (document-read.ts), so both reads clean alike: it refers to nothing outside itself.
 */
export function cleanInfoText(value: unknown): string | undefined {
  const MAX_CHARS = 4096;
  if (typeof value !== 'string') return undefined;
  let text = value.replace(/[\t\n\f\r ]+/g, ' ').trim();
  if (text.length > MAX_CHARS) {
    const high = text.charCodeAt(MAX_CHARS - 1);
    text = text.slice(0, high >= 0xd800 && high <= 0xdbff ? MAX_CHARS - 1 : MAX_CHARS);
  }
  return text === '' ? undefined : text;
}

/**
 * Runs in the page. `<title>` (as `document.title` has it), the first non-empty `<meta name=author>`,
 * `description` and `keywords` (names compared ASCII case-insensitively), and `<html lang>`, each cleaned
 * by `clean` (cleanInfoText, passed in as its source). A document that broke the DOM methods this uses
 * gets no properties rather than a failed render.
 */
export function readDocumentInfo(clean: (value: unknown) => string | undefined): DocumentInfo {
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
