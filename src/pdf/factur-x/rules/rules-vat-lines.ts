/**
 * The EN 16931 rules on the invoice lines (BG-25) of each VAT category: the identifiers the parties
 * need, and the rate.
 * Each entry is one assert of the published Factur-X 1.09 EN 16931 Schematron: its id, its words as
 * published, the elements it applies to (the Schematron rule's context) and the check (its test).
 */
import type { Rule } from './invoice.js';
import {
  linesOf,
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

/** The rules on invoice lines, in the Schematron's order. */
export const LINE_RULES: readonly Rule[] = [
  {
    id: 'BR-AE-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Reverse charge" shall contain the Seller VAT Identifier (BT-31), the Seller Tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48) and/or the Buyer legal registration identifier (BT-47).',
    context: linesOf('AE'),
    check: reverseChargeIds,
  },
  {
    id: 'BR-AE-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Reverse charge" the Invoiced item VAT rate (BT-152) shall be 0 (zero).',
    context: linesOf('AE'),
    check: rateIsZero,
  },
  {
    id: 'BR-E-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Exempt from VAT" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: linesOf('E'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-E-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Exempt from VAT", the Invoiced item VAT rate (BT-152) shall be 0 (zero).',
    context: linesOf('E'),
    check: rateIsZero,
  },
  {
    id: 'BR-G-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Export outside the EU" shall contain the Seller VAT Identifier (BT-31) or the Seller tax representative VAT identifier (BT-63).',
    context: linesOf('G'),
    check: sellerVatId,
  },
  {
    id: 'BR-G-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Export outside the EU" the Invoiced item VAT rate (BT-152) shall be 0 (zero).',
    context: linesOf('G'),
    check: rateIsZero,
  },
  {
    id: 'BR-IC-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Intra-community supply" shall contain the Seller VAT Identifier (BT-31) or the Seller tax representative VAT identifier (BT-63) and the Buyer VAT identifier (BT-48).',
    context: linesOf('K'),
    check: sellerAndBuyerVatIds,
  },
  {
    id: 'BR-IC-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Intracommunity supply" the Invoiced item VAT rate (BT-152) shall be 0 (zero).',
    context: linesOf('K'),
    check: rateIsZero,
  },
  {
    id: 'BR-AF-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "IGIC" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: linesOf('L'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-AF-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "IGIC" the invoiced item VAT rate (BT-152) shall be greater than 0 (zero).',
    context: linesOf('L'),
    check: rateAboveZero,
  },
  {
    id: 'BR-AG-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "IPSI" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: linesOf('M'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-AG-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "IPSI" the Invoiced item VAT rate (BT-152) shall be 0 (zero) or greater than zero.',
    context: linesOf('M'),
    check: rateNotNegative,
  },
  {
    id: 'BR-O-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Not subject to VAT" shall not contain the Seller VAT identifier (BT-31), the Seller tax representative VAT identifier (BT-63) or the Buyer VAT identifier (BT-46).',
    context: linesOf('O'),
    check: noVatIds,
  },
  {
    id: 'BR-O-05',
    words:
      'An Invoice line (BG-25) where the VAT category code (BT-151) is "Not subject to VAT" shall not contain an Invoiced item VAT rate (BT-152).',
    context: linesOf('O'),
    check: noRate,
  },
  {
    id: 'BR-S-02',
    words:
      'An Invoice that contains an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Standard rated" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: linesOf('S'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-S-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Standard rated" the Invoiced item VAT rate (BT-152) shall be greater than zero.',
    context: linesOf('S'),
    check: rateAboveZero,
  },
  {
    id: 'BR-Z-02',
    words:
      'An Invoice that contains an Invoice line where the Invoiced item VAT category code (BT-151) is "Zero rated" shall contain the Seller VAT Identifier (BT-31), the Seller tax registration identifier (BT-32) and/or the Seller tax representative VAT identifier (BT-63).',
    context: linesOf('Z'),
    check: sellerVatOrTaxId,
  },
  {
    id: 'BR-Z-05',
    words:
      'In an Invoice line (BG-25) where the Invoiced item VAT category code (BT-151) is "Zero rated" the Invoiced item VAT rate (BT-152) shall be 0 (zero).',
    context: linesOf('Z'),
    check: rateIsZero,
  },
];
