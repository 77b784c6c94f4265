/**
 * The invoice a third-party template shows, as data: its number, currency, lines, VAT and charges. From
 * it comes the EN 16931 CII XML attached to the template (the rules suite's writer), whose invoice
 * number (BT-1) and amount due (BT-115) are the ones the template prints. Templates with placeholders
 * are filled with one fixed invoice (FIXED_INVOICE); templates with sample data get a spec of what they
 * print, and the XML is refused here unless its amount due is exactly the one printed.
 */
import { complete } from '../factur-x-rules/generate-invoices.js';
import { invoiceXml, type Model, type Tax } from '../factur-x-rules/invoice-model.js';

/** One line as a template prints it: what, how many, the unit price in cents. */
export interface SpecLine {
  name: string;
  qty: number;
  price: number;
}

/** What a template shows of its invoice; amounts in cents, `rate` in hundredths of a percent. */
export interface InvoiceSpec {
  number: string;
  currency: string;
  lines: SpecLine[];
  /** VAT at `rate` (category S); without it the invoice is not subject to VAT (category O), as a template printing no VAT is. */
  rate?: number;
  /** Charges at document level (shipping), taxed like the lines. */
  charges?: Array<{ reason: string; amount: number }>;
  /** The amount due the template prints, in cents: the XML must come to it. */
  due: number;
}

/** The one invoice every template with placeholders is filled with. */
export const FIXED_INVOICE = {
  number: 'FX-2026-0042',
  issued: 'November 27, 2026',
  dueDate: 'December 27, 2026',
  seller: {
    name: 'Atelier Lumière SARL',
    street: '1 rue Exemple',
    city: '75001 Paris',
    email: 'billing@atelier-lumiere.example',
  },
  buyer: {
    name: 'Boulangerie Martin',
    street: '12 place du Marché',
    city: '1000 Bruxelles',
    email: 'compta@boulangerie-martin.example',
  },
  lines: [
    { name: 'Website design', qty: 2, price: 45_000 },
    { name: 'Hosting, 12 months', qty: 1, price: 12_000 },
  ],
  rate: 2000,
  currency: 'EUR',
  symbol: '€',
} as const;

/** The fixed invoice's sums, in cents. */
export const FIXED_SUMS = sums(FIXED_INVOICE.lines, FIXED_INVOICE.rate, []);

/** The fixed invoice as a spec. */
export const FIXED_SPEC: InvoiceSpec = {
  number: FIXED_INVOICE.number,
  currency: FIXED_INVOICE.currency,
  lines: FIXED_INVOICE.lines.map((l) => ({ ...l })),
  rate: FIXED_INVOICE.rate,
  due: FIXED_SUMS.due,
};

/** Net, VAT (rounded half up to the cent) and amount due of lines and charges. */
function sums(lines: readonly SpecLine[], rate: number | undefined, charges: ReadonlyArray<{ amount: number }>) {
  const net = lines.reduce((s, l) => s + l.qty * l.price, 0) + charges.reduce((s, c) => s + c.amount, 0);
  const vat = rate ? Math.floor((net * rate + 5000) / 10000) : 0;
  return { net, vat, due: net + vat };
}

/** Cents as an English invoice prints them: 122400 → "1,224.00". */
export function printed(cents: number): string {
  const whole = Math.floor(cents / 100).toString();
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${String(cents % 100).padStart(2, '0')}`;
}

/** The spec's EN 16931 XML; throws when it does not come to the amount due the template prints. */
export function specXml(spec: InvoiceSpec): string {
  const tax: Tax = spec.rate ? { category: 'S', rate: spec.rate } : { category: 'O' };
  const vatIds = spec.rate ? { vat: 'FR44912345678' } : {};
  const model: Model = {
    number: spec.number,
    type: '380',
    issue: '20261127',
    currency: spec.currency,
    seller: { name: FIXED_INVOICE.seller.name, legal: '912345678', country: 'FR', ...vatIds },
    buyer: { name: FIXED_INVOICE.buyer.name, country: 'BE' },
    lines: spec.lines.map((l, i) => ({
      id: String(i + 1),
      name: l.name,
      qty: l.qty,
      unit: 'C62',
      price: l.price,
      tax: { ...tax },
      net: 0,
      acs: [],
    })),
    acs: (spec.charges ?? []).map((c) => ({ charge: true, amount: c.amount, reason: c.reason, tax: { ...tax } })),
    breakdowns: [],
    totals: { line: 0, basis: 0, vat: 0, grand: 0, due: 0 },
    delivery: '20261120',
    payment: { code: '30', iban: 'FR7630006000011234567890189' },
  };
  complete(model);
  // The category O breakdown states why there is no VAT (BR-O-10).
  for (const b of model.breakdowns) if (b.tax.category === 'O') b.tax.reason = 'Not subject to VAT';
  if (model.totals.due !== spec.due)
    throw new Error(`${spec.number}: the XML comes to ${printed(model.totals.due)}, the template prints ${printed(spec.due)}`);
  return invoiceXml(model);
}
