/**
 * The named contexts and checks the EN 16931 rule tables share: the Schematron writes the same
 * context or test out again in many asserts, the table names it once.
 */
import { all, anyIs, filled, has, one } from './cii-tree.js';
import { at, type Check, type Context, desc, isVat, twoDecimals } from './invoice.js';

/** The root element: the context of the rules on the invoice as a whole. */
export const wholeInvoice: Context = (inv) => [inv.root];

/** XPath's `//name`: every element of that local name. */
export function anywhere(name: string): Context {
  return (inv) => inv.every(name);
}

/** XPath's `//A/B/C`: from every A anywhere, the child steps B/C. */
export function under(path: string): Context {
  return (inv) => desc(inv, path);
}

/** The VAT breakdowns (BG-23), by `//ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax`. */
export const vatBreakdowns = under('ApplicableHeaderTradeSettlement/ApplicableTradeTax');

/** The document totals (BG-22), anywhere. */
export const documentTotals = anywhere('SpecifiedTradeSettlementHeaderMonetarySummation');

/** The invoice lines (BG-25), anywhere. */
export const invoiceLines = anywhere('IncludedSupplyChainTradeLineItem');

/** An absolute path below the root element (`/rsm:CrossIndustryInvoice/…`). */
export function fromRoot(path: string): Context {
  return (inv) => at(inv, path);
}

/** The `ChargeIndicator` of every allowance (charge false) or charge (true) of a settlement, by `//settlement/…`. */
function indicators(settlement: string, charge: 'true' | 'false'): Context {
  return (inv) =>
    desc(inv, `${settlement}/SpecifiedTradeAllowanceCharge/ChargeIndicator`).filter((c) => anyIs(c, 'Indicator', charge));
}

/** Document level allowances (BG-20), by their `ChargeIndicator`. */
export const documentAllowances = indicators('ApplicableHeaderTradeSettlement', 'false');

/** Document level charges (BG-21), by their `ChargeIndicator`. */
export const documentCharges = indicators('ApplicableHeaderTradeSettlement', 'true');

/** Invoice line allowances (BG-27), by their `ChargeIndicator`. */
export const lineAllowances = indicators('SpecifiedLineTradeSettlement', 'false');

/** Invoice line charges (BG-28), by their `ChargeIndicator`. */
export const lineCharges = indicators('SpecifiedLineTradeSettlement', 'true');

/** The payee's accounts of credit transfers (payment means 30 or 58). */
export const creditTransferAccounts: Context = (inv) =>
  inv
    .every('SpecifiedTradeSettlementPaymentMeans')
    .filter((p) => anyIs(p, 'TypeCode', '30', '58'))
    .flatMap((p) => all(p, 'PayeePartyCreditorFinancialAccount'));

/** Some element at `path`. */
export function present(path: string): Check {
  return (e) => has(e, path);
}

/** Some element at `path` with a value (XPath's `path != ''`). */
export function nonEmpty(path: string): Check {
  return (e) => filled(e, path);
}

/** The first element at `path` has at most two decimals (or there is none). */
export function twoDecimalsAt(path: string): Check {
  return (e) => twoDecimals(one(e, path));
}

/** An allowance or charge, from its indicator: a reason or a reason code. */
export const hasReason: Check = (e) => has(e, '../Reason') || has(e, '../ReasonCode');

/** An allowance or charge, from its indicator: a VAT category code of type VAT. */
export const hasVatCategory: Check = (e) => all(e, '../CategoryTradeTax').some((t) => isVat(t) && has(t, 'CategoryCode'));

/** A period has a start or an end date. */
export const periodHasDate: Check = (e) => has(e, 'StartDateTime') || has(e, 'EndDateTime');

/** A test the Schematron publishes as `true()`. */
export const alwaysHolds: Check = () => true;

/** BR-CO-05 to -08: the Schematron asserts true(), as no machine check can tell two reasons mean the same. */
export const reasonsAgree: Check = alwaysHolds;
