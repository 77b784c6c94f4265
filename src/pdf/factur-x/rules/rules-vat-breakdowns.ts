/**
 * The EN 16931 rules on the VAT breakdowns (BG-23) of each category: the taxable amount adds up, the
 * VAT amount, and whether an exemption reason is given.
 * Each entry is one assert of the published Factur-X 1.09 EN 16931 Schematron: its id, its words as
 * published, the elements it applies to (the Schematron rule's context) and the check (its test).
 */
import { has } from './cii-tree.js';
import type { Rule } from './invoice.js';
import { basisExact, vatWithinOne } from './rule-checks.js';
import { alwaysHolds } from './selectors.js';
import { basisPerRate, basisWithinOne } from './vat-categories.js';
import {
  breakdownCodesOf,
  breakdownsOf,
  hasExemptionReason,
  noExemptionReason,
  onlyCategory,
  vatIsZero,
} from './vat-selectors.js';

/** The breakdown rules of "Zero rated" and "Standard rated", which the Schematron puts first. */
export const ZERO_AND_STANDARD_BREAKDOWN_RULES: readonly Rule[] = [
  {
    id: 'BR-Z-08',
    words:
      'In a VAT breakdown (BG-23) where VAT category code (BT-118) is "Zero rated" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amount (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Zero rated".',
    context: breakdownCodesOf('Z'),
    check: basisWithinOne('Z'),
  },
  {
    id: 'BR-Z-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where VAT category code (BT-118) is "Zero rated" shall equal 0 (zero).',
    context: breakdownCodesOf('Z'),
    check: vatIsZero,
  },
  {
    id: 'BR-Z-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) "Zero rated" shall not have a VAT exemption reason code (BT-121) or VAT exemption reason text (BT-120).',
    context: breakdownCodesOf('Z'),
    check: noExemptionReason,
  },
  {
    id: 'BR-S-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where VAT category code (BT-118) is "Standard rated" shall equal the VAT category taxable amount (BT-116) multiplied by the VAT category rate (BT-119).',
    context: breakdownCodesOf('S'),
    check: vatWithinOne,
  },
  {
    id: 'BR-S-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) "Standard rate" shall not have a VAT exemption reason code (BT-121) or VAT exemption reason text (BT-120).',
    context: breakdownCodesOf('S'),
    check: noExemptionReason,
  },
  {
    id: 'BR-S-08',
    words:
      'For each different value of VAT category rate (BT-119) where the VAT category code (BT-118) is "Standard rated", the VAT category taxable amount (BT-116) in a VAT breakdown (BG-23) shall equal the sum of Invoice line net amounts (BT-131) plus the sum of document level charge amounts (BT-99) minus the sum of document level allowance amounts (BT-92) where the VAT category code (BT-151, BT-102, BT-95) is "Standard rated" and the VAT rate (BT-152, BT-103, BT-96) equals the VAT category rate (BT-119).',
    context: breakdownCodesOf('S'),
    check: basisPerRate('S', (c) => c.parent ?? undefined),
  },
];

