/**
 * Metadata extraction, pure: bytes + Content-Type + final URL in, the eight fields out (the fields and
 * their rules: docs/api.md#get-v1fetchurl). `MetadataExtractor` (metadata-extractor.ts) takes the bytes
 * in chunks and says when every field is settled so a fetcher can stop reading; `extractMetadata` is the
 * one-shot form.
 */
import { MetadataExtractor } from './metadata-extractor.js';
import type { Metadata } from './types.js';

export { nonHtmlMetadata } from './text.js';

/** Extracts the eight fields from a whole response body. Pure. */
export function extractMetadata(bytes: Uint8Array, contentType: string | null, finalUrl: string): Metadata {
  const extractor = new MetadataExtractor(contentType, finalUrl);
  extractor.push(bytes);
  return extractor.finish();
}
