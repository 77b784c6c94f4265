/**
 * The checks of the EN 16931 rules that take more than one line: the sums of the totals (BR-CO-10 to
 * -16), VAT amounts (BR-CO-17, BR-S-09), and the few rules that compare parties or count breakdowns.
 * Each computes exactly what the published Schematron computes, including its rounding to cents.
 */
import { all, anyIs, type El, has, str } from './cii-tree.js';
import { abs, add, cents, cmp, type Dec, dec, fromDouble, int, mul, round, roundDouble, show, sub } from './decimal.js';
import { at, held, type Invoice, isVat, num, type Verdict } from './invoice.js';
import { categoryBasis } from './vat-categories.js';

const SETTLEMENT = 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement';

function eq(a: Dec | null, b: Dec | null): boolean {
  return a !== null && b !== null && cmp(a, b) === 0;
}

/** The document level allowances (charge false) or charges (true), as `[ChargeIndicator/Indicator = …]`. */
function documentLevel(inv: Invoice, charge: boolean): El[] {
  return at(inv, `${SETTLEMENT}/SpecifiedTradeAllowanceCharge`).filter((ac) =>
    all(ac, 'ChargeIndicator/Indicator').some((i) => str(i) === String(charge)),
  );
}

/**
 * Where the Schematron sums amounts without casting them to xs:decimal (BR-CO-10, -11, -12, -14), XPath
 * adds them as doubles; with more than two decimals the double's error can decide the rounding, so these
 * rules add doubles too, in document order, to name the same failures.
 */
function doubles(els: El[]): number {
  let total = 0;
  for (const e of els) total += toDouble(str(e));
  return total;
}

/** An untyped value cast to xs:double ('' and anything not a number are NaN, which equals nothing). */
function toDouble(text: string): number {
  const t = text.trim();
  return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : Number.NaN;
}

/** `round(x * 10 * 10) div 100` on doubles. */
function centsD(x: number): number {
  return roundDouble(x * 10 * 10) / 100;
}

