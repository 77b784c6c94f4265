/**
 * The EN 16931 rules of the invoice lines (BG-25) and their periods, allowances and charges, of the
 * parties (payee, seller and its tax representative) and of their VAT identifiers.
 * Each entry is one assert of the published Factur-X 1.09 EN 16931 Schematron: its id, its words as
 * published, the elements it applies to (the Schematron rule's context) and the check (its test).
 */

import { all, has, one, str } from './cii-tree.js';
import { desc, isVat, type Rule } from './invoice.js';
import { notNegative, payeeDiffers, periodInOrder, vatIdPrefix } from './rule-checks.js';
import {
  anywhere,
  hasReason,
  invoiceLines,
  lineAllowances,
  lineCharges,
  nonEmpty,
  periodHasDate,
  present,
  reasonsAgree,
  twoDecimalsAt,
  under,
} from './selectors.js';

/** The rules of lines and parties, in the Schematron's order. */
export const LINE_AND_PARTY_RULES: readonly Rule[] = [
  {
    id: 'BR-54',
    words: 'Each Item attribute (BG-32) shall contain an Item attribute name (BT-160) and an Item attribute value (BT-161).',
    context: anywhere('ApplicableProductCharacteristic'),
    check: (e) => has(e, 'Description') && has(e, 'Value'),
  },
  {
    id: 'BR-51',
    words:
      'In accordance with card payments security standards an invoice should never include a full card primary account number (BT-87). At the moment PCI Security Standards Council has defined that the first 6 digits and last 4 digits are the maximum number of digits to be shown.',
    context: anywhere('ApplicableTradeSettlementFinancialCard'),
    check: (e) => str(one(e, 'ID')).replace(/\s+/g, ' ').trim().length <= 10,
  },
  {
    id: 'BR-21',
    words: 'Each Invoice line (BG-25) shall have an Invoice line identifier (BT-126).',
    context: invoiceLines,
    check: nonEmpty('AssociatedDocumentLineDocument/LineID'),
  },
  {
    id: 'BR-22',
    words: 'Each Invoice line (BG-25) shall have an Invoiced quantity (BT-129).',
    context: invoiceLines,
    check: present('SpecifiedLineTradeDelivery/BilledQuantity'),
  },
  {
    id: 'BR-23',
    words: 'An Invoice line (BG-25) shall have an Invoiced quantity unit of measure code (BT-130).',
    context: invoiceLines,
    check: (e) => all(e, 'SpecifiedLineTradeDelivery/BilledQuantity').some((q) => 'unitCode' in q.attrs),
  },
  {
    id: 'BR-24',
    words: 'Each Invoice line (BG-25) shall have an Invoice line net amount (BT-131).',
    context: invoiceLines,
    check: present('SpecifiedLineTradeSettlement/SpecifiedTradeSettlementLineMonetarySummation/LineTotalAmount'),
  },
  {
    id: 'BR-25',
    words: 'Each Invoice line (BG-25) shall contain the Item name (BT-153).',
    context: invoiceLines,
    check: nonEmpty('SpecifiedTradeProduct/Name'),
  },
  {
    id: 'BR-26',
    words: 'Each Invoice line (BG-25) shall contain the Item net price (BT-146).',
    context: invoiceLines,
    check: present('SpecifiedLineTradeAgreement/NetPriceProductTradePrice/ChargeAmount'),
  },
  {
    id: 'BR-27',
    words: 'The Item net price (BT-146) shall NOT be negative.',
    context: invoiceLines,
    check: (e) => notNegative(all(e, 'SpecifiedLineTradeAgreement/NetPriceProductTradePrice/ChargeAmount'), 'BT-146'),
  },
  {
    id: 'BR-28',
    words: 'The Item gross price (BT-148) shall NOT be negative.',
    context: invoiceLines,
    check: (e) => {
      const gross = all(e, 'SpecifiedLineTradeAgreement/GrossPriceProductTradePrice/ChargeAmount');
      return gross.length === 0 || notNegative(gross, 'BT-148');
    },
  },
  {
    id: 'BR-64',
    words: 'The Item standard identifier (BT-157) shall have a Scheme identifier.',
    context: invoiceLines,
    check: (e) =>
      !has(e, 'SpecifiedTradeProduct/GlobalID') ||
      all(e, 'SpecifiedTradeProduct/GlobalID').some((g) => (g.attrs.schemeID ?? '') !== ''),
  },
  {
    id: 'BR-65',
    words: 'The Item classification identifier (BT-158) shall have a Scheme identifier.',
    context: invoiceLines,
    check: (e) =>
      !has(e, 'SpecifiedTradeProduct/DesignatedProductClassification') ||
      all(e, 'SpecifiedTradeProduct/DesignatedProductClassification/ClassCode').some((c) => (c.attrs.listID ?? '') !== ''),
  },
  {
    id: 'BR-CO-04',
    words: 'Each Invoice line (BG-25) shall be categorized with an Invoiced item VAT category code (BT-151).',
    context: invoiceLines,
    check: (e) => all(e, 'SpecifiedLineTradeSettlement/ApplicableTradeTax').some((t) => isVat(t) && has(t, 'CategoryCode')),
  },
  {
    id: 'BR-DEC-23',
    words: 'The allowed maximum number of decimals for the Invoice line net amount (BT-131) is 2.',
    context: invoiceLines,
    check: twoDecimalsAt('SpecifiedLineTradeSettlement/SpecifiedTradeSettlementLineMonetarySummation/LineTotalAmount'),
  },
  {
    id: 'BR-17',
    words: 'The Payee name (BT-59) shall be provided in the Invoice, if the Payee (BG-10) is different from the Seller (BG-4).',
    context: anywhere('PayeeTradeParty'),
    check: payeeDiffers,
  },
  {
    id: 'BR-18',
    words:
      'The Seller tax representative name (BT-62) shall be provided in the Invoice, if the Seller (BG-4) has a Seller tax representative party (BG-11).',
    context: anywhere('SellerTaxRepresentativeTradeParty'),
    check: (e) => str(one(e, 'Name')).replace(/\s+/g, ' ').trim() !== '',
  },
  {
    id: 'BR-19',
    words:
      'The Seller tax representative postal address (BG-12) shall be provided in the Invoice, if the Seller (BG-4) has a Seller tax representative party (BG-11).',
    context: anywhere('SellerTaxRepresentativeTradeParty'),
    check: present('PostalTradeAddress'),
  },
  {
    id: 'BR-20',
    words:
      'The Seller tax representative postal address (BG-12) shall contain a Tax representative country code (BT-69), if the Seller (BG-4) has a Seller tax representative party (BG-11).',
    context: anywhere('SellerTaxRepresentativeTradeParty'),
    check: (e) => str(one(e, 'PostalTradeAddress/CountryID')).trim() !== '',
  },
  {
    id: 'BR-56',
    words: 'Each Seller tax representative party (BG-11) shall have a Seller tax representative VAT identifier (BT-63).',
    context: anywhere('SellerTaxRepresentativeTradeParty'),
    check: (e) => all(e, 'SpecifiedTaxRegistration/ID').some((i) => i.attrs.schemeID === 'VA' && str(i) !== ''),
  },
  {
    id: 'BR-CO-26',
    words:
      'In order for the buyer to automatically identify a supplier, the Seller identifier (BT-29), the Seller legal registration identifier (BT-30) and/or the Seller VAT identifier (BT-31) shall be present.',
    context: anywhere('SellerTradeParty'),
    check: (e) =>
      has(e, 'ID') ||
      has(e, 'GlobalID') ||
      has(e, 'SpecifiedLegalOrganization/ID') ||
      all(e, 'SpecifiedTaxRegistration/ID').some((i) => i.attrs.schemeID === 'VA'),
  },
  {
    id: 'BR-30',
    words:
      'If both Invoice line period start date (BT-134) and Invoice line period end date (BT-135) are given then the Invoice line period end date (BT-135) shall be later or equal to the Invoice line period start date (BT-134).',
    context: under('SpecifiedLineTradeSettlement/BillingSpecifiedPeriod'),
    check: periodInOrder,
  },
  {
    id: 'BR-CO-20',
    words:
      'If Invoice line period (BG-26) is used, the Invoice line period start date (BT-134) or the Invoice line period end date (BT-135) shall be filled, or both.',
    context: under('SpecifiedLineTradeSettlement/BillingSpecifiedPeriod'),
    check: periodHasDate,
  },
  {
    id: 'BR-42',
    words:
      'Each Invoice line allowance (BG-27) shall have an Invoice line allowance reason (BT-139) or an Invoice line allowance reason code (BT-140).',
    context: lineAllowances,
    check: hasReason,
  },
  {
    id: 'BR-41',
    words: 'Each Invoice line allowance (BG-27) shall have an Invoice line allowance amount (BT-136).',
    context: lineAllowances,
    check: present('../ActualAmount'),
  },
  {
    id: 'BR-CO-07',
    words:
      'Invoice line allowance reason code (BT-140) and Invoice line allowance reason (BT-139) shall indicate the same type of allowance reason.',
    context: lineAllowances,
    check: reasonsAgree,
  },
  {
    id: 'BR-CO-23',
    words:
      'Each Invoice line allowance (BG-27) shall contain an Invoice line allowance reason (BT-139) or an Invoice line allowance reason code (BT-140), or both.',
    context: lineAllowances,
    check: hasReason,
  },
  {
    id: 'BR-DEC-24',
    words: 'The allowed maximum number of decimals for the Invoice line allowance amount (BT-136) is 2.',
    context: lineAllowances,
    check: twoDecimalsAt('../ActualAmount'),
  },
  {
    id: 'BR-DEC-25',
    words: 'The allowed maximum number of decimals for the Invoice line allowance base amount (BT-137) is 2.',
    context: lineAllowances,
    check: twoDecimalsAt('../BasisAmount'),
  },
  {
    id: 'BR-43',
    words: 'Each Invoice line charge (BG-28) shall have an Invoice line charge amount (BT-141).',
    context: lineCharges,
    check: present('../ActualAmount'),
  },
  {
    id: 'BR-44',
    words:
      'Each Invoice line charge (BG-28) shall have an Invoice line charge reason (BT-144) or an Invoice line charge reason code (BT-145).',
    context: lineCharges,
    check: hasReason,
  },
  {
    id: 'BR-CO-08',
    words:
      'Invoice line charge reason code (BT-145) and Invoice line charge reason (BT-144) shall indicate the same type of charge reason.',
    context: lineCharges,
    check: reasonsAgree,
  },
  {
    id: 'BR-CO-24',
    words:
      'Each Invoice line charge (BG-28) shall contain an Invoice line charge reason (BT-144) or an Invoice line charge reason code (BT-145), or both.',
    context: lineCharges,
    check: hasReason,
  },
  {
    id: 'BR-DEC-27',
    words: 'The allowed maximum number of decimals for the Invoice line charge amount (BT-141) is 2.',
    context: lineCharges,
    check: twoDecimalsAt('../ActualAmount'),
  },
  {
    id: 'BR-DEC-28',
    words: 'The allowed maximum number of decimals for the Invoice line charge base amount (BT-142) is 2.',
    context: lineCharges,
    check: twoDecimalsAt('../BasisAmount'),
  },
  {
    id: 'BR-CO-09',
    words:
      'The Seller VAT identifier (BT-31), the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48) shall have a prefix in accordance with ISO code ISO 3166-1 alpha-2 by which the country of issue may be identified. Nevertheless, Greece may use the prefix ‘EL’.',
    context: (inv) => desc(inv, 'SpecifiedTaxRegistration/ID').filter((i) => i.attrs.schemeID === 'VA'),
    check: vatIdPrefix,
  },
];
