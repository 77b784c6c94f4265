/**
 * What the assemble request's validators share: the checks of a JSON value's type, its fields and its
 * text, whose messages name the field (the INVALID_REQUEST they throw is errors.ts's `invalid`).
 */
import { charactersOver } from '../accounts/user-text.js';
import { cutText, MAX_QUOTED, quoted } from '../cut-text.js';
import { invalid } from '../errors.js';
import { MAX_TEXT } from './schema.js';

/** A JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** What a wrong value is, for a message: its type and the start of its JSON. */
export function show(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${quoted(value)}`;
}

/** Refuses a field of `object` not among `known`, named under `at` (the name cut short: it can be any length). */
export function unknownField(object: Record<string, unknown>, known: readonly string[], at: string): void {
  const extra = Object.keys(object).find((k) => !known.includes(k));
  if (extra !== undefined) throw invalid(`${cutText(`${at}${extra}`, MAX_QUOTED)}: unknown field`);
}

/** Checks `object[name]`, a string of at most MAX_TEXT characters (given and not empty when `required`). */
export function optionalText(object: Record<string, unknown>, name: string, at: string, required = false): void {
  const value = object[name];
  if (value === undefined) {
    if (required) throw invalid(`${at}${name}: required`);
    return;
  }
  if (typeof value !== 'string') throw invalid(`${at}${name}: must be a string, got ${show(value)}`);
  if (required && value === '') throw invalid(`${at}${name}: must not be empty`);
  const length = charactersOver(value, MAX_TEXT);
  if (length !== undefined) throw invalid(`${at}${name}: ${length} characters is more than the limit of ${MAX_TEXT}`);
}