/** The checks on the document totals (BG-22), by rule id. */
export const totals: Record<string, (sum: El, inv: Invoice) => Verdict> = {
  'BR-CO-10': (s) => {
    // xs:decimal(sum(untyped amounts)): a sum of doubles, then cast exactly to a decimal
    const sumD = doubles(
      all(
        s,
        '../../IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement/SpecifiedTradeSettlementLineMonetarySummation/LineTotalAmount',
      ),
    );
    const exact = fromDouble(sumD);
    const lines = exact === null ? null : cents(exact);
    const total = num(s, 'LineTotalAmount');
    return held(eq(total, lines), () => `BT-106 ${show(total)} ≠ Σ BT-131 ${show(lines)}`);
  },
  'BR-CO-11': (s, inv) => {
    const allowances = documentLevel(inv, false);
    if (allowances.length === 0 && !has(s, 'AllowanceTotalAmount')) return true;
    const expected = centsD(doubles(allowances.flatMap((e) => all(e, 'ActualAmount'))));
    return held(
      all(s, 'AllowanceTotalAmount').some((a) => toDouble(str(a)) === expected),
      () => `BT-107 ${show(num(s, 'AllowanceTotalAmount'))} ≠ Σ BT-92 ${expected.toFixed(2)}`,
    );
  },
  'BR-CO-12': (s, inv) => {
    const charges = documentLevel(inv, true);
    if (charges.length === 0 && !has(s, 'ChargeTotalAmount')) return true;
    const logistics = centsD(doubles(at(inv, `${SETTLEMENT}/SpecifiedLogisticsServiceCharge/AppliedAmount`)));
    const expected = centsD(centsD(doubles(charges.flatMap((e) => all(e, 'ActualAmount')))) + logistics);
    const given = at(inv, `${SETTLEMENT}/SpecifiedTradeSettlementHeaderMonetarySummation/ChargeTotalAmount`);
    return held(
      given.some((c) => centsD(toDouble(str(c))) === expected),
      () => `BT-108 ${show(num(s, 'ChargeTotalAmount'))} ≠ Σ BT-99 ${expected.toFixed(2)}`,
    );
  },
  'BR-CO-13': (s) => {
    const basis = num(s, 'TaxBasisTotalAmount');
    const lines = num(s, 'LineTotalAmount');
    const allowances = num(s, 'AllowanceTotalAmount');
    const charges = num(s, 'ChargeTotalAmount');
    // A total that is present but no number makes XPath's sum empty, and the rule fails, as here.
    if (
      lines === null ||
      (has(s, 'AllowanceTotalAmount') && allowances === null) ||
      (has(s, 'ChargeTotalAmount') && charges === null)
    ) {
      return `BT-109 ${show(basis)}: BT-106 ${show(lines)}, BT-107 ${show(allowances)}, BT-108 ${show(charges)}`;
    }
    const expected = cents(add(sub(lines, allowances ?? int(0)), charges ?? int(0)));
    return held(
      eq(basis, expected),
      () =>
        `BT-109 ${show(basis)} ≠ BT-106 ${show(lines)} − BT-107 ${show(allowances ?? int(0))} + BT-108 ${show(charges ?? int(0))}`,
    );
  },
  'BR-CO-15': (_s, inv) => {
    // The Schematron reads the totals by their absolute path, the first of each
    const sums = at(inv, `${SETTLEMENT}/SpecifiedTradeSettlementHeaderMonetarySummation`);
    const grand = num(sums.flatMap((x) => all(x, 'GrandTotalAmount'))[0]);
    const basis = num(sums.flatMap((x) => all(x, 'TaxBasisTotalAmount'))[0]);
    for (const currency of at(inv, `${SETTLEMENT}/InvoiceCurrencyCode`).map(str)) {
      const vats = at(inv, `${SETTLEMENT}/SpecifiedTradeSettlementHeaderMonetarySummation/TaxTotalAmount`).filter(
        (t) => t.attrs.currencyID === currency,
      );
      const vat = vats[0] ? dec(str(vats[0])) : null;
      const withVat = vats.length === 1 && basis !== null && vat !== null && eq(grand, cents(add(basis, vat)));
      if (!withVat && !eq(grand, basis)) {
        return `BT-112 ${show(grand)} ≠ BT-109 ${show(basis)} + BT-110 ${show(vat)}${vats.length > 1 ? ` (${vats.length} VAT totals in ${currency})` : ''}`;
      }
    }
    return true;
  },
  'BR-CO-16': (s) => {
    const due = num(s, 'DuePayableAmount');
    const grand = num(s, 'GrandTotalAmount');
    const prepaid = num(s, 'TotalPrepaidAmount');
    const rounding = num(s, 'RoundingAmount');
    const bad =
      grand === null || (has(s, 'TotalPrepaidAmount') && prepaid === null) || (has(s, 'RoundingAmount') && rounding === null);
    const expected = bad ? null : add(sub(grand, prepaid ?? int(0)), rounding ?? int(0));
    return held(
      eq(due, expected),
      () =>
        `BT-115 ${show(due)} ≠ BT-112 ${show(grand)} − BT-113 ${show(prepaid ?? int(0))} + BT-114 ${show(rounding ?? int(0))}`,
    );
  },
  'BR-CO-14': (t, inv) => {
    const expected = centsD(doubles(at(inv, `${SETTLEMENT}/ApplicableTradeTax/CalculatedAmount`)));
    return held(toDouble(str(t)) === expected, () => `BT-110 ${show(dec(str(t)))} ≠ Σ BT-117 ${expected.toFixed(2)}`);
  },
  'BR-DEC-13': (s, inv) => currencyTotalInCents(s, inv, 'InvoiceCurrencyCode'),
  'BR-DEC-15': (s, inv) => currencyTotalInCents(s, inv, 'TaxCurrencyCode'),
  'BR-53': (s, inv) => {
    const taxCurrency = at(inv, `${SETTLEMENT}/TaxCurrencyCode`).map(str);
    if (taxCurrency.length === 0) return true;
    const invoiceCurrency = at(inv, `${SETTLEMENT}/InvoiceCurrencyCode`).map(str);
    return (
      all(s, 'TaxTotalAmount').some((t) => taxCurrency.includes(t.attrs.currencyID ?? '\u0000')) &&
      !taxCurrency.some((c) => invoiceCurrency.includes(c))
    );
  },
};

