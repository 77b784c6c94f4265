/**
 * A render record's report as the render log stores it, in its one text column: the entries as a JSON
 * array, as ever, or — when the PDF claims a standard — `{"entries":[…],"claims":[…]}`, so that the
 * claims need no column of their own and a record without claims is stored exactly as before.
 */

import { Value } from '@sinclair/typebox/value';
import { type Claim, PDF_PROFILES } from '../../pdf/profiles/types.js';
import type { ReportEntry } from './report.js';
import { ReportEntrySchema } from './report-schema.js';

const CLAIMS: readonly string[] = [...PDF_PROFILES, 'Factur-X'];

/** The stored JSON of a record's entries and claims. */
export function reportJson(warnings: readonly ReportEntry[], claims: readonly Claim[]): string {
  return JSON.stringify(claims.length === 0 ? warnings : { entries: warnings, claims });
}

/** The entries and claims of a stored report; a record stored before claims (a bare array) claims nothing. */
export function storedReport(json: string | null): { warnings: ReportEntry[]; claims: Claim[] } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json ?? '');
  } catch {
    return { warnings: [], claims: [] };
  }
  const { entries, claims } = (Array.isArray(parsed) ? { entries: parsed } : (parsed ?? {})) as {
    entries?: unknown;
    claims?: unknown;
  };
  return {
    // As storedEntries: an entry without an entry's shape cannot make the read fail.
    warnings: Array.isArray(entries) ? entries.filter((e): e is ReportEntry => Value.Check(ReportEntrySchema, e)) : [],
    claims: Array.isArray(claims) ? claims.filter((c): c is Claim => CLAIMS.includes(c)) : [],
  };
}
