/**
 * What a business rule sees of an invoice: the tree, XPath-like ways to reach its parts (`//name`,
 * absolute and relative paths), and its amounts read as exact decimals.
 */
import { all, type CiiTree, type El, str } from './cii-tree.js';
import { cents, type Dec, dec, sum } from './decimal.js';

/** An invoice as the rules read it. */
export interface Invoice {
  root: El;
  /** XPath's `//name`: every element of that local name, in document order. */
  every(name: string): El[];
}

/** Wraps a parsed tree for the rules. */
export function invoiceOf(tree: CiiTree): Invoice {
  return { root: tree.root, every: (name) => tree.byName.get(name) ?? [] };
}

/** XPath's `//A/B/C`: from every A anywhere, the child steps B/C. */
export function desc(inv: Invoice, path: string): El[] {
  const [first, ...rest] = path.split('/');
  const starts = inv.every(first ?? '');
  return rest.length === 0 ? starts : starts.flatMap((e) => all(e, rest.join('/')));
}

/** An absolute path below the root element (`/rsm:CrossIndustryInvoice/…`). */
export function at(inv: Invoice, path: string): El[] {
  return all(inv.root, path);
}

/** xs:decimal of the first element at `path` from `el` (null when absent or no decimal). */
export function num(el: El | undefined, path?: string): Dec | null {
  if (!el) return null;
  const target = path ? all(el, path)[0] : el;
  return target ? dec(str(target)) : null;
}

/** The Schematron's `round(sum(…) * 10 * 10) div 100` over the elements' amounts. */
export function centsOf(els: El[], path?: string): Dec {
  return cents(sum(els.map((e) => num(e, path))));
}

/** xs:boolean cast of a `udt:Indicator` (true/1, false/0, null for anything else). */
export function indicator(el: El | undefined): boolean | null {
  const text = str(el).trim();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  return null;
}

/** Whether some `ChargeIndicator/Indicator` of an allowance or charge is `flag` (the `= true()` comparison). */
export function isCharge(ac: El, flag: boolean): boolean {
  return all(ac, 'ChargeIndicator/Indicator').some((i) => indicator(i) === flag);
}

/** XPath's `upper-case(ram:TypeCode) = 'VAT'`. */
export function isVat(tax: El): boolean {
  return all(tax, 'TypeCode').some((t) => str(t).toUpperCase() === 'VAT');
}

/** The Schematron's test for a decimal count: `string-length(substring-after(x, '.')) <= 2`. */
export function twoDecimals(el: El | undefined): boolean {
  const s = str(el);
  const at = s.indexOf('.');
  return at < 0 || s.length - at - 1 <= 2;
}

/** What a check answers: true when the rule holds, false when it fails, or the failing values in words. */
export type Verdict = boolean | string;

/** A rule holds when `ok`; otherwise its failure names the values involved. */
export function held(ok: boolean, values: () => string): Verdict {
  return ok || values();
}

/** Where a rule applies: the elements of the invoice its Schematron rule's context names. */
export type Context = (inv: Invoice) => El[];

/** A rule's test, on one element of its context. */
export type Check = (el: El, inv: Invoice) => Verdict;

/** One EN 16931 business rule: its id, its words as published, the elements it applies to and its check. */
export interface Rule {
  id: string;
  words: string;
  context: Context;
  check: Check;
}
