/**
 * The readers' one refusal, in a file of its own because the cross-reference reader, the object reader and
 * the stream decoder all throw it, and an assembly tells it from other errors: a part it stops is refused
 * as damaged or handed to qpdf to rewrite, never failed as the service's own fault.
 */

/** A PDF that cannot be read as a classic-table file. */
export class UnreadablePdf extends Error {}
