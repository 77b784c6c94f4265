/**
 * A render record's report as the render log stores it, in its one text column: the entries as a JSON
 * array, as ever, or — when the PDF claims a standard or is an assembly — `{"entries":[…],"claims":[…],
 * "assembly":{…}}`, so that neither needs a column of its own and a plain record is stored exactly as before.
 */

import { Value } from '@sinclair/typebox/value';
import { type Claim, PDF_PROFILES } from '../../pdf/profiles/types.js';
import type { RecordAssembly, RecordPart, ReportEntry } from './report.js';
import { ReportEntrySchema } from './report-schema.js';

const CLAIMS: readonly string[] = [...PDF_PROFILES, 'Factur-X'];
const PART_KINDS: readonly string[] = ['html', 'pdf', 'url'];

/** The stored JSON of a record's entries, claims and parts. */
export function reportJson(warnings: readonly ReportEntry[], claims: readonly Claim[], assembly?: RecordAssembly): string {
  if (assembly) return JSON.stringify({ entries: warnings, claims, assembly });
  return JSON.stringify(claims.length === 0 ? warnings : { entries: warnings, claims });
}

function isPart(value: unknown): value is RecordPart {
  const p = value as Partial<RecordPart> | null;
  return (
    p !== null &&
    typeof p === 'object' &&
    typeof p.label === 'string' &&
    PART_KINDS.includes(p.kind as string) &&
    (p.pages === null || typeof p.pages === 'number') &&
    typeof p.warnings === 'number' &&
    (p.url === undefined || typeof p.url === 'string')
  );
}

function storedAssembly(value: unknown): RecordAssembly | undefined {
  const a = value as Partial<RecordAssembly> | null | undefined;
  if (!a || typeof a !== 'object' || typeof a.partCount !== 'number' || !Array.isArray(a.parts)) return undefined;
  return { partCount: a.partCount, parts: a.parts.filter(isPart) };
}

/** The entries, claims and parts of a stored report; a record stored before claims (a bare array) claims nothing. */
export function storedReport(json: string | null): { warnings: ReportEntry[]; claims: Claim[]; assembly?: RecordAssembly } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json ?? '');
  } catch {
    return { warnings: [], claims: [] };
  }
  const { entries, claims, assembly } = (Array.isArray(parsed) ? { entries: parsed } : (parsed ?? {})) as {
    entries?: unknown;
    claims?: unknown;
    assembly?: unknown;
  };
  const parts = storedAssembly(assembly);
  return {
    // As storedEntries: an entry without an entry's shape cannot make the read fail.
    warnings: Array.isArray(entries) ? entries.filter((e): e is ReportEntry => Value.Check(ReportEntrySchema, e)) : [],
    claims: Array.isArray(claims) ? claims.filter((c): c is Claim => CLAIMS.includes(c)) : [],
    ...(parts ? { assembly: parts } : {}),
  };
}
