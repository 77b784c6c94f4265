/**
 * Amounts as invoices print them, read back in cents: `104.90`, `104,90`, `1,234.56`, `1.234,56`,
 * `1 234,56` (with a space, a no-break or a narrow no-break space, or an apostrophe as in Switzerland),
 * with or without a currency sign or code around them.
 */

/** An amount with two decimals found in a text: its value in cents, where it is and how it was written. */
export interface PrintedAmount {
  cents: bigint;
  index: number;
  written: string;
}

/**
 * An integer part (grouped by `,` `.` space, no-break space, narrow no-break space or apostrophe, in
 * threes) and two decimals after `.` or `,`, neither part of a longer number (a date such as 15.03.2026
 * is none).
 */
const AMOUNT = /(?<![\d.,])(\d{1,3}(?:[ \u00a0\u202f,.'’]\d{3})+|\d+)([.,])(\d{2})(?![.,]?\d)/g;

/** Every amount with two decimals in `text`, in order. */
export function amountsIn(text: string): PrintedAmount[] {
  const found: PrintedAmount[] = [];
  for (const m of text.matchAll(AMOUNT)) {
    const [written, whole = '', sep, cents = ''] = m;
    // A grouping separator is never the decimal one: 1.234.56 is no amount.
    if (sep && whole.includes(sep)) continue;
    found.push({ cents: BigInt(whole.replace(/\D/g, '')) * 100n + BigInt(cents), index: m.index ?? 0, written });
  }
  return found;
}

/** White space of any kind as one space, so a number broken over a line or spaced by CSS still reads. */
export function spaced(s: string): string {
  return s.replace(/[\s\u00a0\u202f\u2007]+/g, ' ');
}
