/**
 * Seeded Factur-X invoices for the claims differential test: a valid EN 16931 XML of a random shape (the
 * rules suite's generator) attached as a data: URL, and an HTML page that shows its amount due to a
 * reader, or only pretends to: hidden off the page, in a zero-height clipping box, in white, transparent,
 * in 0.5 px text, under an opaque box, clipped by clip-path, or printed for something else while another
 * amount stands beside "Amount due"; some put it more than 200 pages in. Each document knows whether a
 * reader sees the XML's amount due (`invoice.shown`): a Factur-X claim on one that does not is false.
 */
import { prng } from '../../helpers/prng.js';
import { validInvoice } from '../factur-x-rules/generate-invoices.js';
import { invoiceXml, money } from '../factur-x-rules/invoice-model.js';
import { Dice } from './awkward-documents.js';

/** How each document shows (or hides) the XML's amount due; the `visible` ones a reader sees. */
const WAYS: Record<string, (amount: string) => string> = {
  visible: (a) => `<p>Amount due: ${a} EUR</p>`,
  'visible-marked': (a) =>
    `<table style="width:100%"><tr><td>Balance due</td><td style="text-align:right" data-bt="BT-115">${a} €</td></tr></table>`,
  'visible-table': (a) => `<table><tr><th>Total due</th><td>${a}</td></tr></table>`,
  'hidden-off-page': (a) => `<div style="position:absolute;left:-9000px;top:300px">${a}</div>`,
  'hidden-zero-height': (a) => `<div style="height:0;overflow:hidden"><p>${a}</p></div>`,
  'hidden-white': (a) => `<p style="color:#fff">${a}</p>`,
  'hidden-transparent': (a) => `<p style="color:rgba(0,0,0,0)">${a}</p>`,
  'hidden-tiny': (a) => `<p style="font-size:0.5px">${a}</p>`,
  'hidden-covered': (a) =>
    `<div style="position:relative"><p>${a}</p><div style="position:absolute;inset:0;background:#fff;print-color-adjust:exact;-webkit-print-color-adjust:exact"></div></div>`,
  'hidden-clip-path': (a) => `<p style="clip-path:inset(100%)">${a}</p>`,
  incidental: (a) => `<p>Previous payment received: ${a}</p>`,
};

/** Every way, for the test to see each in its seed. */
export const INVOICE_WAYS = Object.keys(WAYS);

/** Declarations an invoice is rendered with (Factur-X is PDF/A-3; a declared PDF/A-2 would become PDF/A-3, claimed undeclared). */
export const INVOICE_DECLARATIONS = ['PDF/A-3b', 'PDF/A-3b, PDF/UA-1'] as const;

/** An invoice document: like an awkward one, with its own declarations and whether a reader sees its amount due. */
export interface InvoiceDocument {
  name: string;
  constructs: string[];
  declarations: readonly string[];
  invoice: { shown: boolean };
  html(profiles: string): string;
}

/** A decimal amount as an English invoice prints it: 1234.5 → "1,234.50". */
function printed(cents: number): string {
  const [whole, frac] = money(Math.abs(cents)).split('.');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${frac}`;
}

/** Invoice `index` of the run seeded `seed`: `way` (else one drawn from the seed), far down a long document with `far`. */
export function invoiceDocument(seed: number, index: number, way?: string, far?: boolean): InvoiceDocument {
  const r = prng((seed * 0x2545f491) ^ (index * 0x9e3779b1) ^ 0x68e31da4);
  const d = new Dice(r);
  const model = validInvoice(r, index);
  const number = `INV-${seed}-${index}`;
  model.number = number;
  const xml = invoiceXml(model);
  const chosen = way ?? d.pick(INVOICE_WAYS);
  const atPage200 = far ?? d.chance(0.2);
  const due = model.totals.due;
  // Another amount, never the XML's, printed where the ways that hide the real one print a total.
  const decoy = printed(Math.abs(due) + 900_000);
  // The lines print their amounts, but none that happens to equal the amount due (a reader would not take it for it).
  const lines = model.lines
    .map((l) => `<tr><td>${l.name}</td><td>${l.qty}</td><td>${Math.abs(l.net) === Math.abs(due) ? '' : printed(l.net)}</td></tr>`)
    .join('');
  const visible = chosen.startsWith('visible');
  const shown = WAYS[chosen]?.(printed(due)) ?? '';
  // A hidden amount stands beside a total that is not labelled as the amount due: only what a reader sees
  // withholds the claim. The incidental one stands beside "Amount due": the label withholds it.
  const amountPart = visible ? shown : `<p>${chosen === 'incidental' ? 'Amount due' : 'Total'}: ${decoy} EUR</p>${shown}`;
  const filler = atPage200
    ? Array.from({ length: 205 }, (_, i) => `<p style="break-after:page">Terms and conditions, page ${i + 2}.</p>`).join('')
    : '';
  const data = `data:application/xml;base64,${Buffer.from(xml).toString('base64')}`;
  return {
    name: `invoice-s${seed}-d${index}`,
    constructs: [`amount:${chosen}`, ...(atPage200 ? ['amount:past-page-200'] : [])],
    declarations: INVOICE_DECLARATIONS,
    invoice: { shown: visible },
    html: (profiles) =>
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Invoice ${number}</title>` +
      `<meta name="pdf-profile" content="${profiles}"><meta name="factur-x" content="EN 16931">` +
      `<link rel="attachment" href="${data}" title="factur-x.xml"></head>\n<body>\n<h1>Invoice ${number}</h1>\n` +
      `<table>${lines}</table>\n${filler}${amountPart}\n</body></html>\n`,
  };
}
