/**
 * The EN 16931 rules of the document totals (BG-22), the payment instructions (BG-16) and the fields
 * every invoice carries (number, dates, names, addresses).
 * Each entry is one assert of the published Factur-X 1.09 EN 16931 Schematron: its id, its words as
 * published, the elements it applies to (the Schematron rule's context) and the check (its test).
 */

import { all, anyIs, filled, has, one, str } from './cii-tree.js';
import { desc, type Rule } from './invoice.js';
import { totals, uriHasScheme } from './rule-checks.js';
import {
  anywhere,
  creditTransferAccounts,
  documentTotals,
  fromRoot,
  nonEmpty,
  present,
  twoDecimalsAt,
  under,
  wholeInvoice,
} from './selectors.js';

/** The rules of totals, payment and the document, in the Schematron's order. */
export const TOTAL_AND_DOCUMENT_RULES: readonly Rule[] = [
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
  {
    id: 'BR-CO-18',
    words: 'An Invoice shall at least have one VAT breakdown group (BG-23).',
    context: under('SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement'),
    check: present('ApplicableTradeTax'),
  },
  {
    id: 'BR-16',
    words: 'An Invoice shall have at least one Invoice line (BG-25).',
    context: wholeInvoice,
    check: (_, inv) => inv.every('IncludedSupplyChainTradeLineItem').length > 0,
  },
  {
    id: 'BR-01',
    words: 'An Invoice shall have a Specification identifier (BT-24).',
    context: wholeInvoice,
    check: nonEmpty('ExchangedDocumentContext/GuidelineSpecifiedDocumentContextParameter/ID'),
  },
  {
    id: 'BR-02',
    words: 'An Invoice shall have an Invoice number (BT-1).',
    context: wholeInvoice,
    check: nonEmpty('ExchangedDocument/ID'),
  },
  {
    id: 'BR-03',
    words: 'An Invoice shall have an Invoice issue date (BT-2).',
    context: wholeInvoice,
    check: (e) => all(e, 'ExchangedDocument/IssueDateTime/DateTimeString').some((d) => d.attrs.format === '102' && str(d) !== ''),
  },
  {
    id: 'BR-04',
    words: 'An Invoice shall have an Invoice type code (BT-3).',
    context: wholeInvoice,
    check: nonEmpty('ExchangedDocument/TypeCode'),
  },
  {
    id: 'BR-05',
    words: 'An Invoice shall have an Invoice currency code (BT-5).',
    context: wholeInvoice,
    check: nonEmpty('SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/InvoiceCurrencyCode'),
  },
  {
    id: 'BR-06',
    words: 'An Invoice shall contain the Seller name (BT-27).',
    context: wholeInvoice,
    check: nonEmpty('SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement/SellerTradeParty/Name'),
  },
  {
    id: 'BR-07',
    words: 'An Invoice shall contain the Buyer name (BT-44).',
    context: wholeInvoice,
    check: nonEmpty('SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement/BuyerTradeParty/Name'),
  },
  {
    id: 'BR-08',
    words: 'An Invoice shall contain the Seller postal address (BG-5).',
    context: wholeInvoice,
    check: (_, inv) => desc(inv, 'SellerTradeParty/PostalTradeAddress').length > 0,
  },
  {
    id: 'BR-09',
    words: 'The Seller postal address (BG-5) shall contain a Seller country code (BT-40).',
    context: wholeInvoice,
    check: (_, inv) => desc(inv, 'SellerTradeParty/PostalTradeAddress/CountryID').some((c) => str(c) !== ''),
  },
  {
    id: 'BR-10',
    words: 'An Invoice shall contain the Buyer postal address (BG-8).',
    context: wholeInvoice,
    check: (_, inv) => desc(inv, 'BuyerTradeParty/PostalTradeAddress').length > 0,
  },
  {
    id: 'BR-11',
    words: 'The Buyer postal address shall contain a Buyer country code (BT-55).',
    context: wholeInvoice,
    check: (_, inv) => desc(inv, 'BuyerTradeParty/PostalTradeAddress/CountryID').some((c) => str(c) !== ''),
  },
  {
    id: 'BR-62',
    words: 'The Seller electronic address (BT-34) shall have a Scheme identifier.',
    context: wholeInvoice,
    check: (e) => uriHasScheme(e, 'SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement/SellerTradeParty'),
  },
  {
    id: 'BR-63',
    words: 'The Buyer electronic address (BT-49) shall have a Scheme identifier.',
    context: wholeInvoice,
    check: (e) => uriHasScheme(e, 'SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement/BuyerTradeParty'),
  },
  {
    id: 'CII-SR-465',
    words: 'Only one BT-41 element is allowed on an invoice.',
    context: fromRoot('SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement'),
    check: (e) =>
      !(
        has(e, 'SellerTradeParty/DefinedTradeContact/PersonName') && has(e, 'SellerTradeParty/DefinedTradeContact/DepartmentName')
      ),
  },
  {
    id: 'CII-SR-466',
    words: 'Only one BT-56 element is allowed on an invoice.',
    context: fromRoot('SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement'),
    check: (e) =>
      !(has(e, 'BuyerTradeParty/DefinedTradeContact/PersonName') && has(e, 'BuyerTradeParty/DefinedTradeContact/DepartmentName')),
  },
  {
    id: 'BR-57',
    words: 'Each Deliver to address (BG-15) shall contain a Deliver to country code (BT-80).',
    context: fromRoot('SupplyChainTradeTransaction/ApplicableHeaderTradeDelivery'),
    check: (e) => !has(e, 'ShipToTradeParty/PostalTradeAddress') || filled(e, 'ShipToTradeParty/PostalTradeAddress/CountryID'),
  },
  {
    id: 'BR-55',
    words: 'Each Preceding Invoice reference (BG-3) shall contain a Preceding Invoice reference (BT-25).',
    context: fromRoot('SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/InvoiceReferencedDocument'),
    check: nonEmpty('IssuerAssignedID'),
  },
];
