/**
 * What the extractor decodes with. Its own file because both the WHATWG table (encoding.ts) and the
 * multi-byte decoders it picks from (cjk-decoders.ts) name it.
 */

/** Something that turns bytes into text. */
export interface Decoder {
  decode(bytes: Uint8Array): string;
}
