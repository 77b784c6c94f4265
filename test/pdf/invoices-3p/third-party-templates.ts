/**
 * Twelve HTML invoice and receipt templates written by others, each as the document a customer would send: its
 * placeholders filled with one fixed invoice, its own stylesheets inlined, nothing fetched from
 * elsewhere; and the invoice it shows (invoice-spec.ts), from which its Factur-X XML is made.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fillBraces, fillMustache, invoicebusData, selfContained } from './fill-template.js';
import { FIXED_INVOICE, FIXED_SPEC, FIXED_SUMS, type InvoiceSpec, printed } from './invoice-spec.js';

/**
 * Where the templates are, one folder each, with a README naming each one's repository, commit and licence:
 * `invoices-3p/` of the saved corpus (PAGEWORKS_CORPUS_DIR). They are other people's code, so the
 * repository keeps only what fills and checks them; undefined when the corpus has no such folder.
 */
export const TEMPLATES_DIR: string | undefined = (() => {
  const base = process.env.PAGEWORKS_CORPUS_DIR;
  if (!base) return undefined;
  const dir = path.resolve(import.meta.dirname, '../../..', base, 'invoices-3p');
  return fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() ? `${dir}/` : undefined;
})();

/** A template: its folder, the document it makes (no declaration yet) and the invoice that document shows. */
export interface ThirdPartyTemplate {
  name: string;
  html(): string;
  invoice: InvoiceSpec;
}

function read(name: string, file: string): string {
  return fs.readFileSync(`${TEMPLATES_DIR}${name}/${file}`, 'utf8');
}

/** A template published as a finished page with sample data: it is rendered as it is, and `invoice` is what it prints. */
function asPublished(name: string, file: string, invoice: InvoiceSpec): ThirdPartyTemplate {
  return { name, invoice, html: () => selfContained(read(name, file), `${TEMPLATES_DIR}${name}`) };
}

const euros = (cents: number) => `${FIXED_INVOICE.symbol}${printed(cents)}`;
const { seller, buyer } = FIXED_INVOICE;
const lineTotal = (l: { qty: number; price: number }) => l.qty * l.price;
const vatLabel = `VAT ${FIXED_INVOICE.rate / 100}%`;

/** The fixed invoice as the Postmark templates' variables: its lines, then its VAT, as the detail rows. */
const postmarkData = {
  name: buyer.name,
  invoice_id: FIXED_INVOICE.number,
  receipt_id: FIXED_INVOICE.number,
  date: FIXED_INVOICE.issued,
  purchase_date: FIXED_INVOICE.issued,
  due_date: FIXED_INVOICE.dueDate,
  total: euros(FIXED_SUMS.due),
  action_url: `https://pay.example.com/${FIXED_INVOICE.number}`,
  support_url: 'https://atelier-lumiere.example/support',
  billing_url: 'https://atelier-lumiere.example/billing',
  credit_card_brand: 'Visa',
  credit_card_last_four: '4242',
  expiration_date: FIXED_INVOICE.dueDate,
};
const details = [
  ...FIXED_INVOICE.lines.map((l) => ({ description: `${l.name} × ${l.qty}`, amount: euros(lineTotal(l)) })),
  { description: vatLabel, amount: euros(FIXED_SUMS.vat) },
];

function postmark(name: string): ThirdPartyTemplate {
  return {
    name,
    invoice: FIXED_SPEC,
    html: () =>
      selfContained(
        fillMustache(read(name, 'content.html'), { ...postmarkData, invoice_details: details, receipt_details: details }, name),
        `${TEMPLATES_DIR}${name}`,
      ),
  };
}

/** Invoicebus's template with its own English labels (its data.txt) and the fixed invoice's values. */
function invoicebus(): ThirdPartyTemplate {
  const name = 'invoicebus-onyx';
  const labels = invoicebusData(read(name, 'data.txt'));
  const values = {
    ...labels,
    company_logo: '',
    company_name: seller.name,
    company_address: seller.street,
    company_city_zip_state: seller.city,
    company_phone_fax: '+33 1 23 45 67 89',
    company_email_web: seller.email,
    payment_info2: 'IBAN: FR76 3000 6000 0112 3456 7890 189',
    payment_info3: '',
    payment_info4: '',
    issue_date: FIXED_INVOICE.issued,
    due_date: FIXED_INVOICE.dueDate,
    net_term: '30',
    currency: FIXED_INVOICE.currency,
    po_number: '',
    client_name: buyer.name,
    client_address: buyer.street,
    client_city_zip_state: buyer.city,
    client_phone_fax: '',
    client_email: buyer.email,
    client_other: '',
    invoice_number: FIXED_INVOICE.number,
    amount_subtotal: euros(FIXED_SUMS.net),
    amount_total: euros(FIXED_SUMS.due),
    amount_paid: euros(0),
    amount_due: euros(FIXED_SUMS.due),
    terms: 'Payment within 30 days by bank transfer.',
  };
  const rows = {
    item: FIXED_INVOICE.lines.map((l, i) => ({
      item_row_number: String(i + 1),
      item_description: l.name,
      item_quantity: String(l.qty),
      item_price: euros(l.price),
      item_discount: '',
      item_tax: `${FIXED_INVOICE.rate / 100}%`,
      item_line_total: euros(lineTotal(l)),
    })),
    tax: [{ tax_name: `${vatLabel}:`, tax_value: euros(FIXED_SUMS.vat) }],
  };
  // @@TPL_NOTE and @@SCRIPT are where Invoicebus's build puts a comment and its editor's script.
  const template = read(name, 'template.html').replace(/@@TPL_NOTE|@@SCRIPT/g, '');
  return {
    name,
    invoice: FIXED_SPEC,
    html: () => selfContained(fillBraces(template, values, rows, name), `${TEMPLATES_DIR}${name}`),
  };
}

