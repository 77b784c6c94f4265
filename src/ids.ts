import crypto from 'node:crypto';

/** A random, unguessable identifier such as `acc_3f9a…` (128 bits). */
export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(16).toString('hex')}`;
}

const DAY_MS = 86_400_000;
let lastDayNumber = Number.NaN;
let lastDay = '';

/** The UTC day of a timestamp as YYYY-MM-DD. */
export function utcDay(ms: number): string {
  // Every API request counts its usage under today's date: formatted once a day, not once a request.
  // JavaScript time has no leap seconds, so a UTC day is always DAY_MS long.
  // Date truncates a fractional time value towards zero, so the day number is taken the same way.
  const dayNumber = Math.floor(Math.trunc(ms) / DAY_MS);
  if (dayNumber !== lastDayNumber) {
    lastDay = new Date(ms).toISOString().slice(0, 10);
    lastDayNumber = dayNumber;
  }
  return lastDay;
}
