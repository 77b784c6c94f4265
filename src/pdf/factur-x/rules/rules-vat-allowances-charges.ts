/**
 * The EN 16931 rules on the document level allowances (BG-20) and charges (BG-21) of each VAT
 * category: the identifiers the parties need, and the rate.
 * Each entry is one assert of the published Factur-X 1.09 EN 16931 Schematron: its id, its words as
 * published, the elements it applies to (the Schematron rule's context) and the check (its test).
 */
import type { Rule } from './invoice.js';
import {
  allowancesOf,
  chargesOf,
  noRate,
  noVatIds,
  rateAboveZero,
  rateIsZero,
  rateNotNegative,
  reverseChargeIds,
  sellerAndBuyerVatIds,
  sellerVatId,
  sellerVatOrTaxId,
} from './vat-selectors.js';

/** The rules on document level allowances, in the Schematron's order. */
export const ALLOWANCE_RULES: readonly Rule[] = [
  {
    id: 'BR-AE-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Reverse charge" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48) and/or the Buyer legal registration identifier (BT-47).',
    context: allowancesOf('AE'),
    check: reverseChargeIds,
  },
  {
    id: 'BR-AE-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Reverse charge" the Document level allowance VAT rate (BT-96) shall be 0 (zero).',
    context: allowancesOf('AE'),
    check: rateIsZero,
  },
  {
    id: 'BR-E-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Exempt from VAT" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: allowancesOf('E'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-E-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Exempt from VAT", the Document level allowance VAT rate (BT-96) shall be 0 (zero).',
    context: allowancesOf('E'),
    check: rateIsZero,
  },
  {
    id: 'BR-G-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Export outside the EU" shall contain the Seller VAT Identifier (BT-31) or the Seller tax representative VAT identifier (BT-63).',
    context: allowancesOf('G'),
    check: sellerVatId,
  },
  {
    id: 'BR-G-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Export outside the EU" the Document level allowance VAT rate (BT-96) shall be 0 (zero).',
    context: allowancesOf('G'),
    check: rateIsZero,
  },
  {
    id: 'BR-IC-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Intra-community supply" shall contain the Seller VAT Identifier (BT-31) or the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48).',
    context: allowancesOf('K'),
    check: sellerAndBuyerVatIds,
  },
  {
    id: 'BR-IC-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Intra-community supply" the Document level allowance VAT rate (BT-96) shall be 0 (zero).',
    context: allowancesOf('K'),
    check: rateIsZero,
  },
  {
    id: 'BR-AF-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "IGIC" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: allowancesOf('L'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-AF-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "IGIC" the Document level allowance VAT rate (BT-96) shall be 0 (zero) or greater than zero.',
    context: allowancesOf('L'),
    check: rateAboveZero,
  },
  {
    id: 'BR-AG-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "IPSI" shall contain the Seller VAT Identifier (BT-31), the Seller Tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: allowancesOf('M'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-AG-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "IPSI" the Document level allowance VAT rate (BT-96) shall be 0 (zero) or greater than zero.',
    context: allowancesOf('M'),
    check: rateNotNegative,
  },
  {
    id: 'BR-O-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Not subject to VAT" shall not contain the Seller VAT identifier (BT-31), the Seller tax representative VAT identifier (BT-63) or the Buyer VAT identifier (BT-48).',
    context: allowancesOf('O'),
    check: noVatIds,
  },
  {
    id: 'BR-O-06',
    words:
      'A Document level allowance (BG-20) where VAT category code (BT-95) is "Not subject to VAT" shall not contain a Document level allowance VAT rate (BT-96).',
    context: allowancesOf('O'),
    check: noRate,
  },
  {
    id: 'BR-S-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Standard rated" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: allowancesOf('S'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-S-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Standard rated" the Document level allowance VAT rate (BT-96) shall be greater than zero.',
    context: allowancesOf('S'),
    check: rateAboveZero,
  },
  {
    id: 'BR-Z-03',
    words:
      'An Invoice that contains a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Zero rated" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: allowancesOf('Z'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-Z-06',
    words:
      'In a Document level allowance (BG-20) where the Document level allowance VAT category code (BT-95) is "Zero rated" the Document level allowance VAT rate (BT-96) shall be 0 (zero).',
    context: allowancesOf('Z'),
    check: rateIsZero,
  },
];

