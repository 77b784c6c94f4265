/**
 * The EN 16931 rules of the invoice, its parties, lines, allowances, charges, totals and payment.
 * Each entry is one assert of the published Factur-X 1.09 EN 16931 Schematron: its id, its words as
 * published, the elements it applies to (the Schematron rule's context) and the check (its test).
 */
import { all, anyIs, filled, has, one, str } from './cii-tree.js';
import { at, desc, isVat, type Rule, twoDecimals } from './invoice.js';
import { notNegative, payeeDiffers, periodInOrder, taxAmountOfRate, totals, uriHasScheme, vatIdPrefix } from './rule-checks.js';

/** The invoice rules, in the Schematron's order. */
export const INVOICE_RULES: readonly Rule[] = [
  {
    id: 'BR-52',
    words: 'Each Additional supporting document (BG-24) shall contain a Supporting document reference (BT-122).',
    context: (inv) => inv.every('AdditionalReferencedDocument'),
    check: (e) => filled(e, 'IssuerAssignedID'),
  },
  {
    id: 'BR-45',
    words: 'Each VAT breakdown (BG-23) shall have a VAT category taxable amount (BT-116).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax'),
    check: (e) => has(e, 'BasisAmount'),
  },
  {
    id: 'BR-46',
    words: 'Each VAT breakdown (BG-23) shall have a VAT category tax amount (BT-117).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax'),
    check: (e) => has(e, 'CalculatedAmount'),
  },
  {
    id: 'BR-47',
    words: 'Each VAT breakdown (BG-23) shall be defined through a VAT category code (BT-118).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax'),
    check: (e) => has(e, 'CategoryCode'),
  },
  {
    id: 'BR-48',
    words: 'Each VAT breakdown (BG-23) shall have a VAT category rate (BT-119), except if the Invoice is not subject to VAT.',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax'),
    check: (e) => has(e, 'RateApplicablePercent') || anyIs(e, 'CategoryCode', 'O'),
  },
  {
    id: 'BR-CO-03',
    words: 'Value added tax point date (BT-7) and Value added tax point date code (BT-8) are mutually exclusive.',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax'),
    check: (e) => !(has(e, 'TaxPointDate') && has(e, 'DueDateTypeCode')),
  },
  {
    id: 'BR-CO-17',
    words:
      'VAT category tax amount (BT-117) = VAT category taxable amount (BT-116) x (VAT category rate (BT-119) / 100), rounded to two decimals.',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax'),
    check: taxAmountOfRate,
  },
  {
    id: 'BR-DEC-19',
    words: 'The allowed maximum number of decimals for the VAT category taxable amount (BT-116) is 2.',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax'),
    check: (e) => twoDecimals(one(e, 'BasisAmount')),
  },
  {
    id: 'BR-DEC-20',
    words: 'The allowed maximum number of decimals for the VAT category tax amount (BT-117) is 2.',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax'),
    check: (e) => twoDecimals(one(e, 'CalculatedAmount')),
  },
  {
    id: 'BR-29',
    words:
      'If both Invoicing period start date (BT-73) and Invoicing period end date (BT-74) are given then the Invoicing period end date (BT-74) shall be later or equal to the Invoicing period start date (BT-73).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/BillingSpecifiedPeriod'),
    check: periodInOrder,
  },
  {
    id: 'BR-CO-19',
    words:
      'If Invoicing period (BG-14) is used, the Invoicing period start date (BT-73) or the Invoicing period end date (BT-74) shall be filled, or both.',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/BillingSpecifiedPeriod'),
    check: (e) => has(e, 'StartDateTime') || has(e, 'EndDateTime'),
  },
  {
    id: 'BR-31',
    words: 'Each Document level allowance (BG-20) shall have a Document level allowance amount (BT-92).',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'false'),
      ),
    check: (e) => has(e, '../ActualAmount'),
  },
  {
    id: 'BR-32',
    words: 'Each Document level allowance (BG-20) shall have a Document level allowance VAT category code (BT-95).',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'false'),
      ),
    check: (e) => all(e, '../CategoryTradeTax').some((t) => isVat(t) && has(t, 'CategoryCode')),
  },
  {
    id: 'BR-33',
    words:
      'Each Document level allowance (BG-20) shall have a Document level allowance reason (BT-97) or a Document level allowance reason code (BT-98).',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'false'),
      ),
    check: (e) => has(e, '../Reason') || has(e, '../ReasonCode'),
  },
  {
    id: 'BR-CO-05',
    words:
      'Document level allowance reason code (BT-98) and Document level allowance reason (BT-97) shall indicate the same type of allowance.',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'false'),
      ),
    check: () => true /* the Schematron asserts true(): no machine check can tell two reasons mean the same */,
  },
  {
    id: 'BR-CO-21',
    words:
      'Each Document level allowance (BG-20) shall contain a Document level allowance reason (BT-97) or a Document level allowance reason code (BT-98), or both.',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'false'),
      ),
    check: (e) => has(e, '../Reason') || has(e, '../ReasonCode'),
  },
  {
    id: 'BR-DEC-01',
    words: 'The allowed maximum number of decimals for the Document level allowance amount (BT-92) is 2.',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'false'),
      ),
    check: (e) => twoDecimals(one(e, '../ActualAmount')),
  },
  {
    id: 'BR-DEC-02',
    words: 'The allowed maximum number of decimals for the Document level allowance base amount (BT-93) is 2.',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'false'),
      ),
    check: (e) => twoDecimals(one(e, '../BasisAmount')),
  },
  {
    id: 'BR-36',
    words: 'Each Document level charge (BG-21) shall have a Document level charge amount (BT-99).',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'true'),
      ),
    check: (e) => has(e, '../ActualAmount'),
  },
  {
    id: 'BR-37',
    words: 'Each Document level charge (BG-21) shall have a Document level charge VAT category code (BT-102).',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'true'),
      ),
    check: (e) => all(e, '../CategoryTradeTax').some((t) => isVat(t) && has(t, 'CategoryCode')),
  },
  {
    id: 'BR-38',
    words:
      'Each Document level charge (BG-21) shall have a Document level charge reason (BT-104) or a Document level charge reason code (BT-105).',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'true'),
      ),
    check: (e) => has(e, '../Reason') || has(e, '../ReasonCode'),
  },
  {
    id: 'BR-CO-06',
    words:
      'Document level charge reason code (BT-105) and Document level charge reason (BT-104) shall indicate the same type of charge.',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'true'),
      ),
    check: () => true /* the Schematron asserts true(): no machine check can tell two reasons mean the same */,
  },
  {
    id: 'BR-CO-22',
    words:
      'Each Document level charge (BG-21) shall contain a Document level charge reason (BT-104) or a Document level charge reason code (BT-105), or both.',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'true'),
      ),
    check: (e) => has(e, '../Reason') || has(e, '../ReasonCode'),
  },
  {
    id: 'BR-DEC-05',
    words: 'The allowed maximum number of decimals for the Document level charge amount (BT-99) is 2.',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'true'),
      ),
    check: (e) => twoDecimals(one(e, '../ActualAmount')),
  },
  {
    id: 'BR-DEC-06',
    words: 'The allowed maximum number of decimals for the Document level charge base amount (BT-100) is 2.',
    context: (inv) =>
      desc(inv, 'ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'true'),
      ),
    check: (e) => twoDecimals(one(e, '../BasisAmount')),
  },
  {
    id: 'BR-54',
    words: 'Each Item attribute (BG-32) shall contain an Item attribute name (BT-160) and an Item attribute value (BT-161).',
    context: (inv) => inv.every('ApplicableProductCharacteristic'),
    check: (e) => has(e, 'Description') && has(e, 'Value'),
  },
  {
    id: 'BR-51',
    words:
      'In accordance with card payments security standards an invoice should never include a full card primary account number (BT-87). At the moment PCI Security Standards Council has defined that the first 6 digits and last 4 digits are the maximum number of digits to be shown.',
    context: (inv) => inv.every('ApplicableTradeSettlementFinancialCard'),
    check: (e) => str(one(e, 'ID')).replace(/\s+/g, ' ').trim().length <= 10,
  },
  {
    id: 'BR-21',
    words: 'Each Invoice line (BG-25) shall have an Invoice line identifier (BT-126).',
    context: (inv) => inv.every('IncludedSupplyChainTradeLineItem'),
    check: (e) => filled(e, 'AssociatedDocumentLineDocument/LineID'),
  },
  {
    id: 'BR-22',
    words: 'Each Invoice line (BG-25) shall have an Invoiced quantity (BT-129).',
    context: (inv) => inv.every('IncludedSupplyChainTradeLineItem'),
    check: (e) => has(e, 'SpecifiedLineTradeDelivery/BilledQuantity'),
  },
  {
    id: 'BR-23',
    words: 'An Invoice line (BG-25) shall have an Invoiced quantity unit of measure code (BT-130).',
    context: (inv) => inv.every('IncludedSupplyChainTradeLineItem'),
    check: (e) => all(e, 'SpecifiedLineTradeDelivery/BilledQuantity').some((q) => 'unitCode' in q.attrs),
  },
  {
    id: 'BR-24',
    words: 'Each Invoice line (BG-25) shall have an Invoice line net amount (BT-131).',
    context: (inv) => inv.every('IncludedSupplyChainTradeLineItem'),
    check: (e) => has(e, 'SpecifiedLineTradeSettlement/SpecifiedTradeSettlementLineMonetarySummation/LineTotalAmount'),
  },
  {
    id: 'BR-25',
    words: 'Each Invoice line (BG-25) shall contain the Item name (BT-153).',
    context: (inv) => inv.every('IncludedSupplyChainTradeLineItem'),
    check: (e) => filled(e, 'SpecifiedTradeProduct/Name'),
  },
  {
    id: 'BR-26',
    words: 'Each Invoice line (BG-25) shall contain the Item net price (BT-146).',
    context: (inv) => inv.every('IncludedSupplyChainTradeLineItem'),
    check: (e) => has(e, 'SpecifiedLineTradeAgreement/NetPriceProductTradePrice/ChargeAmount'),
  },
  {
    id: 'BR-27',
    words: 'The Item net price (BT-146) shall NOT be negative.',
    context: (inv) => inv.every('IncludedSupplyChainTradeLineItem'),
    check: (e) => notNegative(all(e, 'SpecifiedLineTradeAgreement/NetPriceProductTradePrice/ChargeAmount'), 'BT-146'),
  },
  {
    id: 'BR-28',
    words: 'The Item gross price (BT-148) shall NOT be negative.',
    context: (inv) => inv.every('IncludedSupplyChainTradeLineItem'),
    check: (e) => {
      const gross = all(e, 'SpecifiedLineTradeAgreement/GrossPriceProductTradePrice/ChargeAmount');
      return gross.length === 0 || notNegative(gross, 'BT-148');
    },
  },
  {
    id: 'BR-64',
    words: 'The Item standard identifier (BT-157) shall have a Scheme identifier.',
    context: (inv) => inv.every('IncludedSupplyChainTradeLineItem'),
    check: (e) =>
      !has(e, 'SpecifiedTradeProduct/GlobalID') ||
      all(e, 'SpecifiedTradeProduct/GlobalID').some((g) => (g.attrs.schemeID ?? '') !== ''),
  },
  {
    id: 'BR-65',
    words: 'The Item classification identifier (BT-158) shall have a Scheme identifier.',
    context: (inv) => inv.every('IncludedSupplyChainTradeLineItem'),
    check: (e) =>
      !has(e, 'SpecifiedTradeProduct/DesignatedProductClassification') ||
      all(e, 'SpecifiedTradeProduct/DesignatedProductClassification/ClassCode').some((c) => (c.attrs.listID ?? '') !== ''),
  },
  {
    id: 'BR-CO-04',
    words: 'Each Invoice line (BG-25) shall be categorized with an Invoiced item VAT category code (BT-151).',
    context: (inv) => inv.every('IncludedSupplyChainTradeLineItem'),
    check: (e) => all(e, 'SpecifiedLineTradeSettlement/ApplicableTradeTax').some((t) => isVat(t) && has(t, 'CategoryCode')),
  },
  {
    id: 'BR-DEC-23',
    words: 'The allowed maximum number of decimals for the Invoice line net amount (BT-131) is 2.',
    context: (inv) => inv.every('IncludedSupplyChainTradeLineItem'),
    check: (e) =>
      twoDecimals(one(e, 'SpecifiedLineTradeSettlement/SpecifiedTradeSettlementLineMonetarySummation/LineTotalAmount')),
  },
  {
    id: 'BR-17',
    words: 'The Payee name (BT-59) shall be provided in the Invoice, if the Payee (BG-10) is different from the Seller (BG-4).',
    context: (inv) => inv.every('PayeeTradeParty'),
    check: payeeDiffers,
  },
  {
    id: 'BR-18',
    words:
      'The Seller tax representative name (BT-62) shall be provided in the Invoice, if the Seller (BG-4) has a Seller tax representative party (BG-11).',
    context: (inv) => inv.every('SellerTaxRepresentativeTradeParty'),
    check: (e) => str(one(e, 'Name')).replace(/\s+/g, ' ').trim() !== '',
  },
  {
    id: 'BR-19',
    words:
      'The Seller tax representative postal address (BG-12) shall be provided in the Invoice, if the Seller (BG-4) has a Seller tax representative party (BG-11).',
    context: (inv) => inv.every('SellerTaxRepresentativeTradeParty'),
    check: (e) => has(e, 'PostalTradeAddress'),
  },
  {
    id: 'BR-20',
    words:
      'The Seller tax representative postal address (BG-12) shall contain a Tax representative country code (BT-69), if the Seller (BG-4) has a Seller tax representative party (BG-11).',
    context: (inv) => inv.every('SellerTaxRepresentativeTradeParty'),
    check: (e) => str(one(e, 'PostalTradeAddress/CountryID')).trim() !== '',
  },
  {
    id: 'BR-56',
    words: 'Each Seller tax representative party (BG-11) shall have a Seller tax representative VAT identifier (BT-63).',
    context: (inv) => inv.every('SellerTaxRepresentativeTradeParty'),
    check: (e) => all(e, 'SpecifiedTaxRegistration/ID').some((i) => i.attrs.schemeID === 'VA' && str(i) !== ''),
  },
  {
    id: 'BR-CO-26',
    words:
      'In order for the buyer to automatically identify a supplier, the Seller identifier (BT-29), the Seller legal registration identifier (BT-30) and/or the Seller VAT identifier (BT-31) shall be present.',
    context: (inv) => inv.every('SellerTradeParty'),
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
    context: (inv) => desc(inv, 'SpecifiedLineTradeSettlement/BillingSpecifiedPeriod'),
    check: periodInOrder,
  },
  {
    id: 'BR-CO-20',
    words:
      'If Invoice line period (BG-26) is used, the Invoice line period start date (BT-134) or the Invoice line period end date (BT-135) shall be filled, or both.',
    context: (inv) => desc(inv, 'SpecifiedLineTradeSettlement/BillingSpecifiedPeriod'),
    check: (e) => has(e, 'StartDateTime') || has(e, 'EndDateTime'),
  },
  {
    id: 'BR-42',
    words:
      'Each Invoice line allowance (BG-27) shall have an Invoice line allowance reason (BT-139) or an Invoice line allowance reason code (BT-140).',
    context: (inv) =>
      desc(inv, 'SpecifiedLineTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'false'),
      ),
    check: (e) => has(e, '../Reason') || has(e, '../ReasonCode'),
  },
  {
    id: 'BR-41',
    words: 'Each Invoice line allowance (BG-27) shall have an Invoice line allowance amount (BT-136).',
    context: (inv) =>
      desc(inv, 'SpecifiedLineTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'false'),
      ),
    check: (e) => has(e, '../ActualAmount'),
  },
  {
    id: 'BR-CO-07',
    words:
      'Invoice line allowance reason code (BT-140) and Invoice line allowance reason (BT-139) shall indicate the same type of allowance reason.',
    context: (inv) =>
      desc(inv, 'SpecifiedLineTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'false'),
      ),
    check: () => true /* the Schematron asserts true(): no machine check can tell two reasons mean the same */,
  },
  {
    id: 'BR-CO-23',
    words:
      'Each Invoice line allowance (BG-27) shall contain an Invoice line allowance reason (BT-139) or an Invoice line allowance reason code (BT-140), or both.',
    context: (inv) =>
      desc(inv, 'SpecifiedLineTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'false'),
      ),
    check: (e) => has(e, '../Reason') || has(e, '../ReasonCode'),
  },
  {
    id: 'BR-DEC-24',
    words: 'The allowed maximum number of decimals for the Invoice line allowance amount (BT-136) is 2.',
    context: (inv) =>
      desc(inv, 'SpecifiedLineTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'false'),
      ),
    check: (e) => twoDecimals(one(e, '../ActualAmount')),
  },
  {
    id: 'BR-DEC-25',
    words: 'The allowed maximum number of decimals for the Invoice line allowance base amount (BT-137) is 2.',
    context: (inv) =>
      desc(inv, 'SpecifiedLineTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'false'),
      ),
    check: (e) => twoDecimals(one(e, '../BasisAmount')),
  },
  {
    id: 'BR-43',
    words: 'Each Invoice line charge (BG-28) shall have an Invoice line charge amount (BT-141).',
    context: (inv) =>
      desc(inv, 'SpecifiedLineTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'true'),
      ),
    check: (e) => has(e, '../ActualAmount'),
  },
  {
    id: 'BR-44',
    words:
      'Each Invoice line charge (BG-28) shall have an Invoice line charge reason (BT-144) or an Invoice line charge reason code (BT-145).',
    context: (inv) =>
      desc(inv, 'SpecifiedLineTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'true'),
      ),
    check: (e) => has(e, '../Reason') || has(e, '../ReasonCode'),
  },
  {
    id: 'BR-CO-08',
    words:
      'Invoice line charge reason code (BT-145) and Invoice line charge reason (BT-144) shall indicate the same type of charge reason.',
    context: (inv) =>
      desc(inv, 'SpecifiedLineTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'true'),
      ),
    check: () => true /* the Schematron asserts true(): no machine check can tell two reasons mean the same */,
  },
  {
    id: 'BR-CO-24',
    words:
      'Each Invoice line charge (BG-28) shall contain an Invoice line charge reason (BT-144) or an Invoice line charge reason code (BT-145), or both.',
    context: (inv) =>
      desc(inv, 'SpecifiedLineTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'true'),
      ),
    check: (e) => has(e, '../Reason') || has(e, '../ReasonCode'),
  },
  {
    id: 'BR-DEC-27',
    words: 'The allowed maximum number of decimals for the Invoice line charge amount (BT-141) is 2.',
    context: (inv) =>
      desc(inv, 'SpecifiedLineTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'true'),
      ),
    check: (e) => twoDecimals(one(e, '../ActualAmount')),
  },
  {
    id: 'BR-DEC-28',
    words: 'The allowed maximum number of decimals for the Invoice line charge base amount (BT-142) is 2.',
    context: (inv) =>
      desc(inv, 'SpecifiedLineTradeSettlement/SpecifiedTradeAllowanceCharge/ChargeIndicator').filter((c) =>
        anyIs(c, 'Indicator', 'true'),
      ),
    check: (e) => twoDecimals(one(e, '../BasisAmount')),
  },
  {
    id: 'BR-CO-09',
    words:
      'The Seller VAT identifier (BT-31), the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48) shall have a prefix in accordance with ISO code ISO 3166-1 alpha-2 by which the country of issue may be identified. Nevertheless, Greece may use the prefix ‘EL’.',
    context: (inv) => desc(inv, 'SpecifiedTaxRegistration/ID').filter((i) => i.attrs.schemeID === 'VA'),
    check: vatIdPrefix,
  },
  {
    id: 'CII-SR-463',
    words: 'Each Specified Trade Allowance Charge (BG-20)(BG-21) shall contain a Charge Indicator.',
    context: (inv) => inv.every('SpecifiedTradeAllowanceCharge'),
    check: (e) => has(e, 'ChargeIndicator'),
  },
  {
    id: 'BR-CO-10',
    words: 'Sum of Invoice line net amount (BT-106) = Σ Invoice line net amount (BT-131).',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: totals['BR-CO-10'],
  },
  {
    id: 'BR-12',
    words: 'An Invoice shall have the Sum of Invoice line net amount (BT-106).',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: (e) => has(e, 'LineTotalAmount'),
  },
  {
    id: 'BR-13',
    words: 'An Invoice shall have the Invoice total amount without VAT (BT-109).',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: (e) => has(e, 'TaxBasisTotalAmount'),
  },
  {
    id: 'BR-14',
    words: 'An Invoice shall have the Invoice total amount with VAT (BT-112).',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: (e) => has(e, 'GrandTotalAmount'),
  },
  {
    id: 'BR-15',
    words: 'An Invoice shall have the Amount due for payment (BT-115).',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: (e) => has(e, 'DuePayableAmount'),
  },
  {
    id: 'BR-CO-11',
    words: 'Sum of allowances on document level (BT-107) = Σ Document level allowance amount (BT-92).',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: totals['BR-CO-11'],
  },
  {
    id: 'BR-CO-12',
    words: 'Sum of charges on document level (BT-108) = Σ Document level charge amount (BT-99).',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: totals['BR-CO-12'],
  },
  {
    id: 'BR-CO-13',
    words:
      'Invoice total amount without VAT (BT-109) = Σ Invoice line net amount (BT-131) - Sum of allowances on document level (BT-107) + Sum of charges on document level (BT-108).',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: totals['BR-CO-13'],
  },
  {
    id: 'BR-CO-15',
    words:
      'Invoice total amount with VAT (BT-112) = Invoice total amount without VAT (BT-109) + Invoice total VAT amount (BT-110).',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: totals['BR-CO-15'],
  },
  {
    id: 'BR-CO-16',
    words:
      'Amount due for payment (BT-115) = Invoice total amount with VAT (BT-112) -Paid amount (BT-113) +Rounding amount (BT-114).',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: totals['BR-CO-16'],
  },
  {
    id: 'BR-DEC-09',
    words: 'The allowed maximum number of decimals for the Sum of Invoice line net amount (BT-106) is 2.',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: (e) => twoDecimals(one(e, 'LineTotalAmount')),
  },
  {
    id: 'BR-DEC-10',
    words: 'The allowed maximum number of decimals for the Sum of allowances on document level (BT-107) is 2.',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: (e) => twoDecimals(one(e, 'AllowanceTotalAmount')),
  },
  {
    id: 'BR-DEC-11',
    words: 'The allowed maximum number of decimals for the Sum of charges on document level (BT-108) is 2.',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: (e) => twoDecimals(one(e, 'ChargeTotalAmount')),
  },
  {
    id: 'BR-DEC-12',
    words: 'The allowed maximum number of decimals for the Invoice total amount without VAT (BT-109) is 2.',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: (e) => twoDecimals(one(e, 'TaxBasisTotalAmount')),
  },
  {
    id: 'BR-DEC-13',
    words: 'The allowed maximum number of decimals for the Invoice total VAT amount (BT-110) is 2.',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: totals['BR-DEC-13'],
  },
  {
    id: 'BR-DEC-14',
    words: 'The allowed maximum number of decimals for the Invoice total amount with VAT (BT-112) is 2.',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: (e) => twoDecimals(one(e, 'GrandTotalAmount')),
  },
  {
    id: 'BR-DEC-15',
    words: 'The allowed maximum number of decimals for the Invoice total VAT amount in accounting currency (BT-111) is 2.',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: totals['BR-DEC-15'],
  },
  {
    id: 'BR-DEC-16',
    words: 'The allowed maximum number of decimals for the Paid amount (BT-113) is 2.',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: (e) => twoDecimals(one(e, 'TotalPrepaidAmount')),
  },
  {
    id: 'BR-DEC-17',
    words: 'The allowed maximum number of decimals for the Rounding amount (BT-114) is 2.',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: (e) => twoDecimals(one(e, 'RoundingAmount')),
  },
  {
    id: 'BR-DEC-18',
    words: 'The allowed maximum number of decimals for the Amount due for payment (BT-115) is 2.',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
    check: (e) => twoDecimals(one(e, 'DuePayableAmount')),
  },
  {
    id: 'BR-53',
    words:
      'If the VAT accounting currency code (BT-6) is present, then the Invoice total VAT amount in accounting currency (BT-111) shall be provided.',
    context: (inv) => inv.every('SpecifiedTradeSettlementHeaderMonetarySummation'),
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
    context: (inv) => inv.every('SpecifiedTradeSettlementPaymentMeans'),
    check: (e) => has(e, 'TypeCode'),
  },
  {
    id: 'CII-SR-464',
    words: 'Only one BT-86 element is allowed on an invoice.',
    context: (inv) => inv.every('SpecifiedTradeSettlementPaymentMeans'),
    check: () => true /* as published: (A or B) or (not A and not B) */,
  },
  {
    id: 'BR-50',
    words:
      'A Payment account identifier (BT-84) shall be present if Credit transfer (BG-16) information is provided in the Invoice.',
    context: (inv) =>
      inv
        .every('SpecifiedTradeSettlementPaymentMeans')
        .filter((p) => anyIs(p, 'TypeCode', '30', '58'))
        .flatMap((p) => all(p, 'PayeePartyCreditorFinancialAccount')),
    check: (e) => str(one(e, 'IBANID')).trim() !== '' || str(one(e, 'ProprietaryID')).trim() !== '',
  },
  {
    id: 'BR-61',
    words:
      'If the Payment means type code (BT-81) means SEPA credit transfer, Local credit transfer or Non-SEPA international credit transfer, the Payment account identifier (BT-84) shall be present.',
    context: (inv) =>
      inv
        .every('SpecifiedTradeSettlementPaymentMeans')
        .filter((p) => anyIs(p, 'TypeCode', '30', '58'))
        .flatMap((p) => all(p, 'PayeePartyCreditorFinancialAccount')),
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
    context: (inv) => desc(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement'),
    check: (e) => has(e, 'ApplicableTradeTax'),
  },
  {
    id: 'BR-16',
    words: 'An Invoice shall have at least one Invoice line (BG-25).',
    context: (inv) => [inv.root],
    check: (_, inv) => inv.every('IncludedSupplyChainTradeLineItem').length > 0,
  },
  {
    id: 'BR-01',
    words: 'An Invoice shall have a Specification identifier (BT-24).',
    context: (inv) => [inv.root],
    check: (e) => filled(e, 'ExchangedDocumentContext/GuidelineSpecifiedDocumentContextParameter/ID'),
  },
  {
    id: 'BR-02',
    words: 'An Invoice shall have an Invoice number (BT-1).',
    context: (inv) => [inv.root],
    check: (e) => filled(e, 'ExchangedDocument/ID'),
  },
  {
    id: 'BR-03',
    words: 'An Invoice shall have an Invoice issue date (BT-2).',
    context: (inv) => [inv.root],
    check: (e) => all(e, 'ExchangedDocument/IssueDateTime/DateTimeString').some((d) => d.attrs.format === '102' && str(d) !== ''),
  },
  {
    id: 'BR-04',
    words: 'An Invoice shall have an Invoice type code (BT-3).',
    context: (inv) => [inv.root],
    check: (e) => filled(e, 'ExchangedDocument/TypeCode'),
  },
  {
    id: 'BR-05',
    words: 'An Invoice shall have an Invoice currency code (BT-5).',
    context: (inv) => [inv.root],
    check: (e) => filled(e, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/InvoiceCurrencyCode'),
  },
  {
    id: 'BR-06',
    words: 'An Invoice shall contain the Seller name (BT-27).',
    context: (inv) => [inv.root],
    check: (e) => filled(e, 'SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement/SellerTradeParty/Name'),
  },
  {
    id: 'BR-07',
    words: 'An Invoice shall contain the Buyer name (BT-44).',
    context: (inv) => [inv.root],
    check: (e) => filled(e, 'SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement/BuyerTradeParty/Name'),
  },
  {
    id: 'BR-08',
    words: 'An Invoice shall contain the Seller postal address (BG-5).',
    context: (inv) => [inv.root],
    check: (_, inv) => desc(inv, 'SellerTradeParty/PostalTradeAddress').length > 0,
  },
  {
    id: 'BR-09',
    words: 'The Seller postal address (BG-5) shall contain a Seller country code (BT-40).',
    context: (inv) => [inv.root],
    check: (_, inv) => desc(inv, 'SellerTradeParty/PostalTradeAddress/CountryID').some((c) => str(c) !== ''),
  },
  {
    id: 'BR-10',
    words: 'An Invoice shall contain the Buyer postal address (BG-8).',
    context: (inv) => [inv.root],
    check: (_, inv) => desc(inv, 'BuyerTradeParty/PostalTradeAddress').length > 0,
  },
  {
    id: 'BR-11',
    words: 'The Buyer postal address shall contain a Buyer country code (BT-55).',
    context: (inv) => [inv.root],
    check: (_, inv) => desc(inv, 'BuyerTradeParty/PostalTradeAddress/CountryID').some((c) => str(c) !== ''),
  },
  {
    id: 'BR-62',
    words: 'The Seller electronic address (BT-34) shall have a Scheme identifier.',
    context: (inv) => [inv.root],
    check: (e) => uriHasScheme(e, 'SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement/SellerTradeParty'),
  },
  {
    id: 'BR-63',
    words: 'The Buyer electronic address (BT-49) shall have a Scheme identifier.',
    context: (inv) => [inv.root],
    check: (e) => uriHasScheme(e, 'SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement/BuyerTradeParty'),
  },
  {
    id: 'CII-SR-465',
    words: 'Only one BT-41 element is allowed on an invoice.',
    context: (inv) => at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement'),
    check: (e) =>
      !(
        has(e, 'SellerTradeParty/DefinedTradeContact/PersonName') && has(e, 'SellerTradeParty/DefinedTradeContact/DepartmentName')
      ),
  },
  {
    id: 'CII-SR-466',
    words: 'Only one BT-56 element is allowed on an invoice.',
    context: (inv) => at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement'),
    check: (e) =>
      !(has(e, 'BuyerTradeParty/DefinedTradeContact/PersonName') && has(e, 'BuyerTradeParty/DefinedTradeContact/DepartmentName')),
  },
  {
    id: 'BR-57',
    words: 'Each Deliver to address (BG-15) shall contain a Deliver to country code (BT-80).',
    context: (inv) => at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeDelivery'),
    check: (e) => !has(e, 'ShipToTradeParty/PostalTradeAddress') || filled(e, 'ShipToTradeParty/PostalTradeAddress/CountryID'),
  },
  {
    id: 'BR-55',
    words: 'Each Preceding Invoice reference (BG-3) shall contain a Preceding Invoice reference (BT-25).',
    context: (inv) => at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/InvoiceReferencedDocument'),
    check: (e) => filled(e, 'IssuerAssignedID'),
  },
];
