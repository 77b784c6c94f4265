/**
 * Whether the PDF shows the invoice its XML is: the invoice number (BT-1) and the amount due (BT-115)
 * appear in the document's rendered text. The amount may be written in any common way: `104.90`,
 * `104,90`, `1,234.56`, `1.234,56`, `1 234,56` (with a space, a no-break or a narrow no-break space, or
 * an apostrophe as in Switzerland), with or without a currency sign or code around it.
 */

import type { CiiTree } from './rules/cii-tree.js';
import { all, one, str } from './rules/cii-tree.js';
import { dec, show } from './rules/decimal.js';

/** What the XML says the PDF must show. */
export interface ShownValues {
  number: string | null;
  due: string | null;
}

/** BT-1 and BT-115 as the XML has them (null when absent). */
export function valuesToShow(tree: CiiTree): ShownValues {
  const number = one(tree.root, 'ExchangedDocument/ID');
  const due = all(
    tree.root,
    'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/SpecifiedTradeSettlementHeaderMonetarySummation/DuePayableAmount',
  )[0];
  return { number: number ? str(number).trim() : null, due: due ? str(due).trim() : null };
}

/** White space of any kind as one space, so a number broken over a line or spaced by CSS still reads. */
function spaced(s: string): string {
  return s.replace(/[\s\u00a0\u202f\u2007]+/g, ' ');
}

/**
 * Amounts with two decimals in `text`, in cents: an integer part (grouped by `,` `.` space, no-break
 * space, narrow no-break space or apostrophe, in threes) and a decimal part after `.` or `,`.
 */
function amountsIn(text: string): Set<bigint> {
  const found = new Set<bigint>();
  const pattern = /(?<![\d.,])(\d{1,3}(?:[ ,.'’]\d{3})+|\d+)([.,])(\d{2})(?![\d])/g;
  for (const m of text.matchAll(pattern)) {
    const [, whole = '', sep, cents = ''] = m;
    // A grouping separator is never the decimal one: 1.234.56 is no amount.
    if (sep && whole.includes(sep)) continue;
    found.add(BigInt(whole.replace(/[ ,.'’]/g, '')) * 100n + BigInt(cents));
  }
  return found;
}

/** The values the XML names that the PDF's text lacks, each as a clause (BT-1, BT-115) and a sentence. */
export function missingFromText(values: ShownValues, pdfText: string): Array<{ clause: string; message: string }> {
  const text = spaced(pdfText);
  const missing: Array<{ clause: string; message: string }> = [];
  if (values.number !== null && values.number !== '' && !text.includes(spaced(values.number))) {
    missing.push({
      clause: 'BT-1',
      message: `the PDF does not show its invoice number (BT-1) "${values.number.slice(0, 80)}": it may be another invoice's XML`,
    });
  }
  const due = dec(values.due ?? undefined);
  if (due !== null) {
    // The amount in cents, as the PDF would print it (a credit note may print it without its sign).
    const rounded = due.s <= 2 ? due.v * 10n ** BigInt(2 - due.s) : null;
    const amounts = amountsIn(text);
    const shown = rounded !== null && amounts.has(rounded < 0n ? -rounded : rounded);
    if (!shown) {
      missing.push({
        clause: 'BT-115',
        message: `the PDF does not show its amount due (BT-115) ${show(due)}: it may be another invoice's XML, or the PDF shows other totals`,
      });
    }
  }
  return missing;
}