/** The rules on document level charges, in the Schematron's order. */
export const CHARGE_RULES: readonly Rule[] = [
  {
    id: 'BR-AE-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Reverse charge" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48) and/or the Buyer legal registration identifier (BT-47).',
    context: chargesOf('AE'),
    check: reverseChargeIds,
  },
  {
    id: 'BR-AE-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Reverse charge" the Document level charge VAT rate (BT-103) shall be 0 (zero).',
    context: chargesOf('AE'),
    check: rateIsZero,
  },
  {
    id: 'BR-E-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Exempt from VAT" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: chargesOf('E'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-E-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Exempt from VAT", the Document level charge VAT rate (BT-103) shall be 0 (zero).',
    context: chargesOf('E'),
    check: rateIsZero,
  },
  {
    id: 'BR-G-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Export outside the EU" shall contain the Seller VAT Identifier (BT-31) or the Seller tax representative VAT identifier (BT-63).',
    context: chargesOf('G'),
    check: sellerVatId,
  },
  {
    id: 'BR-G-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Export outside the EU" the Document level charge VAT rate (BT-103) shall be 0 (zero).',
    context: chargesOf('G'),
    check: rateIsZero,
  },
  {
    id: 'BR-IC-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Intra-community supply" shall contain the Seller VAT Identifier (BT-31) or the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48).',
    context: chargesOf('K'),
    check: sellerAndBuyerVatIds,
  },
  {
    id: 'BR-IC-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Intra-community supply" the Document level charge VAT rate (BT-103) shall be 0 (zero).',
    context: chargesOf('K'),
    check: rateIsZero,
  },
  {
    id: 'BR-AF-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "IGIC" shall contain the Seller VAT Identifier (BT-31), the Seller Tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: chargesOf('L'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-AF-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "IGIC" the Document level charge VAT rate (BT-103) shall be 0 (zero) or greater than zero.',
    context: chargesOf('L'),
    check: rateAboveZero,
  },
  {
    id: 'BR-AG-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "IPSI" shall contain the Seller VAT Identifier (BT-31), the Seller Tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: chargesOf('M'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-AG-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "IPSI" the Document level charge VAT rate (BT-103) shall be 0 (zero) or greater than zero.',
    context: chargesOf('M'),
    check: rateNotNegative,
  },
  {
    id: 'BR-O-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Not subject to VAT" shall not contain the Seller VAT identifier (BT-31), the Seller tax representative VAT identifier (BT-63) or the Buyer VAT identifier (BT-48).',
    context: chargesOf('O'),
    check: noVatIds,
  },
  {
    id: 'BR-O-07',
    words:
      'A Document level charge (BG-21) where the VAT category code (BT-102) is "Not subject to VAT" shall not contain a Document level charge VAT rate (BT-103).',
    context: chargesOf('O'),
    check: noRate,
  },
  {
    id: 'BR-S-04',
    words:
      'An Invoice that contains a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Standard rated" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: chargesOf('S'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-S-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Standard rated" the Document level charge VAT rate (BT-103) shall be greater than zero.',
    context: chargesOf('S'),
    check: rateAboveZero,
  },
  {
    id: 'BR-Z-04',
    words:
      'An Invoice that contains a Document level charge where the Document level charge VAT category code (BT-102) is "Zero rated" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: chargesOf('Z'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-Z-07',
    words:
      'In a Document level charge (BG-21) where the Document level charge VAT category code (BT-102) is "Zero rated" the Document level charge VAT rate (BT-103) shall be 0 (zero).',
    context: chargesOf('Z'),
    check: rateIsZero,
  },
];
