/**
 * The standards a PDF may claim (docs/standards.md): the profile engine (pdf/profiles/) decides them, a
 * render's report and its stored record keep them, so they live below both.
 */

/** A conformance level a document may declare with `<meta name="pdf-profile">`. */
export type PdfProfile = 'PDF/A-2b' | 'PDF/A-2u' | 'PDF/A-3b' | 'PDF/A-3u' | 'PDF/UA-1';

/** Every profile the engine knows, in the order the docs list them. */
export const PDF_PROFILES: readonly PdfProfile[] = ['PDF/A-2b', 'PDF/A-2u', 'PDF/A-3b', 'PDF/A-3u', 'PDF/UA-1'];

/** What a PDF may claim: a profile, or Factur-X (which builds on PDF/A-3). */
export type Claim = PdfProfile | 'Factur-X';
