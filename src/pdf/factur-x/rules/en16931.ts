/**
 * The EN 16931 business rules for a Cross Industry Invoice, and the one evaluator that reads them: each
 * rule is applied to every element its context names, and a rule that fails on any of them is one
 * failure with the values of its first.
 */
import type { FacturXLevel } from '../levels.js';
import type { CiiTree } from './cii-tree.js';
import { invoiceOf, type Rule } from './invoice.js';
import { INVOICE_RULES } from './rules-invoice.js';
import { VAT_CATEGORY_RULES } from './rules-vat-categories.js';

/** Every rule: one table, in the Schematron's order. */
export const EN16931_RULES: readonly Rule[] = [...INVOICE_RULES, ...VAT_CATEGORY_RULES];

/**
 * MINIMUM and BASIC WL carry no lines, so the rules that add up lines or ask each category to have
 * lines do not apply to them; MINIMUM carries neither the buyer's address, the sum of lines nor a VAT
 * breakdown (so neither the rules that ask for them nor BR-CO-14, which adds the breakdown's VAT up). Everything else applies to what they carry. docs/standards.md lists the same.
 */
const NO_LINES = [
  'BR-16',
  'BR-CO-10',
  ...['S', 'Z', 'E', 'AE', 'IC', 'G', 'O', 'AF', 'AG'].flatMap((c) => [`BR-${c}-01`, `BR-${c}-08`]),
];
const NOT_AT_LEVEL: Partial<Record<FacturXLevel, ReadonlySet<string>>> = {
  'BASIC WL': new Set(NO_LINES),
  MINIMUM: new Set([...NO_LINES, 'BR-10', 'BR-11', 'BR-12', 'BR-CO-13', 'BR-CO-14', 'BR-CO-18']),
};

/** The rules that apply at `level` (EXTENDED: EN 16931's). */
export function rulesOf(level: FacturXLevel): readonly Rule[] {
  const skip = NOT_AT_LEVEL[level];
  return skip ? EN16931_RULES.filter((r) => !skip.has(r.id)) : EN16931_RULES;
}

/** A rule the invoice breaks: its id, its words, the values involved (first failing element) and how often. */
export interface RuleFailure {
  id: string;
  words: string;
  values: string | null;
  times: number;
}

/** Applies the level's rules to a parsed invoice; the failures in the table's order. */
export function evaluateRules(tree: CiiTree, level: FacturXLevel): RuleFailure[] {
  const inv = invoiceOf(tree);
  const failures: RuleFailure[] = [];
  for (const rule of rulesOf(level)) {
    let failure: RuleFailure | null = null;
    for (const el of rule.context(inv)) {
      const verdict = rule.check(el, inv);
      if (verdict === true) continue;
      if (failure) failure.times++;
      else failure = { id: rule.id, words: rule.words, values: typeof verdict === 'string' ? verdict : null, times: 1 };
    }
    if (failure) failures.push(failure);
  }
  return failures;
}
