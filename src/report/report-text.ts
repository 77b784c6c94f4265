/**
 * Text from a document as a report keeps it, whether the renderer writes it into an entry
 * (render/report/report-words.ts) or a stored record's title is read back (stored-report.ts).
 */

/** Control characters (C0 but tab and line feed, DEL, C1): in stored JSON each is 6 bytes, on a terminal a command. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]+/g;

/** Text from the document as a report keeps it: each run of control characters is one U+FFFD, then cut to `max`. */
export function reportText(text: string, max: number): string {
  return text.replace(CONTROLS, '\ufffd').slice(0, max);
}
