/**
 * The EN 16931 rules of the document totals (BG-22) and the payment instructions (BG-16).
 * Each entry is one assert of the published Factur-X 1.09 EN 16931 Schematron: its id, its words as
 * published, the elements it applies to (the Schematron rule's context) and the check (its test).
 */

import { all, anyIs, has, one, str } from './cii-tree.js';
import type { Rule } from './invoice.js';
import { totals } from './rule-checks.js';
import { anywhere, creditTransferAccounts, documentTotals, present, twoDecimalsAt } from './selectors.js';

/** The rules of totals and payment, in the Schematron's order. */
export const TOTAL_AND_PAYMENT_RULES: readonly Rule[] = [
  {
    id: 'CII-SR-463',
    words: 'Each Specified Trade Allowance Charge (BG-20)(BG-21) shall contain a Charge Indicator.',
    context: anywhere('SpecifiedTradeAllowanceCharge'),
    check: present('ChargeIndicator'),
  },
  {
    id: 'BR-CO-10',
    words: 'Sum of Invoice line net amount (BT-106) = Σ Invoice line net amount (BT-131).',
    context: documentTotals,
    check: totals['BR-CO-10'],
  },
  {
    id: 'BR-12',
    words: 'An Invoice shall have the Sum of Invoice line net amount (BT-106).',
    context: documentTotals,
    check: present('LineTotalAmount'),
  },
  {
    id: 'BR-13',
    words: 'An Invoice shall have the Invoice total amount without VAT (BT-109).',
    context: documentTotals,
    check: present('TaxBasisTotalAmount'),
  },
  {
    id: 'BR-14',
    words: 'An Invoice shall have the Invoice total amount with VAT (BT-112).',
    context: documentTotals,
    check: present('GrandTotalAmount'),
  },
  {
    id: 'BR-15',
    words: 'An Invoice shall have the Amount due for payment (BT-115).',
    context: documentTotals,
    check: present('DuePayableAmount'),
  },
  {
    id: 'BR-CO-11',
    words: 'Sum of allowances on document level (BT-107) = Σ Document level allowance amount (BT-92).',
    context: documentTotals,
    check: totals['BR-CO-11'],
  },
  {
    id: 'BR-CO-12',
    words: 'Sum of charges on document level (BT-108) = Σ Document level charge amount (BT-99).',
    context: documentTotals,
    check: totals['BR-CO-12'],
  },
  {
    id: 'BR-CO-13',
    words:
      'Invoice total amount without VAT (BT-109) = Σ Invoice line net amount (BT-131) - Sum of allowances on document level (BT-107) + Sum of charges on document level (BT-108).',
    context: documentTotals,
    check: totals['BR-CO-13'],
  },
  {
    id: 'BR-CO-15',
    words:
      'Invoice total amount with VAT (BT-112) = Invoice total amount without VAT (BT-109) + Invoice total VAT amount (BT-110).',
    context: documentTotals,
    check: totals['BR-CO-15'],
  },
  {
    id: 'BR-CO-16',
    words:
      'Amount due for payment (BT-115) = Invoice total amount with VAT (BT-112) -Paid amount (BT-113) +Rounding amount (BT-114).',
    context: documentTotals,
    check: totals['BR-CO-16'],
  },
  {
    id: 'BR-DEC-09',
    words: 'The allowed maximum number of decimals for the Sum of Invoice line net amount (BT-106) is 2.',
    context: documentTotals,
    check: twoDecimalsAt('LineTotalAmount'),
  },
  {
    id: 'BR-DEC-10',
    words: 'The allowed maximum number of decimals for the Sum of allowances on document level (BT-107) is 2.',
    context: documentTotals,
    check: twoDecimalsAt('AllowanceTotalAmount'),
  },
  {
    id: 'BR-DEC-11',
    words: 'The allowed maximum number of decimals for the Sum of charges on document level (BT-108) is 2.',
    context: documentTotals,
    check: twoDecimalsAt('ChargeTotalAmount'),
  },
  {
    id: 'BR-DEC-12',
    words: 'The allowed maximum number of decimals for the Invoice total amount without VAT (BT-109) is 2.',
    context: documentTotals,
    check: twoDecimalsAt('TaxBasisTotalAmount'),
  },
  {
    id: 'BR-DEC-13',
    words: 'The allowed maximum number of decimals for the Invoice total VAT amount (BT-110) is 2.',
    context: documentTotals,
    check: totals['BR-DEC-13'],
  },
  {
    id: 'BR-DEC-14',
    words: 'The allowed maximum number of decimals for the Invoice total amount with VAT (BT-112) is 2.',
    context: documentTotals,
    check: twoDecimalsAt('GrandTotalAmount'),
  },
  {
    id: 'BR-DEC-15',
    words: 'The allowed maximum number of decimals for the Invoice total VAT amount in accounting currency (BT-111) is 2.',
    context: documentTotals,
    check: totals['BR-DEC-15'],
  },
  {
    id: 'BR-DEC-16',
    words: 'The allowed maximum number of decimals for the Paid amount (BT-113) is 2.',
    context: documentTotals,
    check: twoDecimalsAt('TotalPrepaidAmount'),
  },
  {
    id: 'BR-DEC-17',
    words: 'The allowed maximum number of decimals for the Rounding amount (BT-114) is 2.',
    context: documentTotals,
    check: twoDecimalsAt('RoundingAmount'),
  },
  {
    id: 'BR-DEC-18',
    words: 'The allowed maximum number of decimals for the Amount due for payment (BT-115) is 2.',
    context: documentTotals,
    check: twoDecimalsAt('DuePayableAmount'),
  },
  {
    id: 'BR-53',
    words:
      'If the VAT accounting currency code (BT-6) is present, then the Invoice total VAT amount in accounting currency (BT-111) shall be provided.',
    context: documentTotals,
    check: totals['BR-53'],
  },
  {
    id: 'BR-CO-14',
    words: 'Invoice total VAT amount (BT-110) = Σ VAT category tax amount (BT-117).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeSettlementHeaderMonetarySummation')
        .flatMap((s) => all(s, 'TaxTotalAmount'))
        .filter((t) =>
          anyIs(
            inv.root,
            'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/InvoiceCurrencyCode',
            t.attrs.currencyID ?? '\u0000',
          ),
        ),
    check: totals['BR-CO-14'],
  },
  {
    id: 'BR-49',
    words: 'A Payment instruction (BG-16) shall specify the Payment means type code (BT-81).',
    context: anywhere('SpecifiedTradeSettlementPaymentMeans'),
    check: present('TypeCode'),
  },
  {
    id: 'CII-SR-464',
    words: 'Only one BT-86 element is allowed on an invoice.',
    context: anywhere('SpecifiedTradeSettlementPaymentMeans'),
    check: () => true /* as published: (A or B) or (not A and not B) */,
  },
  {
    id: 'BR-50',
    words:
      'A Payment account identifier (BT-84) shall be present if Credit transfer (BG-16) information is provided in the Invoice.',
    context: creditTransferAccounts,
    check: (e) => str(one(e, 'IBANID')).trim() !== '' || str(one(e, 'ProprietaryID')).trim() !== '',
  },
  {
    id: 'BR-61',
    words:
      'If the Payment means type code (BT-81) means SEPA credit transfer, Local credit transfer or Non-SEPA international credit transfer, the Payment account identifier (BT-84) shall be present.',
    context: creditTransferAccounts,
    check: (e) => has(e, 'IBANID') || has(e, 'ProprietaryID'),
  },
  {
    id: 'BR-CO-27',
    words: 'Either the IBAN or a Proprietary ID (BT-84) shall be used.',
    context: (inv) =>
      inv
        .every('SpecifiedTradeSettlementPaymentMeans')
        .filter((p) => all(p, 'TypeCode').some((t) => ['30', '58'].includes(str(t).replace(/\s+/g, ' ').trim()))),
    check: (e) =>
      (has(e, 'PayeePartyCreditorFinancialAccount/IBANID') || has(e, 'PayeePartyCreditorFinancialAccount/ProprietaryID')) &&
      !(has(e, 'PayeePartyCreditorFinancialAccount/IBANID') && has(e, 'PayeePartyCreditorFinancialAccount/ProprietaryID')),
  },
];
