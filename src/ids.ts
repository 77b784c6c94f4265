import crypto from 'node:crypto';

/** A random, unguessable identifier such as `acc_3f9a…` (128 bits). */
export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(16).toString('hex')}`;
}

let lastOrderedMs = -1;
let lastOrderedTail = 0n;
const TAIL_BITS = 80n;
const TAIL_MAX = (1n << TAIL_BITS) - 1n;

/**
 * An identifier such as `job_0193a1b2c3d4…` whose 32 hex digits sort as the objects were made: 48 bits
 * of the time `ms`, then 80 random bits; made again within the same millisecond (or with a clock that
 * went back), the tail is the previous one plus one, so ids from one process never tie, and a list
 * ordered by (time, id) keeps the order of submission.
 */
export function newTimeOrderedId(prefix: string, ms: number): string {
  const time = Math.max(Math.trunc(ms), lastOrderedMs);
  if (time === lastOrderedMs && lastOrderedTail < TAIL_MAX) {
    lastOrderedTail += 1n;
  } else {
    lastOrderedTail = BigInt(`0x${crypto.randomBytes(10).toString('hex')}`) >> 1n; // room to count up
  }
  lastOrderedMs = time;
  return `${prefix}_${time.toString(16).padStart(12, '0')}${lastOrderedTail.toString(16).padStart(20, '0')}`;
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
