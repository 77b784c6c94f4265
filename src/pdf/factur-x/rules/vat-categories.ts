/**
 * The parts the VAT category rules (BR-S, BR-Z, BR-E, BR-AE, BR-IC, BR-G, BR-O, BR-AF, BR-AG) share:
 * which parties carry a VAT identifier, and the taxable amount a category's lines, allowances and
 * charges add up to, computed as the Schematron computes it.
 */
import { all, anyIs, type El, str } from './cii-tree.js';
import { add, cmp, type Dec, dec, int, show, sub } from './decimal.js';
import { at, centsOf, desc, held, type Invoice, isCharge, num, type Verdict } from './invoice.js';

const AGREEMENT = 'SupplyChainTradeTransaction/ApplicableHeaderTradeAgreement';

function withScheme(ids: El[], schemes: readonly string[]): boolean {
  return ids.some((id) => schemes.includes(id.attrs.schemeID ?? ''));
}

/** The seller (schemes given) or its tax representative (VA) has a VAT identifier, by the header's own path. */
export function sellerHasVatId(inv: Invoice, schemes: readonly string[]): boolean {
  return (
    withScheme(at(inv, `${AGREEMENT}/SellerTradeParty/SpecifiedTaxRegistration/ID`), schemes) ||
    withScheme(at(inv, `${AGREEMENT}/SellerTaxRepresentativeTradeParty/SpecifiedTaxRegistration/ID`), ['VA'])
  );
}

/** The same as `sellerHasVatId`, for the rules that look for the parties anywhere (`//ram:SellerTradeParty`). */
export function anySellerHasVatId(inv: Invoice, schemes: readonly string[]): boolean {
  return (
    withScheme(desc(inv, 'SellerTradeParty/SpecifiedTaxRegistration/ID'), schemes) ||
    withScheme(desc(inv, 'SellerTaxRepresentativeTradeParty/SpecifiedTaxRegistration/ID'), ['VA'])
  );
}

/** Some buyer has a VAT identifier (BT-48). */
export function buyerHasVatId(inv: Invoice): boolean {
  return withScheme(desc(inv, 'BuyerTradeParty/SpecifiedTaxRegistration/ID'), ['VA']);
}

/** Some buyer has a legal registration identifier (BT-47). */
export function buyerHasLegalId(inv: Invoice): boolean {
  return desc(inv, 'BuyerTradeParty/SpecifiedLegalOrganization/ID').length > 0;
}

/** The line settlements whose VAT category is `code` (and, when given, whose rate is `rate`). */
function lineSettlements(inv: Invoice, code: string, rate?: Dec): El[] {
  return at(inv, 'SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeSettlement').filter(
    (s) =>
      anyIs(s, 'ApplicableTradeTax/CategoryCode', code) &&
      (rate === undefined || all(s, 'ApplicableTradeTax').some((t) => sameRate(t, rate))),
  );
}

function sameRate(tax: El, rate: Dec): boolean {
  const r = num(tax, 'RateApplicablePercent');
  return r !== null && cmp(r, rate) === 0;
}

/** The document level allowances (charge false) or charges (true) of category `code` (and rate). */
function documentLevel(inv: Invoice, charge: boolean, code: string, rate?: Dec): El[] {
  return at(inv, 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/SpecifiedTradeAllowanceCharge').filter(
    (ac) =>
      isCharge(ac, charge) &&
      anyIs(ac, 'CategoryTradeTax/CategoryCode', code) &&
      (rate === undefined || all(ac, 'CategoryTradeTax').some((t) => sameRate(t, rate))),
  );
}

/** Σ line net amounts (BT-131) + Σ charges (BT-99) − Σ allowances (BT-92) of a category, each rounded to cents. */
export function categoryBasis(inv: Invoice, code: string, rate?: Dec): { total: Dec; words: string } {
  const lines = centsOf(lineSettlements(inv, code, rate), 'SpecifiedTradeSettlementLineMonetarySummation/LineTotalAmount');
  // The tolerance rules read each allowance's first amount, the per-rate rules all of them: the same for valid CII.
  const charges = centsOf(documentLevel(inv, true, code, rate), 'ActualAmount');
  const allowances = centsOf(documentLevel(inv, false, code, rate), 'ActualAmount');
  return {
    total: sub(add(lines, charges), allowances),
    words: `Σ BT-131 ${show(lines)} + Σ BT-99 ${show(charges)} − Σ BT-92 ${show(allowances)}`,
  };
}

/** BR-x-08 for Z, E, AE, IC, G: the taxable amount (BT-116) is the category's sum within ±1. */
export function basisWithinOne(code: string) {
  return (cat: El, inv: Invoice): Verdict => {
    const basis = num(cat.parent ?? undefined, 'BasisAmount');
    const { total, words } = categoryBasis(inv, code);
    const ok = basis !== null && cmp(sub(basis, int(1)), total) <= 0 && cmp(add(basis, int(1)), total) > 0;
    return held(ok, () => `BT-116 ${show(basis)} ≠ ${words} = ${show(total)}`);
  };
}

/** BR-x-08 for S, AF, AG: for each rate (BT-119) under `base`, the taxable amount equals the rate's sum exactly. */
export function basisPerRate(code: string, base: (ctx: El) => El | undefined) {
  return (ctx: El, inv: Invoice): Verdict => {
    const b = base(ctx);
    const rates = all(b, 'RateApplicablePercent').map((r) => dec(str(r)));
    for (const rate of rates) {
      if (!rate) continue;
      const { total, words } = categoryBasis(inv, code, rate);
      const bases = all(b, 'BasisAmount').map((e) => dec(str(e)));
      if (!bases.some((x) => x !== null && cmp(x, total) === 0)) {
        return `BT-116 ${show(bases[0] ?? null)} ≠ ${words} = ${show(total)} (rate ${show(rate)} %)`;
      }
    }
    return true;
  };
}