/** BR-DEC-13/15: some VAT total in that currency has at most two decimals (or the currency is absent). */
function currencyTotalInCents(s: El, inv: Invoice, which: 'InvoiceCurrencyCode' | 'TaxCurrencyCode'): Verdict {
  const vats = all(s, 'TaxTotalAmount');
  if (vats.length === 0) return true;
  const currencies = at(inv, `${SETTLEMENT}/${which}`).map(str);
  if (which === 'TaxCurrencyCode' && currencies.length === 0) return true;
  return vats.some((t) => {
    const inCurrency = currencies.includes(t.attrs.currencyID ?? '\u0000');
    if (!inCurrency) return which === 'InvoiceCurrencyCode';
    const v = dec(str(t));
    return v !== null && eq(v, cents(v));
  });
}

/** BR-CO-17: the VAT of a breakdown is its taxable amount × rate, rounded to cents, within ±1. */
export function taxAmountOfRate(tax: El): Verdict {
  const rate = isVat(tax) ? num(tax, 'RateApplicablePercent') : null;
  const calculated = num(tax, 'CalculatedAmount');
  const basis = num(tax, 'BasisAmount');
  const zero = int(0);
  if (rate !== null && eq(round(rate), zero)) {
    if (calculated !== null && eq(round(calculated), zero)) return true;
  } else if (rate !== null && calculated !== null && basis !== null) {
    const expected = cents(mul(abs(basis), mul(rate, { v: 1n, s: 2 })));
    if (cmp(sub(abs(calculated), int(1)), expected) <= 0 && cmp(add(abs(calculated), int(1)), expected) >= 0) return true;
  } else if (rate === null) {
    if (calculated !== null && eq(round(calculated), zero)) return true;
  }
  return `BT-117 ${show(calculated)}, BT-116 ${show(basis)} × BT-119 ${show(rate)} %`;
}

/** BR-S-09: the standard rated VAT is the taxable amount × rate, within ±1 (strictly). */
export function vatWithinOne(code: El): Verdict {
  const tax = code.parent ?? undefined;
  const calculated = num(tax, 'CalculatedAmount');
  const basis = num(tax, 'BasisAmount');
  const rate = num(tax, 'RateApplicablePercent');
  if (calculated !== null && basis !== null && rate !== null) {
    const expected = { ...round(mul(abs(basis), rate)), s: 2 };
    if (cmp(sub(abs(calculated), int(1)), expected) < 0 && cmp(add(abs(calculated), int(1)), expected) > 0) return true;
  }
  return `BT-117 ${show(calculated)} ≠ BT-116 ${show(basis)} × BT-119 ${show(rate)} %`;
}

/** BR-O-08: the taxable amount of "not subject to VAT" is the category's sum, exactly. */
export function basisExact(code: string) {
  return (tax: El, inv: Invoice): Verdict => {
    const { total, words } = categoryBasis(inv, code);
    const bases = all(tax, 'BasisAmount').map((b) => dec(str(b)));
    return held(
      bases.some((b) => eq(b, total)),
      () => `BT-116 ${show(bases[0] ?? null)} ≠ ${words} = ${show(total)}`,
    );
  };
}

/** `x = 0` for an amount (false when absent). */
export function amountIsZero(el: El | undefined): Verdict {
  const v = el ? dec(str(el)) : null;
  return held(eq(v, int(0)), () => `BT-117 ${show(v)} ≠ 0`);
}

/** `ram:RateApplicablePercent op n`, false when there is no rate. */
export function rateIs(tax: El, op: '>' | '=' | '>=', n: number): Verdict {
  const rate = num(tax, 'RateApplicablePercent');
  const c = rate === null ? null : cmp(rate, int(n));
  const ok = c !== null && (op === '>' ? c > 0 : op === '=' ? c === 0 : c >= 0);
  return held(ok, () => `rate ${show(rate)} %`);
}

