/**
 * Text cut short for showing: what a message quotes of a request (a value, a field name, a path) and
 * what a record keeps of a message. A request can hold megabytes, and an answer, a log line and a stored
 * record that quote it whole are as large.
 */

/** Most characters of a value, a field name or a path a message quotes. */
export const MAX_QUOTED = 100;

/** `value` cut to at most `max` UTF-16 code units, never inside a surrogate pair, with `…` when cut. */
export function cutText(value: string, max: number): string {
  if (value.length <= max) return value;
  let end = max - 1;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${value.slice(0, end)}…`;
}

/** A value as a message quotes it: a string in JSON quotes, anything else as JSON; at most `max` characters of it. */
export function quoted(value: unknown, max = MAX_QUOTED): string {
  if (typeof value === 'string') return JSON.stringify(cutText(value, max));
  return cutText(JSON.stringify(value) ?? String(value), max);
}
