import crypto from 'node:crypto';

/** A random, unguessable identifier such as `acc_3f9a…` (128 bits). */
export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(16).toString('hex')}`;
}

let lastOrderedMs = -1;
let lastOrderedTail = 0n;
const TAIL_BITS = 80n;
const TAIL_MAX = (1n << TAIL_BITS) - 1n;

/** A random 79-bit start: half the tail's room is left to count up within the millisecond. */
function randomTailStart(): bigint {
  return BigInt(`0x${crypto.randomBytes(10).toString('hex')}`) >> 1n;
}

/** A random step of 1 to 2^32: consecutive ids of one millisecond never differ by a guessable amount. */
function randomStep(): bigint {
  return 1n + BigInt(crypto.randomBytes(4).readUInt32BE(0));
}

/**
 * An identifier such as `job_0193a1b2c3d4…` whose 32 hex digits sort as the objects were made: 48 bits
 * of the time `ms`, then 80 random bits; made again within the same millisecond (or with a clock that
 * went back), the tail moves up by a random step, so ids from one process never tie, a list ordered by
 * (time, id) keeps the order of submission, and the next id of the millisecond (another account's job,
 * say) cannot be told from this one.
 */
export function newTimeOrderedId(prefix: string, ms: number): string {
  let time = Math.max(Math.trunc(ms), lastOrderedMs);
  const step = randomStep();
  if (time === lastOrderedMs && lastOrderedTail + step <= TAIL_MAX) {
    lastOrderedTail += step;
  } else {
    // A new millisecond, or (after 2^47 ids in one) the next one: order is kept either way.
    if (time === lastOrderedMs) time += 1;
    lastOrderedTail = randomTailStart();
  }
  lastOrderedMs = time;
  return `${prefix}_${time.toString(16).padStart(12, '0')}${lastOrderedTail.toString(16).padStart(20, '0')}`;
}

/** Whether `value` is an id that newId or newTimeOrderedId made with `prefix` (checked before any store lookup). */
export function isId(prefix: string, value: string): boolean {
  return value.length === prefix.length + 33 && value.startsWith(`${prefix}_`) && /^[0-9a-f]{32}$/.test(value.slice(-32));
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
