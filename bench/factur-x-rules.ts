/**
 * What checking a Factur-X invoice adds to its render: the XML read against its level's XSD, the EN 16931
 * business rules, and the agreement of the XML with the text the PDF shows (invoice number and amount due),
 * which is all `planFacturX` does beyond a plain PDF/A-3b render. Generated valid invoices of 3 and 500 lines
 * (the suite's generator), warm, median of repeated runs (goals: ≤ 150 ms and ≤ 500 ms).
 */

import { examineInvoice } from '../src/pdf/factur-x/check-invoice.js';
import { planFacturX } from '../src/pdf/factur-x/factur-x.js';
import { notShown } from '../src/pdf/factur-x/shown-invoice.js';
import { prng } from '../test/helpers/prng.js';
import { validInvoice } from '../test/pdf/factur-x-rules/generate-invoices.js';
import { invoiceXml, money } from '../test/pdf/factur-x-rules/invoice-model.js';
import { fmt, heading, median, verdict } from './stats.js';

const RUNS = Number(process.env.FACTURX_BENCH_RUNS ?? 15);

/** Milliseconds of each of `runs` calls of `fn`, after two warm-up calls. */
async function timings(runs: number, fn: () => Promise<unknown>): Promise<number[]> {
  await fn();
  await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return out;
}

/** Runs the Factur-X checks' bench: one line per invoice size, with the rules' own share beside the whole. */
export async function runFacturXRulesBench(): Promise<void> {
  heading(`Factur-X checks: XSD + EN 16931 rules + the PDF's text agreeing, median of ${RUNS} warm runs`);
  for (const [lines, goal] of [
    [3, 150],
    [500, 500],
  ] as const) {
    const model = validInvoice(prng(lines), lines, lines);
    const xml = new TextEncoder().encode(invoiceXml(model));
    // The text a printed invoice shows: its lines, then the number and the amount due.
    const shownText = [
      `Invoice ${model.number}`,
      ...model.lines.map((l) => `${l.name} ${l.qty} ${money(l.price ?? 0)}`),
      `Amount due ${money(model.totals.due)} ${model.currency}`,
    ].join('\n');
    const shownInvoice = { text: shownText, lang: 'en', marked: [] };
    const readShown = async () => shownInvoice;
    const declaration = { level: 'EN 16931' as const, xml, element: 'link[rel="attachment"]', linked: true, readShown };
    const plan = await planFacturX(declaration, ['PDF/A-3b']);
    if (plan.extraClaim === null) throw new Error(`the ${lines}-line invoice is not claimed: ${JSON.stringify(plan.issues)}`);
    const whole = median(await timings(RUNS, () => planFacturX(declaration, ['PDF/A-3b'])));
    const examine = median(await timings(RUNS, () => examineInvoice(xml, 'EN 16931')));
    const { shown } = await examineInvoice(xml, 'EN 16931');
    if (shown === null) throw new Error(`the ${lines}-line invoice has no values to show`);
    const agreement = median(await timings(RUNS, async () => notShown(shown, shownInvoice)));
    process.stdout.write(
      `${String(lines).padStart(4)} lines, ${fmt(xml.length / 1024, 1, 6)} KiB XML: all checks ${fmt(whole, 1)} ms ` +
        `(XSD + rules ${fmt(examine, 1)} ms; agreement ${fmt(agreement, 2)} ms) — goal ≤ ${goal} ms: ${verdict(whole <= goal)}\n`,
    );
  }
}
