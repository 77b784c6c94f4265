/**
 * The EN 16931 rules of the fields every invoice carries: a VAT breakdown and a line, its number,
 * dates, codes, the parties' names and addresses, and those of delivery and preceding invoices.
 * Each entry is one assert of the published Factur-X 1.09 EN 16931 Schematron: its id, its words as
 * published, the elements it applies to (the Schematron rule's context) and the check (its test).
 */

import { all, filled, has, str } from './cii-tree.js';
import { desc, type Rule } from './invoice.js';
import { uriHasScheme } from './rule-checks.js';
import { fromRoot, nonEmpty, present, under, wholeInvoice } from './selectors.js';

/** The rules of the document as a whole, in the Schematron's order. */
export const DOCUMENT_RULES: readonly Rule[] = [
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
