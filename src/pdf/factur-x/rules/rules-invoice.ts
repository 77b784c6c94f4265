/**
 * The EN 16931 rules of the invoice, its parties, lines, allowances, charges, totals and payment; here
 * those of the header's settlement: VAT breakdowns (BG-23), invoicing period, document level
 * allowances (BG-20) and charges (BG-21).
 * Each entry is one assert of the published Factur-X 1.09 EN 16931 Schematron: its id, its words as
 * published, the elements it applies to (the Schematron rule's context) and the check (its test).
 */

import { anyIs, has } from './cii-tree.js';
import type { Rule } from './invoice.js';
import { periodInOrder, taxAmountOfRate } from './rule-checks.js';
import { DOCUMENT_RULES } from './rules-invoice-document.js';
import { LINE_AND_PARTY_RULES } from './rules-invoice-lines.js';
import { TOTAL_AND_PAYMENT_RULES } from './rules-invoice-totals.js';
import {
  anywhere,
  documentAllowances,
  documentCharges,
  hasReason,
  hasVatCategory,
  nonEmpty,
  periodHasDate,
  present,
  reasonsAgree,
  twoDecimalsAt,
  under,
  vatBreakdowns,
} from './selectors.js';

/** The rules of the header's settlement, in the Schematron's order. */
const SETTLEMENT_RULES: readonly Rule[] = [
  {
    id: 'BR-52',
    words: 'Each Additional supporting document (BG-24) shall contain a Supporting document reference (BT-122).',
    context: anywhere('AdditionalReferencedDocument'),
    check: nonEmpty('IssuerAssignedID'),
  },
  {
    id: 'BR-45',
    words: 'Each VAT breakdown (BG-23) shall have a VAT category taxable amount (BT-116).',
    context: vatBreakdowns,
    check: present('BasisAmount'),
  },
  {
    id: 'BR-46',
    words: 'Each VAT breakdown (BG-23) shall have a VAT category tax amount (BT-117).',
    context: vatBreakdowns,
    check: present('CalculatedAmount'),
  },
  {
    id: 'BR-47',
    words: 'Each VAT breakdown (BG-23) shall be defined through a VAT category code (BT-118).',
    context: vatBreakdowns,
    check: present('CategoryCode'),
  },
  {
    id: 'BR-48',
    words: 'Each VAT breakdown (BG-23) shall have a VAT category rate (BT-119), except if the Invoice is not subject to VAT.',
    context: vatBreakdowns,
    check: (e) => has(e, 'RateApplicablePercent') || anyIs(e, 'CategoryCode', 'O'),
  },
  {
    id: 'BR-CO-03',
    words: 'Value added tax point date (BT-7) and Value added tax point date code (BT-8) are mutually exclusive.',
    context: vatBreakdowns,
    check: (e) => !(has(e, 'TaxPointDate') && has(e, 'DueDateTypeCode')),
  },
  {
    id: 'BR-CO-17',
    words:
      'VAT category tax amount (BT-117) = VAT category taxable amount (BT-116) x (VAT category rate (BT-119) / 100), rounded to two decimals.',
    context: vatBreakdowns,
    check: taxAmountOfRate,
  },
  {
    id: 'BR-DEC-19',
    words: 'The allowed maximum number of decimals for the VAT category taxable amount (BT-116) is 2.',
    context: vatBreakdowns,
    check: twoDecimalsAt('BasisAmount'),
  },
  {
    id: 'BR-DEC-20',
    words: 'The allowed maximum number of decimals for the VAT category tax amount (BT-117) is 2.',
    context: vatBreakdowns,
    check: twoDecimalsAt('CalculatedAmount'),
  },
  {
    id: 'BR-29',
    words:
      'If both Invoicing period start date (BT-73) and Invoicing period end date (BT-74) are given then the Invoicing period end date (BT-74) shall be later or equal to the Invoicing period start date (BT-73).',
    context: under('ApplicableHeaderTradeSettlement/BillingSpecifiedPeriod'),
    check: periodInOrder,
  },
  {
    id: 'BR-CO-19',
    words:
      'If Invoicing period (BG-14) is used, the Invoicing period start date (BT-73) or the Invoicing period end date (BT-74) shall be filled, or both.',
    context: under('ApplicableHeaderTradeSettlement/BillingSpecifiedPeriod'),
    check: periodHasDate,
  },
  {
    id: 'BR-31',
    words: 'Each Document level allowance (BG-20) shall have a Document level allowance amount (BT-92).',
    context: documentAllowances,
    check: present('../ActualAmount'),
  },
  {
    id: 'BR-32',
    words: 'Each Document level allowance (BG-20) shall have a Document level allowance VAT category code (BT-95).',
    context: documentAllowances,
    check: hasVatCategory,
  },
  {
    id: 'BR-33',
    words:
      'Each Document level allowance (BG-20) shall have a Document level allowance reason (BT-97) or a Document level allowance reason code (BT-98).',
    context: documentAllowances,
    check: hasReason,
  },
  {
    id: 'BR-CO-05',
    words:
      'Document level allowance reason code (BT-98) and Document level allowance reason (BT-97) shall indicate the same type of allowance.',
    context: documentAllowances,
    check: reasonsAgree,
  },
  {
    id: 'BR-CO-21',
    words:
      'Each Document level allowance (BG-20) shall contain a Document level allowance reason (BT-97) or a Document level allowance reason code (BT-98), or both.',
    context: documentAllowances,
    check: hasReason,
  },
  {
    id: 'BR-DEC-01',
    words: 'The allowed maximum number of decimals for the Document level allowance amount (BT-92) is 2.',
    context: documentAllowances,
    check: twoDecimalsAt('../ActualAmount'),
  },
  {
    id: 'BR-DEC-02',
    words: 'The allowed maximum number of decimals for the Document level allowance base amount (BT-93) is 2.',
    context: documentAllowances,
    check: twoDecimalsAt('../BasisAmount'),
  },
  {
    id: 'BR-36',
    words: 'Each Document level charge (BG-21) shall have a Document level charge amount (BT-99).',
    context: documentCharges,
    check: present('../ActualAmount'),
  },
  {
    id: 'BR-37',
    words: 'Each Document level charge (BG-21) shall have a Document level charge VAT category code (BT-102).',
    context: documentCharges,
    check: hasVatCategory,
  },
  {
    id: 'BR-38',
    words:
      'Each Document level charge (BG-21) shall have a Document level charge reason (BT-104) or a Document level charge reason code (BT-105).',
    context: documentCharges,
    check: hasReason,
  },
  {
    id: 'BR-CO-06',
    words:
      'Document level charge reason code (BT-105) and Document level charge reason (BT-104) shall indicate the same type of charge.',
    context: documentCharges,
    check: reasonsAgree,
  },
  {
    id: 'BR-CO-22',
    words:
      'Each Document level charge (BG-21) shall contain a Document level charge reason (BT-104) or a Document level charge reason code (BT-105), or both.',
    context: documentCharges,
    check: hasReason,
  },
  {
    id: 'BR-DEC-05',
    words: 'The allowed maximum number of decimals for the Document level charge amount (BT-99) is 2.',
    context: documentCharges,
    check: twoDecimalsAt('../ActualAmount'),
  },
  {
    id: 'BR-DEC-06',
    words: 'The allowed maximum number of decimals for the Document level charge base amount (BT-100) is 2.',
    context: documentCharges,
    check: twoDecimalsAt('../BasisAmount'),
  },
];

/** The invoice rules, in the Schematron's order. */
export const INVOICE_RULES: readonly Rule[] = [
  ...SETTLEMENT_RULES,
  ...LINE_AND_PARTY_RULES,
  ...TOTAL_AND_PAYMENT_RULES,
  ...DOCUMENT_RULES,
];
