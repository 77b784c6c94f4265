/** Small text and URL helpers shared by the extractor and the fetcher. */
import type { Metadata } from './types.js';

/** The empty result for a non-HTML response: only the origin's default favicon. */
export function nonHtmlMetadata(finalUrl: string): Metadata {
  return {
    title: null,
    description: null,
    og_title: null,
    og_description: null,
    og_image: null,
    og_url: null,
    canonical_url: null,
    favicon_url: defaultFavicon(finalUrl),
  };
}

/** `/favicon.ico` on the origin of `finalUrl` (the favicon is never fetched). */
export function defaultFavicon(finalUrl: string): string | null {
  try {
    return new URL('/favicon.ico', finalUrl).href;
  } catch {
    return null;
  }
}

/** Runs of ASCII whitespace become one space; ASCII whitespace trimmed (not NBSP or other Unicode spaces). */
export function collapseWhitespace(s: string): string {
  let out = /[\t\n\f\r ]/.test(s) ? s.replace(/[\t\n\f\r ]+/g, ' ') : s;
  if (out.startsWith(' ')) out = out.slice(1);
  if (out.endsWith(' ')) out = out.slice(0, -1);
  return out;
}

