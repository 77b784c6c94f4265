/**
 * Exact decimal arithmetic for the business rules: an amount is a BigInt and a count of decimals, so
 * that 0.1 + 0.2 is 0.3 and rounding to cents is the Schematron's `round(x * 100) div 100`
 * (XPath's round: half towards positive infinity), never a float's approximation of it.
 */

/** value = v / 10^s */
export interface Dec {
  v: bigint;
  s: number;
}

const TEN = 10n;

/** xs:decimal(text), or null when the text is no decimal (XPath would give the empty sequence or fail). */
export function dec(text: string | undefined): Dec | null {
  if (text === undefined) return null;
  const m = /^\s*([+-]?)(\d*)(?:\.(\d*))?\s*$/.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const frac = m[3] ?? '';
  const v = BigInt(`${m[2] || '0'}${frac}`);
  return { v: m[1] === '-' ? -v : v, s: frac.length };
}

/** The integer n as a decimal. */
export function int(n: number): Dec {
  return { v: BigInt(n), s: 0 };
}

function scaled(a: Dec, s: number): bigint {
  return a.v * TEN ** BigInt(s - a.s);
}

/** a + b */
export function add(a: Dec, b: Dec): Dec {
  const s = Math.max(a.s, b.s);
  return { v: scaled(a, s) + scaled(b, s), s };
}

/** a − b */
export function sub(a: Dec, b: Dec): Dec {
  const s = Math.max(a.s, b.s);
  return { v: scaled(a, s) - scaled(b, s), s };
}

/** a × b */
export function mul(a: Dec, b: Dec): Dec {
  return { v: a.v * b.v, s: a.s + b.s };
}

/** The sign of a − b: −1, 0 or 1. */
export function cmp(a: Dec, b: Dec): number {
  const s = Math.max(a.s, b.s);
  const d = scaled(a, s) - scaled(b, s);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** |a| */
export function abs(a: Dec): Dec {
  return a.v < 0n ? { v: -a.v, s: a.s } : a;
}

/** XPath's round(a): the nearest integer, halves towards positive infinity (floor(a + 0.5)). */
export function round(a: Dec): Dec {
  const unit = TEN ** BigInt(a.s);
  const twice = a.v * 2n + unit; // floor((2a + 1) / 2) in units of 1/unit
  const q = twice / (2n * unit);
  const floor = twice % (2n * unit) !== 0n && twice < 0n ? q - 1n : q;
  return { v: floor, s: 0 };
}

/** The Schematron's `round(a * 100) div 100`: a rounded to cents. */
export function cents(a: Dec): Dec {
  const hundredfold = a.s >= 2 ? { v: a.v, s: a.s - 2 } : { v: a.v * TEN ** BigInt(2 - a.s), s: 0 };
  return { v: round(hundredfold).v, s: 2 };
}

/** The sum of decimals (0 for none, as XPath's sum()). */
export function sum(values: Array<Dec | null>): Dec {
  let total: Dec = { v: 0n, s: 0 };
  for (const v of values) if (v) total = add(total, v);
  return total;
}

/** How a decimal reads in a message: at least two decimals, no trailing zeros beyond them. */
export function show(a: Dec | null): string {
  if (!a) return '(none)';
  const neg = a.v < 0n;
  let digits = (neg ? -a.v : a.v).toString().padStart(a.s + 1, '0');
  let frac = a.s > 0 ? digits.slice(-a.s) : '';
  digits = a.s > 0 ? digits.slice(0, -a.s) : digits;
  frac = frac.replace(/0+$/, '').padEnd(2, '0');
  return `${neg ? '-' : ''}${digits}.${frac}`;
}

/** The exact value of a double as a decimal (what casting an xs:double to xs:decimal gives in Saxon). */
export function fromDouble(x: number): Dec | null {
  if (!Number.isFinite(x)) return null;
  let m = x;
  let e = 0;
  // Doubling is exact, so after e doublings m is an integer and x = m / 2^e = m·5^e / 10^e.
  while (!Number.isInteger(m)) {
    m *= 2;
    e++;
  }
  return { v: BigInt(m) * 5n ** BigInt(e), s: e };
}

/** XPath's round() on an xs:double. */
export function roundDouble(x: number): number {
  return Math.floor(x + 0.5);
}
