/**
 * How much of a report is kept: a stored record is at most 32 KiB of JSON, and its entries leave room
 * for the rest of it. Entries past the room are counted in one `truncated`, not kept.
 */
import { type ReportEntry, warningCount } from '../../report/report.js';
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
 * A `conformance` entry says why a declared standard is not claimed: a report that lost it to a cap would
 * leave a PDF without its claim and no reason anywhere. Caps keep these first, then the rest in order.
 */
const keptFirst = (entry: ReportEntry): boolean => entry.kind === 'conformance';

/**
 * Which entries a cap keeps: each `conformance` entry while `take` accepts it, then the others, in order,
 * while it still does. The kept entries come back in the order met.
 */
function keep(entries: readonly ReportEntry[], take: (entry: ReportEntry) => boolean): ReportEntry[] {
  const kept = new Set<number>();
  for (const first of [true, false])
    entries.forEach((entry, i) => {
      if (entry.kind !== 'truncated' && keptFirst(entry) === first && take(entry)) kept.add(i);
    });
  return entries.filter((_, i) => kept.has(i));
}

/** At most `max` of the entries (every `conformance` entry first), in the order met; `truncated` ones left out. */
export function keepEntries(entries: readonly ReportEntry[], max: number): ReportEntry[] {
  let count = 0;
  return keep(entries, () => count < max && ++count > 0);
}

/**
 * The entries, in order, that fit in `maxBytes` of JSON (every `conformance` entry first), then one
 * `truncated` counting every entry left out (and those an existing `truncated` stood for): the count the
 * report gives stays the same. `limit` names the limit in the `truncated` entry's words ("a report keeps …").
 */
export function fitEntries(entries: readonly ReportEntry[], maxBytes: number, limit: string): ReportEntry[] {
  if (jsonBytes(entries) <= maxBytes) return [...entries];
  let used = 2 + TRUNCATED_ROOM;
  const kept = keep(entries, (entry) => {
    const size = jsonBytes(entry) + 1;
    if (used + size > maxBytes) return false;
    used += size;
    return true;
  });
  const dropped = warningCount(entries) - kept.length;
  return dropped > 0 ? [...kept, truncatedEntry(dropped, limit)] : kept;
}