/** The twelve templates, by folder (none when the corpus has no invoices-3p/). */
export const THIRD_PARTY_TEMPLATES: ThirdPartyTemplate[] = TEMPLATES_DIR ? templates() : [];

function templates(): ThirdPartyTemplate[] {
  return [
    asPublished('sparksuite-simple', 'invoice.html', {
      number: '123',
      currency: 'USD',
      lines: [
        { name: 'Website design', qty: 1, price: 30_000 },
        { name: 'Hosting (3 months)', qty: 1, price: 7_500 },
        { name: 'Domain name (1 year)', qty: 1, price: 1_000 },
      ],
      due: 38_500,
    }),
    {
      // Anvil's HTML is a fragment its API puts in a page with the two stylesheets and the title its script sends.
      name: 'anvil-invoice',
      invoice: {
        number: '12345',
        currency: 'USD',
        lines: [
          { name: 'Blue large widgets', qty: 2, price: 1_500 },
          { name: 'Green medium widgets', qty: 4, price: 1_000 },
          { name: 'Red small widgets with logo', qty: 5, price: 700 },
        ],
        due: 10_500,
      },
      html: () =>
        selfContained(
          '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>HTML Invoice</title>' +
            '<link rel="stylesheet" href="invoice.css"><link rel="stylesheet" href="invoice-pdf.css"></head>\n<body>\n' +
            `${read('anvil-invoice', 'invoice.html')}</body></html>\n`,
          `${TEMPLATES_DIR}anvil-invoice`,
        ),
    },
    asPublished('mailgun-billing', 'billing.html', {
      number: '12345',
      currency: 'USD',
      lines: [
        { name: 'Service 1', qty: 1, price: 1_999 },
        { name: 'Service 2', qty: 1, price: 999 },
        { name: 'Service 3', qty: 1, price: 400 },
      ],
      due: 3_398,
    }),
    postmark('postmark-basic-invoice'),
    postmark('postmark-basic-full-receipt'),
    postmark('postmark-plain-invoice'),
    asPublished('sendgrid-paste-receipt', 'receipt.html', {
      number: '0000224',
      currency: 'USD',
      lines: [
        { name: 'Item', qty: 1, price: 2_400 },
        { name: 'Item', qty: 1, price: 2_400 },
      ],
      charges: [{ reason: 'Shipping', amount: 600 }],
      due: 5_400,
    }),
    {
      // SendGrid's dynamic receipt prints no order or invoice number: the XML's BT-1 cannot be shown.
      name: 'sendgrid-dynamic-receipt',
      invoice: FIXED_SPEC,
      html: () =>
        selfContained(
          fillMustache(
            read('sendgrid-dynamic-receipt', 'receipt.html'),
            {
              receipt: true,
              items: [
                ...FIXED_INVOICE.lines.map((l) => ({ text: `${l.name} × ${l.qty}`, image: '', price: euros(lineTotal(l)) })),
                { text: vatLabel, image: '', price: euros(FIXED_SUMS.vat) },
              ],
              total: euros(FIXED_SUMS.due),
              name: buyer.name,
              address01: buyer.street,
              address02: '',
              city: 'Bruxelles',
              state: 'BE',
              zip: '1000',
            },
            'sendgrid-dynamic-receipt',
          ),
          `${TEMPLATES_DIR}sendgrid-dynamic-receipt`,
        ),
    },
    asPublished('weasyprint-invoice', 'invoice.html', {
      number: '12345',
      currency: 'EUR',
      lines: [
        { name: 'Website design', qty: 100, price: 3_420 },
        { name: 'Website development', qty: 100, price: 4_550 },
        { name: 'Website integration', qty: 100, price: 2_575 },
      ],
      due: 1_054_500,
    }),
    asPublished('adminlte-invoice', 'invoice.html', {
      number: 'INV-2026-00428',
      currency: 'USD',
      lines: [
        { name: 'Pro plan subscription', qty: 1, price: 2_900 },
        { name: 'Additional seats', qty: 3, price: 1_250 },
        { name: 'SMS notifications add-on', qty: 1, price: 500 },
      ],
      rate: 825,
      due: 7_740,
    }),
    // Gentelella's sample figures do not add up (its lines come to 151.19, its subtotal says 250.30, its
    // 9.3% tax to 10.34): the XML keeps the printed lines and shipping, and one line for the rest, so that
    // it comes to the total printed.
    asPublished('gentelella-invoice', 'invoice.html', {
      number: '007612',
      currency: 'USD',
      lines: [
        { name: 'Call of Duty', qty: 1, price: 6_450 },
        { name: 'Need for Speed IV', qty: 1, price: 5_000 },
        { name: 'Monsters DVD', qty: 1, price: 1_070 },
        { name: 'Grown Ups Blue Ray', qty: 1, price: 2_599 },
        { name: 'Other items and tax as printed', qty: 1, price: 10_825 },
      ],
      charges: [{ reason: 'Shipping', amount: 580 }],
      due: 26_524,
    }),
    invoicebus(),
  ];
}
