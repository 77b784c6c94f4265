/**
 * One fault each: a change to a valid invoice that a receiver's validator names. The differential test
 * does not say which rules a fault breaks (the Schematron and the table must simply agree on it); the
 * name is for reading a disagreement.
 */
import type { Model } from './invoice-model.js';

export interface Fault {
  name: string;
  applies?: (m: Model) => boolean;
  apply: (m: Model) => void;
}

const uses = (m: Model, c: string) => m.breakdowns.some((b) => b.tax.category === c);
const firstOf = (m: Model, c: string) => m.breakdowns.find((b) => b.tax.category === c);

/** Every fault the generator applies. */
export const FAULTS: readonly Fault[] = [
  // sums
  {
    name: 'grand total off by 1.00',
    apply: (m) => {
      m.totals.grand += 100;
    },
  },
  {
    name: 'amount due off by 0.01',
    apply: (m) => {
      m.totals.due += 1;
    },
  },
  {
    name: 'sum of lines off',
    apply: (m) => {
      m.totals.line += 10;
    },
  },
  {
    name: 'tax basis off',
    apply: (m) => {
      m.totals.basis -= 5;
    },
  },
  {
    name: 'VAT total off',
    apply: (m) => {
      m.totals.vat += 3;
    },
  },
  {
    name: 'allowance total off',
    applies: (m) => m.totals.allowance !== undefined,
    apply: (m) => {
      m.totals.allowance = (m.totals.allowance ?? 0) + 1;
    },
  },
  {
    name: 'charge total off',
    applies: (m) => m.totals.charge !== undefined,
    apply: (m) => {
      m.totals.charge = (m.totals.charge ?? 0) + 7;
    },
  },
  {
    name: 'allowance total without allowances',
    applies: (m) => m.totals.allowance === undefined,
    apply: (m) => {
      m.totals.allowance = 0;
    },
  },
  {
    name: 'breakdown VAT off by 2.00',
    apply: (m) => {
      (m.breakdowns[0] as { vat: number }).vat += 200;
    },
  },
  {
    name: 'breakdown VAT off by 0.01',
    apply: (m) => {
      (m.breakdowns[0] as { vat: number }).vat += 1;
    },
  },
  {
    name: 'breakdown basis off by 0.50',
    apply: (m) => {
      (m.breakdowns[0] as { basis: number }).basis += 50;
    },
  },
  {
    name: 'breakdown basis off by 3.00',
    apply: (m) => {
      (m.breakdowns[0] as { basis: number }).basis -= 300;
    },
  },
  {
    name: 'line net with three decimals',
    apply: (m) => {
      const l = m.lines[0];
      if (l) l.netText = `${(l.net / 100).toFixed(2)}0`.replace(/0$/, '5');
    },
  },
  {
    name: 'grand total with three decimals',
    apply: (m) => {
      m.totals.text = { GrandTotalAmount: `${(m.totals.grand / 100).toFixed(2)}1` };
    },
  },
  {
    name: 'prepaid not deducted',
    applies: (m) => m.totals.prepaid !== undefined,
    apply: (m) => {
      m.totals.due = m.totals.grand;
    },
  },
  {
    name: 'no amount due',
    apply: (m) => {
      (m.totals as { due?: number }).due = undefined;
    },
  },
  // VAT categories
  {
    name: 'breakdown missing',
    applies: (m) => m.breakdowns.length > 1,
    apply: (m) => {
      m.breakdowns.pop();
    },
  },
  {
    name: 'breakdown twice',
    apply: (m) => {
      const b = m.breakdowns[0];
      if (b) m.breakdowns.push({ ...b, tax: { ...b.tax } });
    },
  },
  {
    name: 'exemption reason removed',
    applies: (m) => m.breakdowns.some((b) => b.tax.reason || b.tax.reasonCode),
    apply: (m) => {
      const b = m.breakdowns.find((x) => x.tax.reason || x.tax.reasonCode);
      if (b) {
        b.tax.reason = undefined;
        b.tax.reasonCode = undefined;
      }
    },
  },
  {
    name: 'exemption reason on a taxed category',
    applies: (m) => uses(m, 'S') || uses(m, 'Z') || uses(m, 'L'),
    apply: (m) => {
      const b = firstOf(m, 'S') ?? firstOf(m, 'Z') ?? firstOf(m, 'L');
      if (b) b.tax.reason = 'Exempt';
    },
  },
  {
    name: 'standard rate 0 on a line',
    applies: (m) => m.lines.some((l) => l.tax.category === 'S'),
    apply: (m) => {
      const l = m.lines.find((x) => x.tax.category === 'S');
      if (l) l.tax = { ...l.tax, rate: 0 };
    },
  },
  {
    name: 'zero rate with a rate on a line',
    applies: (m) => m.lines.some((l) => ['Z', 'E', 'AE', 'K', 'G'].includes(l.tax.category)),
    apply: (m) => {
      const l = m.lines.find((x) => ['Z', 'E', 'AE', 'K', 'G'].includes(x.tax.category));
      if (l) l.tax = { ...l.tax, rate: 500 };
    },
  },
  {
    name: 'not subject to VAT with a rate',
    applies: (m) => uses(m, 'O'),
    apply: (m) => {
      const l = m.lines.find((x) => x.tax.category === 'O');
      if (l) l.tax = { ...l.tax, rate: 0 };
    },
  },
  {
    name: 'allowance in another category',
    applies: (m) => m.acs.length > 0,
    apply: (m) => {
      const a = m.acs[0];
      if (a) a.tax = a.tax.category === 'S' ? { category: 'Z', rate: 0 } : { category: 'S', rate: 2000 };
    },
  },
  {
    name: 'seller without VAT id',
    applies: (m) => m.seller.vat !== undefined,
    apply: (m) => {
      m.seller.vat = undefined;
    },
  },
  {
    name: 'buyer without VAT id',
    applies: (m) => m.buyer.vat !== undefined,
    apply: (m) => {
      m.buyer.vat = undefined;
    },
  },
  {
    name: 'not subject to VAT but seller has VAT id',
    applies: (m) => uses(m, 'O'),
    apply: (m) => {
      m.seller.vat = 'FR44912345678';
    },
  },
  {
    name: 'intra-community without delivery date',
    applies: (m) => uses(m, 'K'),
    apply: (m) => {
      m.delivery = undefined;
      m.period = undefined;
    },
  },
  {
    name: 'intra-community without ship-to',
    applies: (m) => uses(m, 'K'),
    apply: (m) => {
      m.shipTo = undefined;
    },
  },
  {
    name: 'a line in O among taxed ones',
    applies: (m) => !uses(m, 'O') && m.lines.length > 1,
    apply: (m) => {
      const l = m.lines[0];
      if (l) l.tax = { category: 'O' };
    },
  },
  {
    name: 'VAT id with no country',
    apply: (m) => {
      if (m.seller.vat) m.seller.vat = 'XX44912345678';
      else m.buyer.vat = '12345';
    },
  },
  {
    name: 'tax point date and its code',
    apply: (m) => {
      const b = m.breakdowns[0];
      if (b) {
        b.taxPointDate = '20261120';
        b.dueDateCode = '5';
      }
    },
  },
  // mandatory fields
  {
    name: 'no invoice number',
    apply: (m) => {
      m.number = undefined;
    },
  },
  {
    name: 'no currency',
    apply: (m) => {
      m.currency = undefined;
    },
  },
  {
    name: 'no seller name',
    apply: (m) => {
      m.seller.name = undefined;
    },
  },
  {
    name: 'no buyer name',
    apply: (m) => {
      m.buyer.name = undefined;
    },
  },
  {
    name: 'no buyer address',
    apply: (m) => {
      m.buyer.address = false;
    },
  },
  {
    name: 'no seller country',
    apply: (m) => {
      m.seller.country = undefined;
    },
  },
  {
    name: 'no seller identifier at all',
    apply: (m) => {
      m.seller.vat = undefined;
      m.seller.legal = undefined;
      m.seller.fc = undefined;
    },
  },
  {
    name: 'no lines',
    apply: (m) => {
      m.lines = [];
    },
  },
  {
    name: 'line without id',
    apply: (m) => {
      const l = m.lines[0];
      if (l) l.id = undefined;
    },
  },
  {
    name: 'line without name',
    apply: (m) => {
      const l = m.lines[0];
      if (l) l.name = undefined;
    },
  },
  {
    name: 'line without unit',
    apply: (m) => {
      const l = m.lines[0];
      if (l) l.unit = undefined;
    },
  },
  {
    name: 'line without net price',
    apply: (m) => {
      const l = m.lines[0];
      if (l) l.price = undefined;
    },
  },
  {
    name: 'line with a negative gross price',
    apply: (m) => {
      const l = m.lines[0];
      if (l) l.gross = -100;
    },
  },
  {
    name: 'line with a period ending before it starts',
    apply: (m) => {
      const l = m.lines[0];
      if (l) l.period = ['20261130', '20261101'];
    },
  },
  {
    name: 'invoice period with no dates',
    apply: (m) => {
      m.period = [undefined, undefined];
    },
  },
  {
    name: 'invoice period ending before it starts',
    apply: (m) => {
      m.period = ['20261201', '20261101'];
    },
  },
  {
    name: 'allowance without reason',
    applies: (m) => m.acs.length > 0,
    apply: (m) => {
      const a = m.acs[0];
      if (a) {
        a.reason = undefined;
        a.reasonCode = undefined;
      }
    },
  },
  {
    name: 'line allowance without reason',
    applies: (m) => m.lines.some((l) => l.acs.length > 0),
    apply: (m) => {
      const a = m.lines.find((l) => l.acs.length > 0)?.acs[0];
      if (a) a.reason = undefined;
    },
  },
  {
    name: 'item standard id without scheme',
    apply: (m) => {
      const l = m.lines[0];
      if (l) l.globalIdScheme = '';
    },
  },
  {
    name: 'item attribute without value',
    apply: (m) => {
      const l = m.lines[0];
      if (l) l.attribute = { name: 'Colour' };
    },
  },
  {
    name: 'seller e-address without scheme',
    apply: (m) => {
      m.seller.uriScheme = '';
    },
  },
  {
    name: 'payee is the seller',
    apply: (m) => {
      m.payee = m.seller.name;
    },
  },
  {
    name: 'tax representative without VAT id',
    apply: (m) => {
      m.taxRep = { name: 'Rep SA', country: 'FR' };
    },
  },
  {
    name: 'credit transfer without account',
    apply: (m) => {
      m.payment = { code: '58' };
    },
  },
  {
    name: 'credit transfer with two accounts',
    apply: (m) => {
      m.payment = { code: '30', iban: 'FR7630006000011234567890189', proprietary: '12345' };
    },
  },
];
