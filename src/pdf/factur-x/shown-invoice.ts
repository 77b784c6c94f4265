/**
 * Whether the PDF shows the invoice its XML is, to a reader: the invoice number (BT-1) and the amount
 * due (BT-115) are in the document's visible text (what is printed legibly on a page, read from its
 * print layout: src/render/document/shown-text-page.ts), no other amount is printed beside a label of
 * the amount due, and an element the document marks with `data-bt` prints exactly the XML's value.
 */
import { FACTUR_X_FILE_NAME } from './levels.js';
import { amountsIn, spaced } from './printed-amounts.js';
import type { CiiTree } from './rules/cii-tree.js';
import { all, one, str } from './rules/cii-tree.js';
import { type Dec, dec, show } from './rules/decimal.js';
import { labelsIn } from './term-labels.js';

/** What the XML says the PDF must show: BT-1, BT-115, and BT-112 and BT-109 for a document that marks them. */
export interface ShownValues {
  number: string | null;
  due: string | null;
  grandTotal?: string | null;
  netTotal?: string | null;
}

/**
 * What a reader sees of the document: its visible text (a hidden node is a line break, nodes side by
 * side on one line are joined by a tab), its language, and each element it marks with `data-bt`, with
 * that element's visible text (null when none of it is visible).
 */
export interface ShownInvoice {
  text: string;
  lang: string;
  marked: Array<{ term: string; text: string | null }>;
}

/** Why the PDF does not show the XML's invoice: the term (BT-1, BT-115, …) and a sentence. */
export interface NotShown {
  clause: string;
  message: string;
}

const SUMMATION = 'SupplyChainTradeTransaction/ApplicableHeaderTradeSettlement/SpecifiedTradeSettlementHeaderMonetarySummation';

/** BT-1, BT-115, BT-112 and BT-109 as the XML has them (null when absent). */
export function valuesToShow(tree: CiiTree): ShownValues {
  const number = one(tree.root, 'ExchangedDocument/ID');
  const amount = (name: string) => {
    const node = all(tree.root, `${SUMMATION}/${name}`)[0];
    return node ? str(node).trim() : null;
  };
  return {
    number: number ? str(number).trim() : null,
    due: amount('DuePayableAmount'),
    grandTotal: amount('GrandTotalAmount'),
    netTotal: amount('TaxBasisTotalAmount'),
  };
}

/** An amount in cents, as a PDF prints it (without the sign a credit note may leave out); null when it has more decimals. */
function cents(amount: Dec | null): bigint | null {
  if (amount === null || amount.s > 2) return null;
  const v = amount.v * 10n ** BigInt(2 - amount.s);
  return v < 0n ? -v : v;
}

/** The digits an amount prints with (`630.00` → `63000`): the page checks every node holding them for covering. */
export function amountDigits(amount: string | null): string {
  const c = cents(dec(amount ?? undefined));
  return c === null ? '' : c.toString().padStart(3, '0');
}

/** How long after a label its value may be printed on the same line (label and value in two table cells). */
const AFTER_LABEL = 60;

/** Amounts printed on the same line right after a label of the amount due, when they differ from `due`. */
function otherAmountsDue(shown: ShownInvoice, due: bigint, dueText: string): NotShown[] {
  const found: NotShown[] = [];
  for (const { label, end } of labelsIn(shown.text, 'BT-115', shown.lang)) {
    const after = shown.text.slice(end, end + AFTER_LABEL).split('\n')[0] ?? '';
    const first = amountsIn(after)[0];
    // Only the label's own value: a number before it (a date, a percentage) means it is not the amount's place.
    if (!first || /\d/.test(after.slice(0, first.index))) continue;
    if (first.cents === due) continue;
    found.push({
      clause: 'BT-115',
      message: `the PDF prints ${first.written.trim()} as its amount due ("${spaced(label)}"), while ${FACTUR_X_FILE_NAME}'s amount due (BT-115) is ${dueText}: a reader would pay another amount than the XML says`,
    });
    if (found.length >= 5) break;
  }
  return found;
}

/** A marked element against the XML's value: null when it prints exactly that value. */
function markedProblem(term: string, printed: string | null, expected: string): NotShown | null {
  const where = `the element marked data-bt="${term}"`;
  if (printed === null) {
    return {
      clause: term,
      message: `${where} is not printed visibly, so the PDF does not show ${term} ${expected.slice(0, 80)}`,
    };
  }
  const text = spaced(printed).trim();
  if (term === 'BT-1') {
    if (text === spaced(expected).trim()) return null;
    return {
      clause: term,
      message: `${where} prints "${text.slice(0, 80)}", while ${FACTUR_X_FILE_NAME}'s invoice number (BT-1) is "${expected.slice(0, 80)}"`,
    };
  }
  const want = cents(dec(expected));
  const amounts = amountsIn(text);
  // Exactly one amount, nothing else numeric: a currency sign or code may stand beside it.
  const exact = amounts.length === 1 && !/\d/.test(text.replace(amounts[0].written, '')) && amounts[0].cents === want;
  if (exact) return null;
  return {
    clause: term,
    message: `${where} prints "${text.slice(0, 80)}", while ${FACTUR_X_FILE_NAME}'s ${term} is ${show(dec(expected))}`,
  };
}

/** The values the XML names that the PDF does not show a reader, or shows otherwise; none when it shows its invoice. */
export function notShown(values: ShownValues, shown: ShownInvoice): NotShown[] {
  const text = spaced(shown.text);
  const problems: NotShown[] = [];
  const expected: Record<string, string | null | undefined> = {
    'BT-1': values.number,
    'BT-115': values.due,
    'BT-112': values.grandTotal,
    'BT-109': values.netTotal,
  };
  const marked = new Set<string>();
  for (const { term, text: printed } of shown.marked) {
    const key = term.toUpperCase();
    const value = expected[key];
    if (value === undefined || value === null || value === '') continue;
    marked.add(key);
    const problem = markedProblem(key, printed, value);
    if (problem) problems.push(problem);
  }
  if (values.number !== null && values.number !== '' && !marked.has('BT-1') && !text.includes(spaced(values.number))) {
    problems.push({
      clause: 'BT-1',
      message: `the PDF does not show its invoice number (BT-1) "${values.number.slice(0, 80)}" where a reader sees it: it may be another invoice's XML, or the number is hidden, off the page or too small to read`,
    });
  }
  const due = dec(values.due ?? undefined);
  if (due !== null) {
    const c = cents(due);
    const shownDue = c !== null && amountsIn(text).some((a) => a.cents === c);
    if (!marked.has('BT-115') && !shownDue) {
      problems.push({
        clause: 'BT-115',
        message: `the PDF does not show its amount due (BT-115) ${show(due)} where a reader sees it: it may be another invoice's XML, or the amount is hidden, off the page or too small to read`,
      });
    }
    if (c !== null) problems.push(...otherAmountsDue(shown, c, show(due)));
  }
  return problems;
}