/** The breakdown rules of the other categories, which the Schematron puts after the allowances and charges. */
export const OTHER_BREAKDOWN_RULES: readonly Rule[] = [
  {
    id: 'BR-AE-08',
    words:
      'In a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Reverse charge" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amounts (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Reverse charge".',
    context: breakdownCodesOf('AE'),
    check: basisWithinOne('AE'),
  },
  {
    id: 'BR-AE-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Reverse charge" shall be 0 (zero).',
    context: breakdownCodesOf('AE'),
    check: vatIsZero,
  },
  {
    id: 'BR-AE-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) "Reverse charge" shall have a VAT exemption reason code (BT-121), meaning "Reverse charge" or the VAT exemption reason text (BT-120) "Reverse charge" (or the equivalent standard text in another language).',
    context: breakdownCodesOf('AE'),
    check: hasExemptionReason,
  },
  {
    id: 'BR-E-08',
    words:
      'In a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Exempt from VAT" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amounts (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Exempt from VAT".',
    context: breakdownCodesOf('E'),
    check: basisWithinOne('E'),
  },
  {
    id: 'BR-E-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where the VAT category code (BT-118) equals "Exempt from VAT" shall equal 0 (zero).',
    context: breakdownCodesOf('E'),
    check: vatIsZero,
  },
  {
    id: 'BR-E-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) "Exempt from VAT" shall have a VAT exemption reason code (BT-121) or a VAT exemption reason text (BT-120).',
    context: breakdownCodesOf('E'),
    check: hasExemptionReason,
  },
  {
    id: 'BR-G-08',
    words:
      'In a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Export outside the EU" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amounts (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Export outside the EU".',
    context: breakdownCodesOf('G'),
    check: basisWithinOne('G'),
  },
  {
    id: 'BR-G-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Export outside the EU" shall be 0 (zero).',
    context: breakdownCodesOf('G'),
    check: vatIsZero,
  },
  {
    id: 'BR-G-10',
    words:
      'A VAT Breakdown (BG-23) with the VAT Category code (BT-118) "Export outside the EU" shall have a VAT exemption reason code (BT-121), meaning "Export outside the EU" or the VAT exemption reason text (BT-120) "Export outside the EU" (or the equivalent standard text in another language).',
    context: breakdownCodesOf('G'),
    check: hasExemptionReason,
  },
  {
    id: 'BR-IC-08',
    words:
      'In a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Intra-community supply" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amounts (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Intra-community supply".',
    context: breakdownCodesOf('K'),
    check: basisWithinOne('K'),
  },
  {
    id: 'BR-IC-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Intra-community supply" shall be 0 (zero).',
    context: breakdownCodesOf('K'),
    check: vatIsZero,
  },
  {
    id: 'BR-IC-10',
    words:
      'A VAT Breakdown (BG-23) with the VAT Category code (BT-118) "Intra-community supply" shall have a VAT exemption reason code (BT-121), meaning "Intra-community supply" or the VAT exemption reason text (BT-120) "Intra-community supply" (or the equivalent standard text in another language).',
    context: breakdownCodesOf('K'),
    check: hasExemptionReason,
  },
  {
    id: 'BR-IC-11',
    words:
      'In an Invoice with a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Intra-community supply" the Actual delivery date (BT-72) or the Invoicing period (BG-14) shall not be blank.',
    context: breakdownCodesOf('K'),
    check: (e, inv) =>
      has(
        inv.root,
        'SupplyChainTradeTransaction/ApplicableHeaderTradeDelivery/ActualDeliverySupplyChainEvent/OccurrenceDateTime/DateTimeString',
      ) ||
      has(e, '../../BillingSpecifiedPeriod/StartDateTime') ||
      has(e, '../../BillingSpecifiedPeriod/EndDateTime'),
  },
  {
    id: 'BR-IC-12',
    words:
      'In an Invoice with a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Intra-community supply" the Deliver to country code (BT-80) shall not be blank.',
    context: breakdownCodesOf('K'),
    check: (_, inv) =>
      has(inv.root, 'SupplyChainTradeTransaction/ApplicableHeaderTradeDelivery/ShipToTradeParty/PostalTradeAddress/CountryID'),
  },
  {
    id: 'BR-AF-08',
    words:
      'For each different value of VAT category rate (BT-119) where the VAT category code (BT-118) is "IGIC", the VAT category taxable amount (BT-116) in a VAT breakdown (BG-23) shall equal the sum of Invoice line net amounts (BT-131) plus the sum of document level charge amounts (BT-99) minus the sum of document level allowance amounts (BT-92) where the VAT category code (BT-151, BT-102, BT-95) is "IGIC" and the VAT rate (BT-152, BT-103, BT-96) equals the VAT category rate (BT-119).',
    context: breakdownsOf('L'),
    check: basisPerRate('L', (t) => t.parent ?? undefined),
  },
  {
    id: 'BR-AF-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where VAT category code (BT-118) is "IGIC" shall equal the VAT category taxable amount (BT-116) multiplied by the VAT category rate (BT-119).',
    context: breakdownsOf('L'),
    check: alwaysHolds,
  },
  {
    id: 'BR-AF-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) "IGIC" shall not have a VAT exemption reason code (BT-121) or VAT exemption reason text (BT-120).',
    context: breakdownsOf('L'),
    check: noExemptionReason,
  },
  {
    id: 'BR-AG-08',
    words:
      'For each different value of VAT category rate (BT-119) where the VAT category code (BT-118) is "IPSI", the VAT category taxable amount (BT-116) in a VAT breakdown (BG-23) shall equal the sum of Invoice line net amounts (BT-131) plus the sum of document level charge amounts (BT-99) minus the sum of document level allowance amounts (BT-92) where the VAT category code (BT-151, BT-102, BT-95) is "IPSI" and the VAT rate (BT-152, BT-103, BT-96) equals the VAT category rate (BT-119).',
    context: breakdownsOf('M'),
    check: basisPerRate('M', (t) => t.parent ?? undefined),
  },
  {
    id: 'BR-AG-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where VAT category code (BT-118) is "IPSI" shall equal the VAT category taxable amount (BT-116) multiplied by the VAT category rate (BT-119).',
    context: breakdownsOf('M'),
    check: alwaysHolds,
  },
  {
    id: 'BR-AG-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) "IPSI" shall not have a VAT exemption reason code (BT-121) or VAT exemption reason text (BT-120).',
    context: breakdownsOf('M'),
    check: noExemptionReason,
  },
  {
    id: 'BR-O-08',
    words:
      'In a VAT breakdown (BG-23) where the VAT category code (BT-118) is " Not subject to VAT" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amounts (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Not subject to VAT".',
    context: breakdownsOf('O'),
    check: basisExact('O'),
  },
  {
    id: 'BR-O-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Not subject to VAT" shall be 0 (zero).',
    context: breakdownsOf('O'),
    check: vatIsZero,
  },
  {
    id: 'BR-O-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) " Not subject to VAT" shall have a VAT exemption reason code (BT-121), meaning " Not subject to VAT" or a VAT exemption reason text (BT-120) " Not subject to VAT" (or the equivalent standard text in another language).',
    context: breakdownsOf('O'),
    check: hasExemptionReason,
  },
  {
    id: 'BR-O-11',
    words:
      'An Invoice that contains a VAT breakdown group (BG-23) with a VAT category code (BT-118) "Not subject to VAT" shall not contain other VAT breakdown groups (BG-23).',
    context: breakdownsOf('O'),
    check: onlyCategory('O', 'ApplicableTradeTax'),
  },
  {
    id: 'BR-O-12',
    words:
      'An Invoice that contains a VAT breakdown group (BG-23) with a VAT category code (BT-118) "Not subject to VAT" shall not contain an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is not "Not subject to VAT".',
    context: breakdownsOf('O'),
    check: onlyCategory('O', 'ApplicableTradeTax'),
  },
  {
    id: 'BR-O-13',
    words:
      'An Invoice that contains a VAT breakdown group (BG-23) with a VAT category code (BT-118) "Not subject to VAT" shall not contain Document level allowances (BG-20) where Document level allowance VAT category code (BT-95) is not "Not subject to VAT".',
    context: breakdownsOf('O'),
    check: onlyCategory('O', 'CategoryTradeTax'),
  },
  {
    id: 'BR-O-14',
    words:
      'An Invoice that contains a VAT breakdown group (BG-23) with a VAT category code (BT-118) "Not subject to VAT" shall not contain Document level charges (BG-21) where Document level charge VAT category code (BT-102) is not "Not subject to VAT".',
    context: breakdownsOf('O'),
    check: onlyCategory('O', 'CategoryTradeTax'),
  },
];
