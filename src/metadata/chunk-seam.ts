/**
 * The chunks the streaming extractor holds the document in. The bytes are scanned where they arrive: a chunk
 * is only copied when a construct (a tag, a script …) straddles its start, and the values found are kept as
 * ranges of the chunks they were found in (`Candidates`, which also holds the field rules). Here are the
 * sizes of that copy (the seam) and the two small pieces the copying needs.
 */

/** A buffer of no bytes: the tail when no construct is open. */
export const EMPTY = Buffer.alloc(0);
/** An open construct shorter than this is finished on a small copy (the seam), not on a copy of whole chunks. */
export const SEAM = 2048;
/** Bytes of the following chunks copied into a seam. */
export const SEAM_EXTRA = 4096;

/** One buffer of a list of chunks; copies only when there are several. */
export function joined(chunks: Buffer[]): Buffer {
  const only = chunks.length === 1 ? chunks[0] : undefined;
  return only ?? Buffer.concat(chunks);
}
