/**
 * The named contexts and checks the VAT category rules (BR-S … BR-AG) share: the Schematron writes
 * the same contexts and tests once per category, the table names them once and passes the category.
 */
import { all, anyIs, type El, has, one, str } from './cii-tree.js';
import { at, type Check, type Context, desc } from './invoice.js';
import { amountIsZero, rateIs } from './rule-checks.js';
import { anySellerHasVatId, buyerHasLegalId, buyerHasVatId, sellerHasVatId } from './vat-categories.js';

const HEADER_TAX = 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/ApplicableTradeTax';
const LINE_TAX = 'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/ApplicableTradeTax';

/** `//ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode[. = code]`: the codes of a category's breakdowns. */
export function breakdownCodesOf(code: string): Context {
  return (inv) => desc(inv, 'ApplicableHeaderTradeSettlement/ApplicableTradeTax/CategoryCode').filter((c) => str(c) === code);
}

/** The header's `ram:ApplicableTradeTax[ram:CategoryCode = code]`: a category's breakdowns (BG-23), by absolute path. */
export function breakdownsOf(code: string): Context {
  return (inv) => at(inv, HEADER_TAX).filter((t) => anyIs(t, 'CategoryCode', code));
}

/** The VAT (`ram:CategoryTradeTax`) of every allowance (charge false) or charge (true) of category `code`. */
function allowanceChargeTaxes(charge: 'true' | 'false', code: string): Context {
  return (inv) =>
    inv
      .every('SpecifiedTradeAllowanceCharge')
      .filter((ac) => anyIs(ac, 'ChargeIndicator/Indicator', charge))
      .flatMap((ac) => all(ac, 'CategoryTradeTax'))
      .filter((t) => anyIs(t, 'CategoryCode', code));
}

/** The VAT of the allowances (BG-20) of category `code`. */
export function allowancesOf(code: string): Context {
  return allowanceChargeTaxes('false', code);
}

/** The VAT of the charges (BG-21) of category `code`. */
export function chargesOf(code: string): Context {
  return allowanceChargeTaxes('true', code);
}

/** The VAT of the invoice lines (BG-25) of category `code`, by absolute path. */
export function linesOf(code: string): Context {
  return (inv) => at(inv, LINE_TAX).filter((t) => anyIs(t, 'CategoryCode', code));
}

/**
 * The breakdown a check reads: the Schematron's breakdown rules take either the breakdown or its
 * category code as context, and the code's tests read the breakdown by `../`.
 */
function breakdownOf(el: El): El | undefined {
  return el.name === 'CategoryCode' ? (el.parent ?? undefined) : el;
}

/** The breakdown has neither a VAT exemption reason (BT-120) nor its code (BT-121). */
export const noExemptionReason: Check = (e) => {
  const tax = breakdownOf(e);
  return !has(tax, 'ExemptionReason') && !has(tax, 'ExemptionReasonCode');
};

/** The breakdown has a VAT exemption reason (BT-120) or its code (BT-121). */
export const hasExemptionReason: Check = (e) => {
  const tax = breakdownOf(e);
  return has(tax, 'ExemptionReason') || has(tax, 'ExemptionReasonCode');
};

/** The breakdown's VAT amount (BT-117) is 0. */
export const vatIsZero: Check = (e) => amountIsZero(one(breakdownOf(e), 'CalculatedAmount'));

/** The rate is 0. */
export const rateIsZero: Check = (e) => rateIs(e, '=', 0);

/** The rate is above 0. */
export const rateAboveZero: Check = (e) => rateIs(e, '>', 0);

/** The rate is 0 or more. */
export const rateNotNegative: Check = (e) => rateIs(e, '>=', 0);

/** There is no rate (category "Not subject to VAT"). */
export const noRate: Check = (e) => !has(e, 'RateApplicablePercent');

/** The seller's VAT or tax registration identifier (BT-31, BT-32) or its tax representative's (BT-63), by the header's path. */
export const sellerVatOrTaxId: Check = (_, inv) => sellerHasVatId(inv, ['VA', 'FC']);

/** Reverse charge: the seller's VAT or tax identifiers (anywhere) and the buyer's VAT or legal identifier. */
export const reverseChargeIds: Check = (_, inv) =>
  anySellerHasVatId(inv, ['VA', 'FC']) && (buyerHasVatId(inv) || buyerHasLegalId(inv));

/** The seller's or its tax representative's VAT identifier (BT-31, BT-63), anywhere. */
export const sellerVatId: Check = (_, inv) => anySellerHasVatId(inv, ['VA']);

/** Intra-community supply: the seller's VAT identifier (anywhere) and the buyer's (BT-48). */
export const sellerAndBuyerVatIds: Check = (_, inv) => anySellerHasVatId(inv, ['VA']) && buyerHasVatId(inv);

/** Not subject to VAT: neither the seller (by the header's path) nor the buyer has a VAT identifier. */
export const noVatIds: Check = (_, inv) => !sellerHasVatId(inv, ['VA']) && !buyerHasVatId(inv);

/** Every `taxName` element anywhere has only category `code`. */
export function onlyCategory(code: string, taxName: 'ApplicableTradeTax' | 'CategoryTradeTax'): Check {
  return (_, inv) => !inv.every(taxName).some((t) => all(t, 'CategoryCode').some((c) => str(c) !== code));
}