/** BR-27, BR-28: a price is not negative (and a missing one fails, as `x >= 0` over nothing does). */
export function notNegative(prices: El[], term: string): Verdict {
  const v = prices[0] ? dec(str(prices[0])) : null;
  return held(
    prices.some((p) => {
      const d = dec(str(p));
      return d !== null && cmp(d, int(0)) >= 0;
    }),
    () => `${term} ${show(v)}`,
  );
}

/** BR-29, BR-30: the end date is not before the start (dates in format 102 compared as text, as XPath does). */
export function periodInOrder(period: El): boolean {
  const dates = (path: string) =>
    all(period, path)
      .filter((d) => d.attrs.format === '102')
      .map(str);
  if (!has(period, 'EndDateTime') || !has(period, 'StartDateTime')) return true;
  const ends = dates('EndDateTime/DateTimeString');
  const starts = dates('StartDateTime/DateTimeString');
  return ends.some((e) => starts.some((s) => e >= s));
}

/** BR-17: a payee has a name and is not the seller by name or identifier. */
export function payeeDiffers(payee: El): boolean {
  const seller = payee.parent ? all(payee.parent, 'SellerTradeParty') : [];
  const same = (path: string) => all(payee, path).some((p) => seller.some((s) => all(s, path).some((x) => str(x) === str(p))));
  return has(payee, 'Name') && !same('Name') && !same('ID') && !same('SpecifiedLegalOrganization/ID');
}

/** BR-62, BR-63: the party's first electronic address has a scheme. */
export function uriHasScheme(root: El, party: string): boolean {
  const uris = all(root, `${party}/URIUniversalCommunication`);
  if (uris.length === 0) return true;
  const first = uris[0];
  return all(first, 'URIID').some((u) => (u.attrs.schemeID ?? '').trim() !== '');
}

/** The categories the Schematron's BR-x-01 rules count: line, header and allowance/charge VAT. */
function counts(inv: Invoice, code: string) {
  const of = (list: El[]) => list.filter((t) => anyIs(t, 'CategoryCode', code)).length;
  return {
    lines: of(inv.every('SpecifiedLineTradeSettlement').flatMap((s) => all(s, 'ApplicableTradeTax'))),
    header: of(inv.every('ApplicableHeaderTradeSettlement').flatMap((s) => all(s, 'ApplicableTradeTax'))),
    allowances: of(inv.every('CategoryTradeTax')),
  };
}

/** BR-S-01, BR-AF-01, BR-AG-01: lines or allowances of the category come with a breakdown of it. */
export function atLeastTwo(inv: Invoice, code: string): Verdict {
  const c = counts(inv, code);
  return (c.lines + c.header >= 2 || c.lines === 0) && (c.allowances + c.header >= 2 || c.allowances === 0);
}

/** BR-Z-01 … BR-O-01: the category has exactly one breakdown when lines or allowances use it. */
export function oneBreakdown(inv: Invoice, code: string, onlyHeader: boolean): Verdict {
  const c = counts(inv, code);
  const used = c.header === 1 && (c.lines > 0 || c.allowances > 0);
  if (onlyHeader) return c.header === 0 || used;
  return (c.header === 0 && c.lines === 0 && c.allowances === 0) || used;
}

/** XPath's `//ram:CategoryCode = 'x'`. */
export function categoryUsed(inv: Invoice, code: string): boolean {
  return inv.every('CategoryCode').some((c) => str(c) === code);
}

/** BR-CO-09: a VAT identifier starts with a country code (ISO 3166-1 alpha-2, or EL for Greece). */
export function vatIdPrefix(id: El): Verdict {
  const prefix = ` ${str(id).slice(0, 2)} `;
  return held(VAT_PREFIXES.includes(prefix), () => `BT-31/48/63 "${str(id).slice(0, 40)}"`);
}

const VAT_PREFIXES =
  ' 1A AD AE AF AG AI AL AM AN AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BL BJ BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH EL ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XI YE YT ZA ZM ZW ';
