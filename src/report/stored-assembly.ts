/**
 * An assembly's part of a stored record read back (stored-report.ts): what has the shape its writer gave
 * it is kept, anything else is left out, so a row written by an older or newer version never breaks a page.
 */
import type { RecordAssembly, RecordMetadata, RecordPart, RecordSplit, RecordStamp } from './report.js';

const PART_KINDS: readonly string[] = ['html', 'pdf', 'url'];
const METADATA_FIELDS: readonly string[] = ['title', 'author', 'subject', 'keywords', 'lang'];
const SPLITS: readonly string[] = ['parts', 'every', 'ranges'];

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const optional = (value: unknown, type: 'string' | 'number'): boolean => value === undefined || typeof value === type;
const count = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

function isPart(p: unknown): p is RecordPart {
  return (
    isObject(p) &&
    typeof p.label === 'string' &&
    PART_KINDS.includes(p.kind as string) &&
    (p.pages === null || typeof p.pages === 'number') &&
    typeof p.warnings === 'number' &&
    optional(p.url, 'string') &&
    optional(p.outlineTitle, 'string') &&
    optional(p.selection, 'string') &&
    optional(p.rotate, 'number')
  );
}

function isStamp(s: unknown): s is RecordStamp {
  return (
    isObject(s) &&
    (s.layer === 'over' || s.layer === 'under') &&
    optional(s.selection, 'string') &&
    count(s.stamped) &&
    optional(s.text, 'string') &&
    typeof s.source === 'string'
  );
}

function isMetadata(m: unknown): m is RecordMetadata {
  return isObject(m) && METADATA_FIELDS.includes(m.field as string) && typeof m.value === 'string';
}

function storedSplit(s: unknown): RecordSplit | undefined {
  if (!isObject(s) || !SPLITS.includes(s.by as string) || !count(s.files) || !Array.isArray(s.names)) return undefined;
  return {
    by: s.by as RecordSplit['by'],
    ...(count(s.every) ? { every: s.every } : {}),
    files: s.files,
    names: s.names.filter((n): n is string => typeof n === 'string'),
  };
}

/** The assembly of a stored report, its parts and finishing as far as they have their shape; undefined when it has none. */
export function storedAssembly(value: unknown): RecordAssembly | undefined {
  if (!isObject(value) || typeof value.partCount !== 'number' || !Array.isArray(value.parts)) return undefined;
  const { stamps, metadata } = value;
  const split = storedSplit(value.split);
  return {
    partCount: value.partCount,
    parts: value.parts.filter(isPart),
    ...(Array.isArray(stamps) ? { stamps: stamps.filter(isStamp) } : {}),
    ...(Array.isArray(metadata) ? { metadata: metadata.filter(isMetadata) } : {}),
    ...(split ? { split } : {}),
  };
}
