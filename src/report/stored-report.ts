/**
 * A render record's report as the render log stores it, in its one text column: the entries as a JSON
 * array, as ever, or — when the PDF claims a standard, is an assembly, has a Title or is a job's with a
 * reference — `{"entries":[…],"claims":[…],"assembly":{…},"reference":"…","title":"…"}`, so that none needs a
 * column of its own and a plain record is stored exactly as before. The keys keep that order: the Renders
 * list's search (store/render-log-search.ts) relies on `reference` and `title` coming last.
 */

import { Value } from '@sinclair/typebox/value';
import { type Claim, PDF_PROFILES } from './claims.js';
import type { RecordAssembly, ReportEntry } from './report.js';
import { ReportEntrySchema } from './report-schema.js';
import { reportText } from './report-text.js';
import { storedAssembly } from './stored-assembly.js';

const CLAIMS: readonly string[] = [...PDF_PROFILES, 'Factur-X'];

/** The longest title or reference a record keeps (a document's `<title>` can be 4,096 characters). */
export const MAX_RECORD_TEXT = 300;

/** A record's title or reference: as a report keeps document text (controls replaced, cut), undefined when empty. */
export function recordText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = reportText(value, MAX_RECORD_TEXT).trim();
  return text === '' ? undefined : text;
}

/** What a record says besides its entries and claims: the PDF's Title and a job's reference. */
export interface RecordFacts {
  title?: string;
  reference?: string;
}

/** The stored JSON of a record's entries, claims, parts, reference and title (in that order: see above). */
export function reportJson(
  warnings: readonly ReportEntry[],
  claims: readonly Claim[],
  assembly?: RecordAssembly,
  facts: RecordFacts = {},
): string {
  const reference = recordText(facts.reference);
  const title = recordText(facts.title);
  if (!assembly && reference === undefined && title === undefined)
    return JSON.stringify(claims.length === 0 ? warnings : { entries: warnings, claims });
  return JSON.stringify({ entries: warnings, claims, ...(assembly ? { assembly } : {}), reference, title });
}

interface StoredShape {
  entries?: unknown;
  claims?: unknown;
  assembly?: unknown;
  title?: unknown;
  reference?: unknown;
}

function parsedReport(json: string | null): StoredShape {
  try {
    const parsed: unknown = JSON.parse(json ?? '');
    if (Array.isArray(parsed)) return { entries: parsed };
    return parsed !== null && typeof parsed === 'object' ? (parsed as StoredShape) : {};
  } catch {
    return {};
  }
}

/** The claims, title and reference of a stored report, without checking its entries (what a listing shows). */
export function storedFacts(json: string | null): RecordFacts & { claims: Claim[] } {
  return factsOf(parsedReport(json));
}

function factsOf({ claims, title, reference }: StoredShape): RecordFacts & { claims: Claim[] } {
  const cleanTitle = recordText(title);
  const cleanReference = recordText(reference);
  return {
    claims: Array.isArray(claims) ? claims.filter((c): c is Claim => CLAIMS.includes(c)) : [],
    ...(cleanTitle === undefined ? {} : { title: cleanTitle }),
    ...(cleanReference === undefined ? {} : { reference: cleanReference }),
  };
}

/** The entries, claims, parts, title and reference of a stored report; a record stored before claims (a bare array) claims nothing. */
export function storedReport(
  json: string | null,
): { warnings: ReportEntry[]; claims: Claim[]; assembly?: RecordAssembly } & RecordFacts {
  const parsed = parsedReport(json);
  const parts = storedAssembly(parsed.assembly);
  return {
    // As storedEntries: an entry without an entry's shape cannot make the read fail.
    warnings: Array.isArray(parsed.entries)
      ? parsed.entries.filter((e): e is ReportEntry => Value.Check(ReportEntrySchema, e))
      : [],
    ...factsOf(parsed),
    ...(parts ? { assembly: parts } : {}),
  };
}
