/**
 * How much of a report is kept: a stored record is at most 32 KiB of JSON, and its entries leave room
 * for the rest of it. Entries past the room are counted in one `truncated`, not kept.
 */
import { type ReportEntry, warningCount } from './report.js';
import { truncatedEntry } from './report-words.js';

/** The most bytes of JSON one stored render record takes. */
export const MAX_RECORD_BYTES = 32 * 1024;
/** What a record's entries may take: the rest of a record (ids, times, an error message) fits in 2 KiB. */
export const MAX_ENTRIES_BYTES = MAX_RECORD_BYTES - 2 * 1024;
/** Room kept for the closing `truncated` entry (its message is one short sentence). */
const TRUNCATED_ROOM = 200;

/** Bytes of `value` as JSON in UTF-8. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/**
 * The entries, in order, that fit in `maxBytes` of JSON, then one `truncated` counting every entry
 * left out (and those an existing `truncated` stood for): the count the report gives stays the same.
 * `limit` names the limit in the `truncated` entry's words ("a report keeps …").
 */
export function fitEntries(entries: readonly ReportEntry[], maxBytes: number, limit: string): ReportEntry[] {
  if (jsonBytes(entries) <= maxBytes) return [...entries];
  const kept: ReportEntry[] = [];
  let used = 2 + TRUNCATED_ROOM;
  for (const entry of entries) {
    if (entry.kind === 'truncated') continue;
    const size = jsonBytes(entry) + 1;
    if (used + size > maxBytes) break;
    kept.push(entry);
    used += size;
  }
  const dropped = warningCount(entries) - kept.length;
  return dropped > 0 ? [...kept, truncatedEntry(dropped, limit)] : kept;
}
