/**
 * The EN 16931 rules of the VAT categories (BR-S, -Z, -E, -AE, -IC, -G, -O, -AF, -AG, -B).
 * Each entry is one assert of the published Factur-X 1.09 EN 16931 Schematron: its id, its words as
 * published, the elements it applies to (the Schematron rule's context) and the check (its test).
 */
import { all, anyIs, has, one, str } from './cii-tree.js';
import { at, desc, type Rule } from './invoice.js';
import { amountIsZero, atLeastTwo, basisExact, categoryUsed, oneBreakdown, rateIs, vatWithinOne } from './rule-checks.js';
import {
  anySellerHasVatId,
  basisPerRate,
  basisWithinOne,
  buyerHasLegalId,
  buyerHasVatId,
  sellerHasVatId,
} from './vat-categories.js';

/** The VAT category rules, in the Schematron's order. */
export const VAT_CATEGORY_RULES: readonly Rule[] = [
  {
    id: 'BR-Z-08',
    words:
      'In a VAT breakdown (BG-23) where VAT category code (BT-118) is "Zero rated" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amount (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Zero rated".',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'Z'),
    check: basisWithinOne('Z'),
  },
  {
    id: 'BR-Z-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where VAT category code (BT-118) is "Zero rated" shall equal 0 (zero).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'Z'),
    check: (e) => amountIsZero(one(e, '../CalculatedAmount')),
  },
  {
    id: 'BR-Z-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) "Zero rated" shall not have a VAT exemption reason code (BT-121) or VAT exemption reason text (BT-120).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'Z'),
    check: (e) => !has(e, '../ExemptionReason') && !has(e, '../ExemptionReasonCode'),
  },
  {
    id: 'BR-S-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where VAT category code (BT-118) is "Standard rated" shall equal the VAT category taxable amount (BT-116) multiplied by the VAT category rate (BT-119).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'S'),
    check: vatWithinOne,
  },
  {
    id: 'BR-S-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) "Standard rate" shall not have a VAT exemption reason code (BT-121) or VAT exemption reason text (BT-120).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'S'),
    check: (e) => !has(e, '../ExemptionReason') && !has(e, '../ExemptionReasonCode'),
  },
  {
    id: 'BR-S-08',
    words:
      'For each different value of VAT category rate (BT-119) where the VAT category code (BT-118) is "Standard rated", the VAT category taxable amount (BT-116) in a VAT breakdown (BG-23) shall equal the sum of Invoice line net amounts (BT-131) plus the sum of document level charge amounts (BT-99) minus the sum of document level allowance amounts (BT-92) where the VAT category code (BT-151, BT-102, BT-95) is "Standard rated" and the VAT rate (BT-152, BT-103, BT-96) equals the VAT category rate (BT-119).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'S'),
    check: basisPerRate('S', (c) => c.parent ?? undefined),
  },
  {
    id: 'BR-AE-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Reverse charge" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48) and/or the Buyer legal registration identifier (BT-47).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'AE')),
    check: (_, inv) => anySellerHasVatId(inv, ['VA', 'FC']) && (buyerHasVatId(inv) || buyerHasLegalId(inv)),
  },
  {
    id: 'BR-AE-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Reverse charge" the Document level allowance VAT rate (BT-96) shall be 0 (zero).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'AE')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-E-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Exempt from VAT" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'E')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-E-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Exempt from VAT", the Document level allowance VAT rate (BT-96) shall be 0 (zero).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'E')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-G-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Export outside the EU" shall contain the Seller VAT Identifier (BT-31) or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'G')),
    check: (_, inv) => anySellerHasVatId(inv, ['VA']),
  },
  {
    id: 'BR-G-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Export outside the EU" the Document level allowance VAT rate (BT-96) shall be 0 (zero).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'G')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-IC-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Intra-community supply" shall contain the Seller VAT Identifier (BT-31) or the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'K')),
    check: (_, inv) => anySellerHasVatId(inv, ['VA']) && buyerHasVatId(inv),
  },
  {
    id: 'BR-IC-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Intra-community supply" the Document level allowance VAT rate (BT-96) shall be 0 (zero).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'K')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-AF-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "IGIC" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'L')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-AF-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "IGIC" the Document level allowance VAT rate (BT-96) shall be 0 (zero) or greater than zero.',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'L')),
    check: (e) => rateIs(e, '>', 0),
  },
  {
    id: 'BR-AG-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "IPSI" shall contain the Seller VAT Identifier (BT-31), the Seller Tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'M')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-AG-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "IPSI" the Document level allowance VAT rate (BT-96) shall be 0 (zero) or greater than zero.',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'M')),
    check: (e) => rateIs(e, '>=', 0),
  },
  {
    id: 'BR-O-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Not subject to VAT" shall not contain the Seller VAT identifier (BT-31), the Seller tax representative VAT identifier (BT-63) or the Buyer VAT identifier (BT-48).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'O')),
    check: (_, inv) => !sellerHasVatId(inv, ['VA']) && !buyerHasVatId(inv),
  },
  {
    id: 'BR-O-06',
    words:
      'A Document level allowance (BG-20) where VAT category code (BT-95) is "Not subject to VAT" shall not contain a Document level allowance VAT rate (BT-96).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'O')),
    check: (e) => !has(e, 'RateApplicablePercent'),
  },
  {
    id: 'BR-S-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Standard rated" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'S')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-S-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Standard rated" the Document level allowance VAT rate (BT-96) shall be greater than zero.',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'S')),
    check: (e) => rateIs(e, '>', 0),
  },
  {
    id: 'BR-Z-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Zero rated" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'Z')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-Z-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Zero rated" the Document level allowance VAT rate (BT-96) shall be 0 (zero).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'false'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'Z')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-AE-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Reverse charge" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48) and/or the Buyer legal registration identifier (BT-47).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'AE')),
    check: (_, inv) => anySellerHasVatId(inv, ['VA', 'FC']) && (buyerHasVatId(inv) || buyerHasLegalId(inv)),
  },
  {
    id: 'BR-AE-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Reverse charge" the Document level charge VAT rate (BT-103) shall be 0 (zero).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'AE')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-E-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Exempt from VAT" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'E')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-E-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Exempt from VAT", the Document level charge VAT rate (BT-103) shall be 0 (zero).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'E')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-G-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Export outside the EU" shall contain the Seller VAT Identifier (BT-31) or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'G')),
    check: (_, inv) => anySellerHasVatId(inv, ['VA']),
  },
  {
    id: 'BR-G-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Export outside the EU" the Document level charge VAT rate (BT-103) shall be 0 (zero).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'G')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-IC-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Intra-community supply" shall contain the Seller VAT Identifier (BT-31) or the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'K')),
    check: (_, inv) => anySellerHasVatId(inv, ['VA']) && buyerHasVatId(inv),
  },
  {
    id: 'BR-IC-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Intra-community supply" the Document level charge VAT rate (BT-103) shall be 0 (zero).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'K')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-AF-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "IGIC" shall contain the Seller VAT Identifier (BT-31), the Seller Tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'L')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-AF-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "IGIC" the Document level charge VAT rate (BT-103) shall be 0 (zero) or greater than zero.',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'L')),
    check: (e) => rateIs(e, '>', 0),
  },
  {
    id: 'BR-AG-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "IPSI" shall contain the Seller VAT Identifier (BT-31), the Seller Tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'M')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-AG-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "IPSI" the Document level charge VAT rate (BT-103) shall be 0 (zero) or greater than zero.',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'M')),
    check: (e) => rateIs(e, '>=', 0),
  },
  {
    id: 'BR-O-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Not subject to VAT" shall not contain the Seller VAT identifier (BT-31), the Seller tax representative VAT identifier (BT-63) or the Buyer VAT identifier (BT-48).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'O')),
    check: (_, inv) => !sellerHasVatId(inv, ['VA']) && !buyerHasVatId(inv),
  },
  {
    id: 'BR-O-07',
    words:
      'A Document level charge (BG-21) where the VAT category code (BT-102) is "Not subject to VAT" shall not contain a Document level charge VAT rate (BT-103).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'O')),
    check: (e) => !has(e, 'RateApplicablePercent'),
  },
  {
    id: 'BR-S-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Standard rated" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'S')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-S-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Standard rated" the Document level charge VAT rate (BT-103) shall be greater than zero.',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'S')),
    check: (e) => rateIs(e, '>', 0),
  },
  {
    id: 'BR-Z-04',
    words:
      'An Invoice that contains a Document level charge where the Document level charge VAT category code (BT-102) is "Zero rated" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'Z')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-Z-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Zero rated" the Document level charge VAT rate (BT-103) shall be 0 (zero).',
    context: (inv) =>
      inv
        .every('SpecifiedTradeAllowanceCharge')
        .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', 'true'))
        .flatMap((ac) => all(ac, 'CategoryTradeTax'))
        .filter((t) => anyIs(t, 'CategoryCode', 'Z')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-AE-08',
    words:
      'In a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Reverse charge" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amounts (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Reverse charge".',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'AE'),
    check: basisWithinOne('AE'),
  },
  {
    id: 'BR-AE-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Reverse charge" shall be 0 (zero).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'AE'),
    check: (e) => amountIsZero(one(e, '../CalculatedAmount')),
  },
  {
    id: 'BR-AE-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) "Reverse charge" shall have a VAT exemption reason code (BT-121), meaning "Reverse charge" or the VAT exemption reason text (BT-120) "Reverse charge" (or the equivalent standard text in another language).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'AE'),
    check: (e) => has(e, '../ExemptionReason') || has(e, '../ExemptionReasonCode'),
  },
  {
    id: 'BR-E-08',
    words:
      'In a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Exempt from VAT" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amounts (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Exempt from VAT".',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'E'),
    check: basisWithinOne('E'),
  },
  {
    id: 'BR-E-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where the VAT category code (BT-118) equals "Exempt from VAT" shall equal 0 (zero).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'E'),
    check: (e) => amountIsZero(one(e, '../CalculatedAmount')),
  },
  {
    id: 'BR-E-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) "Exempt from VAT" shall have a VAT exemption reason code (BT-121) or a VAT exemption reason text (BT-120).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'E'),
    check: (e) => has(e, '../ExemptionReason') || has(e, '../ExemptionReasonCode'),
  },
  {
    id: 'BR-G-08',
    words:
      'In a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Export outside the EU" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amounts (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Export outside the EU".',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'G'),
    check: basisWithinOne('G'),
  },
  {
    id: 'BR-G-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Export outside the EU" shall be 0 (zero).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'G'),
    check: (e) => amountIsZero(one(e, '../CalculatedAmount')),
  },
  {
    id: 'BR-G-10',
    words:
      'A VAT Breakdown (BG-23) with the VAT Category code (BT-118) "Export outside the EU" shall have a VAT exemption reason code (BT-121), meaning "Export outside the EU" or the VAT exemption reason text (BT-120) "Export outside the EU" (or the equivalent standard text in another language).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'G'),
    check: (e) => has(e, '../ExemptionReason') || has(e, '../ExemptionReasonCode'),
  },
  {
    id: 'BR-IC-08',
    words:
      'In a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Intra-community supply" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amounts (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Intra-community supply".',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'K'),
    check: basisWithinOne('K'),
  },
  {
    id: 'BR-IC-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Intra-community supply" shall be 0 (zero).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'K'),
    check: (e) => amountIsZero(one(e, '../CalculatedAmount')),
  },
  {
    id: 'BR-IC-10',
    words:
      'A VAT Breakdown (BG-23) with the VAT Category code (BT-118) "Intra-community supply" shall have a VAT exemption reason code (BT-121), meaning "Intra-community supply" or the VAT exemption reason text (BT-120) "Intra-community supply" (or the equivalent standard text in another language).',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'K'),
    check: (e) => has(e, '../ExemptionReason') || has(e, '../ExemptionReasonCode'),
  },
  {
    id: 'BR-IC-11',
    words:
      'In an Invoice with a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Intra-community supply" the Actual delivery date (BT-72) or the Invoicing period (BG-14) shall not be blank.',
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'K'),
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
    context: (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === 'K'),
    check: (_, inv) =>
      has(inv.root, 'SupplyChainTradeTransaction/ApplicableHeaderTradeDelivery/ShipToTradeParty/PostalTradeAddress/CountryID'),
  },
  {
    id: 'BR-AF-08',
    words:
      'For each different value of VAT category rate (BT-119) where the VAT category code (BT-118) is "IGIC", the VAT category taxable amount (BT-116) in a VAT breakdown (BG-23) shall equal the sum of Invoice line net amounts (BT-131) plus the sum of document level charge amounts (BT-99) minus the sum of document level allowance amounts (BT-92) where the VAT category code (BT-151, BT-102, BT-95) is "IGIC" and the VAT rate (BT-152, BT-103, BT-96) equals the VAT category rate (BT-119).',
    context: (inv) =>
      at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax').filter((t) =>
        anyIs(t, 'CategoryCode', 'L'),
      ),
    check: basisPerRate('L', (t) => t.parent ?? undefined),
  },
  {
    id: 'BR-AF-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where VAT category code (BT-118) is "IGIC" shall equal the VAT category taxable amount (BT-116) multiplied by the VAT category rate (BT-119).',
    context: (inv) =>
      at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax').filter((t) =>
        anyIs(t, 'CategoryCode', 'L'),
      ),
    check: () => true /* the Schematron asserts true() */,
  },
  {
    id: 'BR-AF-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) "IGIC" shall not have a VAT exemption reason code (BT-121) or VAT exemption reason text (BT-120).',
    context: (inv) =>
      at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax').filter((t) =>
        anyIs(t, 'CategoryCode', 'L'),
      ),
    check: (e) => !has(e, 'ExemptionReason') && !has(e, 'ExemptionReasonCode'),
  },
  {
    id: 'BR-AG-08',
    words:
      'For each different value of VAT category rate (BT-119) where the VAT category code (BT-118) is "IPSI", the VAT category taxable amount (BT-116) in a VAT breakdown (BG-23) shall equal the sum of Invoice line net amounts (BT-131) plus the sum of document level charge amounts (BT-99) minus the sum of document level allowance amounts (BT-92) where the VAT category code (BT-151, BT-102, BT-95) is "IPSI" and the VAT rate (BT-152, BT-103, BT-96) equals the VAT category rate (BT-119).',
    context: (inv) =>
      at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax').filter((t) =>
        anyIs(t, 'CategoryCode', 'M'),
      ),
    check: basisPerRate('M', (t) => t.parent ?? undefined),
  },
  {
    id: 'BR-AG-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where VAT category code (BT-118) is "IPSI" shall equal the VAT category taxable amount (BT-116) multiplied by the VAT category rate (BT-119).',
    context: (inv) =>
      at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax').filter((t) =>
        anyIs(t, 'CategoryCode', 'M'),
      ),
    check: () => true /* the Schematron asserts true() */,
  },
  {
    id: 'BR-AG-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) "IPSI" shall not have a VAT exemption reason code (BT-121) or VAT exemption reason text (BT-120).',
    context: (inv) =>
      at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax').filter((t) =>
        anyIs(t, 'CategoryCode', 'M'),
      ),
    check: (e) => !has(e, 'ExemptionReason') && !has(e, 'ExemptionReasonCode'),
  },
  {
    id: 'BR-O-08',
    words:
      'In a VAT breakdown (BG-23) where the VAT category code (BT-118) is " Not subject to VAT" the VAT category taxable amount (BT-116) shall equal the sum of Invoice line net amounts (BT-131) minus the sum of Document level allowance amounts (BT-92) plus the sum of Document level charge amounts (BT-99) where the VAT category codes (BT-151, BT-95, BT-102) are "Not subject to VAT".',
    context: (inv) =>
      at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax').filter((t) =>
        anyIs(t, 'CategoryCode', 'O'),
      ),
    check: basisExact('O'),
  },
  {
    id: 'BR-O-09',
    words:
      'The VAT category tax amount (BT-117) in a VAT breakdown (BG-23) where the VAT category code (BT-118) is "Not subject to VAT" shall be 0 (zero).',
    context: (inv) =>
      at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax').filter((t) =>
        anyIs(t, 'CategoryCode', 'O'),
      ),
    check: (e) => amountIsZero(one(e, 'CalculatedAmount')),
  },
  {
    id: 'BR-O-10',
    words:
      'A VAT Breakdown (BG-23) with VAT Category code (BT-118) " Not subject to VAT" shall have a VAT exemption reason code (BT-121), meaning " Not subject to VAT" or a VAT exemption reason text (BT-120) " Not subject to VAT" (or the equivalent standard text in another language).',
    context: (inv) =>
      at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax').filter((t) =>
        anyIs(t, 'CategoryCode', 'O'),
      ),
    check: (e) => has(e, 'ExemptionReason') || has(e, 'ExemptionReasonCode'),
  },
  {
    id: 'BR-O-11',
    words:
      'An Invoice that contains a VAT breakdown group (BG-23) with a VAT category code (BT-118) "Not subject to VAT" shall not contain other VAT breakdown groups (BG-23).',
    context: (inv) =>
      at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax').filter((t) =>
        anyIs(t, 'CategoryCode', 'O'),
      ),
    check: (_, inv) => !inv.every('ApplicableTradeTax').some((t) => all(t, 'CategoryCode').some((c) => str(c) !== 'O')),
  },
  {
    id: 'BR-O-12',
    words:
      'An Invoice that contains a VAT breakdown group (BG-23) with a VAT category code (BT-118) "Not subject to VAT" shall not contain an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is not "Not subject to VAT".',
    context: (inv) =>
      at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax').filter((t) =>
        anyIs(t, 'CategoryCode', 'O'),
      ),
    check: (_, inv) => !inv.every('ApplicableTradeTax').some((t) => all(t, 'CategoryCode').some((c) => str(c) !== 'O')),
  },
  {
    id: 'BR-O-13',
    words:
      'An Invoice that contains a VAT breakdown group (BG-23) with a VAT category code (BT-118) "Not subject to VAT" shall not contain Document level allowances (BG-20) where Document level allowance VAT category code (BT-95) is not "Not subject to VAT".',
    context: (inv) =>
      at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax').filter((t) =>
        anyIs(t, 'CategoryCode', 'O'),
      ),
    check: (_, inv) => !inv.every('CategoryTradeTax').some((t) => all(t, 'CategoryCode').some((c) => str(c) !== 'O')),
  },
  {
    id: 'BR-O-14',
    words:
      'An Invoice that contains a VAT breakdown group (BG-23) with a VAT category code (BT-118) "Not subject to VAT" shall not contain Document level charges (BG-21) where Document level charge VAT category code (BT-102) is not "Not subject to VAT".',
    context: (inv) =>
      at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax').filter((t) =>
        anyIs(t, 'CategoryCode', 'O'),
      ),
    check: (_, inv) => !inv.every('CategoryTradeTax').some((t) => all(t, 'CategoryCode').some((c) => str(c) !== 'O')),
  },
  {
    id: 'BR-AE-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Reverse charge" shall contain the Seller VAT Identifier (BT-31), the Seller Tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48) and/or the Buyer legal registration identifier (BT-47).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'AE')),
    check: (_, inv) => anySellerHasVatId(inv, ['VA', 'FC']) && (buyerHasVatId(inv) || buyerHasLegalId(inv)),
  },
  {
    id: 'BR-AE-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Reverse charge" the Invoiced item VAT rate (BT-152) shall be 0 (zero).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'AE')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-E-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Exempt from VAT" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'E')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-E-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Exempt from VAT", the Invoiced item VAT rate (BT-152) shall be 0 (zero).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'E')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-G-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Export outside the EU" shall contain the Seller VAT Identifier (BT-31) or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'G')),
    check: (_, inv) => anySellerHasVatId(inv, ['VA']),
  },
  {
    id: 'BR-G-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Export outside the EU" the Invoiced item VAT rate (BT-152) shall be 0 (zero).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'G')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-IC-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Intra-community supply" shall contain the Seller VAT Identifier (BT-31) or the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'K')),
    check: (_, inv) => anySellerHasVatId(inv, ['VA']) && buyerHasVatId(inv),
  },
  {
    id: 'BR-IC-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Intracommunity supply" the Invoiced item VAT rate (BT-152) shall be 0 (zero).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'K')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-AF-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "IGIC" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'L')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-AF-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "IGIC" the invoiced item VAT rate (BT-152) shall be greater than 0 (zero).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'L')),
    check: (e) => rateIs(e, '>', 0),
  },
  {
    id: 'BR-AG-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "IPSI" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'M')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-AG-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "IPSI" the Invoiced item VAT rate (BT-152) shall be 0 (zero) or greater than zero.',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'M')),
    check: (e) => rateIs(e, '>=', 0),
  },
  {
    id: 'BR-O-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Not subject to VAT" shall not contain the Seller VAT identifier (BT-31), the Seller tax representative VAT identifier (BT-63) or the Buyer VAT identifier (BT-46).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'O')),
    check: (_, inv) => !sellerHasVatId(inv, ['VA']) && !buyerHasVatId(inv),
  },
  {
    id: 'BR-O-05',
    words:
      'An Invoice line (BG-25) where the VAT category code (BT-151) is "Not subject to VAT" shall not contain an Invoiced item VAT rate (BT-152).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'O')),
    check: (e) => !has(e, 'RateApplicablePercent'),
  },
  {
    id: 'BR-S-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Standard rated" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'S')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-S-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Standard rated" the Invoiced item VAT rate (BT-152) shall be greater than zero.',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'S')),
    check: (e) => rateIs(e, '>', 0),
  },
  {
    id: 'BR-Z-02',
    words:
      'An Invoice that contains an Invoice line where the Invoiced item VAT category code (BT-151) is "Zero rated" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'Z')),
    check: (_, inv) => sellerHasVatId(inv, ['VA', 'FC']),
  },
  {
    id: 'BR-Z-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Zero rated" the Invoiced item VAT rate (BT-152) shall be 0 (zero).',
    context: (inv) =>
      at(
        inv,
        'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax',
      ).filter((t) => anyIs(t, 'CategoryCode', 'Z')),
    check: (e) => rateIs(e, '=', 0),
  },
  {
    id: 'BR-S-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "Standard rated" shall contain in the VAT breakdown (BG-23) at least one VAT category code (BT-118) equal with "Standard rated".',
    context: (inv) => [inv.root],
    check: (_, inv) => atLeastTwo(inv, 'S'),
  },
  {
    id: 'BR-Z-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "Zero rated" shall contain in the VAT breakdown (BG-23) exactly one VAT category code (BT-118) equal with "Zero rated".',
    context: (inv) => [inv.root],
    check: (_, inv) => oneBreakdown(inv, 'Z', false),
  },
  {
    id: 'BR-E-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is “Exempt from VAT” shall contain exactly one VAT breakdown (BG-23) with the VAT category code (BT-118) equal to "Exempt from VAT".',
    context: (inv) => [inv.root],
    check: (_, inv) => oneBreakdown(inv, 'E', false),
  },
  {
    id: 'BR-AE-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "Reverse charge" shall contain in the VAT breakdown (BG-23) exactly one VAT category code (BT-118) equal with "VAT reverse charge".',
    context: (inv) => [inv.root],
    check: (_, inv) => oneBreakdown(inv, 'AE', false),
  },
  {
    id: 'BR-IC-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "Intra-community supply" shall contain in the VAT breakdown (BG-23) exactly one VAT category code (BT-118) equal with "Intra-community supply".',
    context: (inv) => [inv.root],
    check: (_, inv) => oneBreakdown(inv, 'K', false),
  },
  {
    id: 'BR-G-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "Export outside the EU" shall contain in the VAT breakdown (BG-23) exactly one VAT category code (BT-118) equal with "Export outside the EU".',
    context: (inv) => [inv.root],
    check: (_, inv) => oneBreakdown(inv, 'G', false),
  },
  {
    id: 'BR-O-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "Not subject to VAT" shall contain exactly one VAT breakdown group (BG-23) with the VAT category code (BT-118) equal to "Not subject to VAT".',
    context: (inv) => [inv.root],
    check: (_, inv) => oneBreakdown(inv, 'O', true),
  },
  {
    id: 'BR-AF-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "IGIC" shall contain in the VAT breakdown (BG-23) at least one VAT category code (BT-118) equal with "IGIC".',
    context: (inv) => [inv.root],
    check: (_, inv) => atLeastTwo(inv, 'L'),
  },
  {
    id: 'BR-AG-01',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is "IPSI" shall contain in the VAT breakdown (BG-23) at least one VAT category code (BT-118) equal with "IPSI".',
    context: (inv) => [inv.root],
    check: (_, inv) => atLeastTwo(inv, 'M'),
  },
  {
    id: 'BR-B-01',
    words:
      'An Invoice where the VAT category code (BT-151, BT-95 or BT-102) is “Split payment” shall be a domestic Italian invoice.',
    context: (inv) => [inv.root],
    check: (_, inv) => !categoryUsed(inv, 'B') || !inv.every('CountryID').some((c) => str(c) !== 'IT'),
  },
  {
    id: 'BR-B-02',
    words:
      'An Invoice that contains an Invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is “Split payment" shall not contain an invoice line (BG-25), a Document level allowance (BG-20) or a Document level charge (BG-21) where the VAT category code (BT-151, BT-95 or BT-102) is “Standard rated”.',
    context: (inv) => [inv.root],
    check: (_, inv) => !categoryUsed(inv, 'B') || !categoryUsed(inv, 'S'),
  },
];
