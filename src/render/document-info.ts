/**
 * What a document says about itself, read in the page right before it prints, for the PDF's Info
 * dictionary (pdf-info.ts). Runs in the page: serialised with callExpression, so it refers to nothing
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
 * `<html lang>`. A document that broke the DOM methods this uses gets no properties rather than a failed
 * render.
 */
export function readDocumentInfo(): DocumentInfo {
  const clean = (value: unknown): string | undefined => {
    if (typeof value !== 'string') return undefined;
    const text = value.replace(/[\t\n\f\r ]+/g, ' ').trim();
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
