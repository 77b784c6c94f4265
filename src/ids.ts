import crypto from 'node:crypto';

/** A random, unguessable identifier such as `acc_3f9a…` (128 bits). */
export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(16).toString('hex')}`;
}

/** The UTC day of a timestamp as YYYY-MM-DD. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
