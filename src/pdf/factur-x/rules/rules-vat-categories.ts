/**
 * The EN 16931 rules of the VAT categories (BR-S, -Z, -E, -AE, -IC, -G, -O, -AF, -AG, -B): the
 * breakdown, allowance, charge and line rules of each category, and here the rules on which
 * categories the invoice as a whole uses.
 * Each entry is one assert of the published Factur-X 1.09 EN 16931 Schematron: its id, its words as
 * published, the elements it applies to (the Schematron rule's context) and the check (its test).
 */
import { str } from './cii-tree.js';
import type { Rule } from './invoice.js';
import { atLeastTwo, categoryUsed, oneBreakdown } from './rule-checks.js';
import { ALLOWANCE_RULES, CHARGE_RULES } from './rules-vat-allowances-charges.js';
import { OTHER_BREAKDOWN_RULES, ZERO_AND_STANDARD_BREAKDOWN_RULES } from './rules-vat-breakdowns.js';
import { LINE_RULES } from './rules-vat-lines.js';
import { wholeInvoice } from './selectors.js';

/** The rules on the categories the whole invoice uses. */
const INVOICE_CATEGORY_RULES: readonly Rule[] = [
  {
    id: 'BR-S-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "Standard rated" shall contain in the VAT breakdown (BG-23) at least one VAT category code (BT-118) equal with "Standard rated".',
    context: wholeInvoice,
    check: (_, inv) => atLeastTwo(inv, 'S'),
  },
  {
    id: 'BR-Z-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "Zero rated" shall contain in the VAT breakdown (BG-23) exactly one VAT category code (BT-118) equal with "Zero rated".',
    context: wholeInvoice,
    check: (_, inv) => oneBreakdown(inv, 'Z', false),
  },
  {
    id: 'BR-E-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is “Exempt from VAT” shall contain exactly one VAT breakdown (BG-23) with the VAT category code (BT-118) equal to "Exempt from VAT".',
    context: wholeInvoice,
    check: (_, inv) => oneBreakdown(inv, 'E', false),
  },
  {
    id: 'BR-AE-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "Reverse charge" shall contain in the VAT breakdown (BG-23) exactly one VAT category code (BT-118) equal with "VAT reverse charge".',
    context: wholeInvoice,
    check: (_, inv) => oneBreakdown(inv, 'AE', false),
  },
  {
    id: 'BR-IC-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "Intra-community supply" shall contain in the VAT breakdown (BG-23) exactly one VAT category code (BT-118) equal with "Intra-community supply".',
    context: wholeInvoice,
    check: (_, inv) => oneBreakdown(inv, 'K', false),
  },
  {
    id: 'BR-G-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "Export outside the EU" shall contain in the VAT breakdown (BG-23) exactly one VAT category code (BT-118) equal with "Export outside the EU".',
    context: wholeInvoice,
    check: (_, inv) => oneBreakdown(inv, 'G', false),
  },
  {
    id: 'BR-O-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "Not subject to VAT" shall contain exactly one VAT breakdown group (BG-23) with the VAT category code (BT-118) equal to "Not subject to VAT".',
    context: wholeInvoice,
    check: (_, inv) => oneBreakdown(inv, 'O', true),
  },
  {
    id: 'BR-AF-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "IGIC" shall contain in the VAT breakdown (BG-23) at least one VAT category code (BT-118) equal with "IGIC".',
    context: wholeInvoice,
    check: (_, inv) => atLeastTwo(inv, 'L'),
  },
  {
    id: 'BR-AG-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "IPSI" shall contain in the VAT breakdown (BG-23) at least one VAT category code (BT-118) equal with "IPSI".',
    context: wholeInvoice,
    check: (_, inv) => atLeastTwo(inv, 'M'),
  },
  {
    id: 'BR-B-01',
    words:
      'An Invoice where the VAT category code (BT-151, BT-95 or BT-102) is “Split payment” shall be a domestic Italian invoice.',
    context: wholeInvoice,
    check: (_, inv) => !categoryUsed(inv, 'B') || !inv.every('CountryID').some((c) => str(c) !== 'IT'),
  },
  {
    id: 'BR-B-02',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is “Split payment" shall not contain an invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is “Standard rated”.',
    context: wholeInvoice,
    check: (_, inv) => !categoryUsed(inv, 'B') || !categoryUsed(inv, 'S'),
  },
];

/** The VAT category rules, in the Schematron's order. */
export const VAT_CATEGORY_RULES: readonly Rule[] = [
  ...ZERO_AND_STANDARD_BREAKDOWN_RULES,
  ...ALLOWANCE_RULES,
  ...CHARGE_RULES,
  ...OTHER_BREAKDOWN_RULES,
  ...LINE_RULES,
  ...INVOICE_CATEGORY_RULES,
];
