/**
 * Generated EN 16931 invoices for the differential test against the published Schematron: valid ones of
 * many shapes (VAT categories S, Z, E, AE, K, G, O, L, M; allowances and charges at document and line
 * level; exemptions; credit notes; rounding; prepaid and rounding amounts), and copies of them with
 * exactly one fault each. Seeded, so a failure can be replayed.
 */

import type { Breakdown, DocAllowance, Line, Model, Tax } from './invoice-model.js';

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const between = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

/** VAT = basis × rate, rounded half up to the cent. */
function vatOf(basis: number, rate: number | undefined): number {
  if (!rate) return 0;
  const x = basis * rate; // cents × hundredths of a percent = 1/10000 cent
  return Math.sign(x) * Math.floor((Math.abs(x) + 5000) / 10000);
}

const EXEMPT: Record<string, { reason?: string; reasonCode?: string }> = {
  E: { reason: 'Exonération de TVA, article 261 du CGI' },
  AE: { reasonCode: 'VATEX-EU-AE', reason: 'Autoliquidation' },
  K: { reasonCode: 'VATEX-EU-IC' },
  G: { reason: 'Export outside the EU', reasonCode: 'VATEX-EU-G' },
  O: { reason: 'Not subject to VAT' },
};

/** The taxes an invoice may use: a category with one of its rates. */
function taxOf(r: Rand, category: string): Tax {
  const rate =
    category === 'S'
      ? pick(r, [2000, 1000, 550, 210, 1900, 700, 2100, 2500])
      : category === 'L'
        ? pick(r, [700, 300, 950])
        : category === 'M'
          ? pick(r, [0, 400, 1000])
          : category === 'O'
            ? undefined
            : 0;
  return { category, rate, ...(EXEMPT[category] ?? {}) };
}

const key = (t: Tax) => `${t.category}/${t.rate ?? '-'}`;

/** Sums lines, allowances and charges into breakdowns and totals, as a correct invoice has them. */
export function complete(m: Model): Model {
  const groups = new Map<string, Breakdown>();
  const add = (t: Tax, cents: number) => {
    const g = groups.get(key(t)) ?? { tax: { ...t }, basis: 0, vat: 0 };
    g.basis += cents;
    groups.set(key(t), g);
  };
  for (const l of m.lines) {
    l.net = l.qty * (l.price ?? 0) + l.acs.reduce((s, a) => s + (a.charge ? a.amount : -a.amount), 0);
    add(l.tax, l.net);
  }
  for (const a of m.acs) add(a.tax, a.charge ? a.amount : -a.amount);
  m.breakdowns = [...groups.values()].map((g) => ({ ...g, vat: vatOf(g.basis, g.tax.rate) }));
  const line = m.lines.reduce((s, l) => s + l.net, 0);
  const allowances = m.acs.filter((a) => !a.charge);
  const charges = m.acs.filter((a) => a.charge);
  const allowance = allowances.length ? allowances.reduce((s, a) => s + a.amount, 0) : undefined;
  const charge = charges.length ? charges.reduce((s, a) => s + a.amount, 0) : undefined;
  const basis = line - (allowance ?? 0) + (charge ?? 0);
  const vat = m.breakdowns.reduce((s, b) => s + b.vat, 0);
  const grand = basis + vat;
  const { prepaid, rounding } = m.totals;
  m.totals = { line, allowance, charge, basis, vat, grand, prepaid, rounding, due: grand - (prepaid ?? 0) + (rounding ?? 0) };
  return m;
}

/** A valid invoice of a random shape. */
export function validInvoice(r: Rand, n: number, lineCount?: number): Model {
  const onlyO = r() < 0.12;
  const categories = onlyO
    ? ['O']
    : [...new Set(Array.from({ length: between(r, 1, 3) }, () => pick(r, ['S', 'S', 'S', 'Z', 'E', 'AE', 'K', 'G', 'L', 'M'])))];
  const taxes = categories.flatMap((c) => (c === 'S' && r() < 0.4 ? [taxOf(r, c), taxOf(r, c)] : [taxOf(r, c)]));
  const lines: Line[] = Array.from({ length: lineCount ?? between(r, 1, 6) }, (_, i) => {
    const acs =
      r() < 0.2 ? [{ charge: r() < 0.4, amount: between(r, 1, 900), reason: pick(r, ['Remise', 'Discount', 'Packing']) }] : [];
    const price = between(r, 1, 250_000) * (r() < 0.1 ? -1 : 1);
    return {
      id: String(i + 1),
      name: `Item ${i + 1}`,
      qty: between(r, 1, 12),
      unit: pick(r, ['C62', 'H87', 'HUR', 'KGM']),
      price: Math.abs(price),
      ...(r() < 0.2 ? { gross: Math.abs(price) + between(r, 0, 500) } : {}),
      tax: { ...pick(r, taxes), reason: undefined, reasonCode: undefined },
      net: 0,
      acs,
      ...(r() < 0.1 ? { globalIdScheme: '0160' } : {}),
      ...(r() < 0.1 ? { attribute: { name: 'Colour', value: 'Blue' } } : {}),
      ...(r() < 0.1 ? { period: ['20261101', '20261130'] as [string, string] } : {}),
    };
  });
  // Line taxes carry no exemption reason; the breakdowns do.
  const acs: DocAllowance[] = Array.from({ length: r() < 0.5 ? between(r, 1, 3) : 0 }, () => {
    const charge = r() < 0.4;
    const amount = between(r, 1, 5000);
    return {
      charge,
      amount,
      ...(r() < 0.3 ? { base: amount * 10 } : {}),
      ...(r() < 0.5 ? { reason: charge ? 'Transport' : 'Remise fidélité' } : { reasonCode: charge ? 'FC' : '95' }),
      tax: { ...pick(r, taxes), reason: undefined, reasonCode: undefined },
    };
  });
  const hasVat = !onlyO;
  const m: Model = {
    number: `GEN-${n}`,
    type: r() < 0.2 ? '381' : '380',
    issue: '20261127',
    currency: pick(r, ['EUR', 'EUR', 'CHF']),
    seller: {
      name: 'Atelier Lumière SARL',
      legal: '912345678',
      country: 'FR',
      ...(hasVat ? { vat: 'FR44912345678' } : {}),
      ...(r() < 0.2 ? { uriScheme: 'EM' } : {}),
    },
    buyer: { name: 'Boulangerie Martin', country: pick(r, ['FR', 'BE', 'DE']), ...(hasVat ? { vat: 'BE0123456789' } : {}) },
    lines,
    acs,
    breakdowns: [],
    totals: {
      line: 0,
      basis: 0,
      vat: 0,
      grand: 0,
      due: 0,
      ...(r() < 0.2 ? { prepaid: between(r, 1, 10000) } : {}),
      ...(r() < 0.1 ? { rounding: pick(r, [1, -1, 2, -2]) } : {}),
    },
    delivery: '20261120',
    ...(categories.includes('K') || r() < 0.2 ? { shipTo: 'BE' } : {}),
    ...(r() < 0.2 ? { period: ['20261101', '20261130'] as [string, string] } : {}),
    payment: r() < 0.7 ? { code: pick(r, ['30', '58']), iban: 'FR7630006000011234567890189' } : { code: '10' },
  };
  complete(m);
  for (const b of m.breakdowns) Object.assign(b.tax, EXEMPT[b.tax.category] ?? {});
  return m;
}
