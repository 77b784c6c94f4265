/**
 * The EN 16931 business rules and the "XML is the invoice the PDF shows" check, on the EN 16931 test
 * invoice and variants of it that still pass the XSD: one per rule family (sums, VAT categories,
 * mandatory fields), and the amount due written in the ways invoices print it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkInvoice, examineInvoice } from '../../src/pdf/factur-x/check-invoice.js';
import { planFacturX } from '../../src/pdf/factur-x/factur-x.js';
import { cents, dec, show } from '../../src/pdf/factur-x/rules/decimal.js';
import { EN16931_RULES } from '../../src/pdf/factur-x/rules/en16931.js';
import { notShown, type ShownValues } from '../../src/pdf/factur-x/shown-invoice.js';

const text = (name: string) => readFileSync(new URL(`../fixtures/factur-x/${name}`, import.meta.url), 'utf8');
const bytes = (s: string) => new TextEncoder().encode(s);
const SAMPLE = text('en16931-invoice.xml');
const element = 'link[rel="attachment"][title="factur-x.xml"]';
const SHOWN = 'Facture PW-2026-0142 … Total TTC : 630,00 €';
/** A page that shows `text` to a reader, in French, marking nothing. */
const shownAs = (text: string) => async () => ({ text, lang: 'fr', marked: [] });
/** What a page showing `text` (in English) lacks of `values`. */
const missingFromText = (values: ShownValues, text: string) => notShown(values, { text, lang: 'en', marked: [] });

/** The sample with `from` replaced by `to` (exactly once, so a typo in a test cannot pass unnoticed). */
function variant(from: string, to: string): Uint8Array {
  expect(SAMPLE.split(from)).toHaveLength(2);
  return bytes(SAMPLE.replace(from, to));
}

describe('the rule table', () => {
  it('holds each rule of the Schematron once, with its words', () => {
    const ids = EN16931_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(200);
    expect(EN16931_RULES.find((r) => r.id === 'BR-CO-15')?.words).toBe(
      'Invoice total amount with VAT (BT-112) = Invoice total amount without VAT (BT-109) + Invoice total VAT amount (BT-110).',
    );
  });

  it('rounds as the Schematron does: half up to the cent, on exact decimals', () => {
    expect(['0.125', '-0.125', '2.675', '0.3'].map((x) => show(cents(dec(x) as never)))).toEqual([
      '0.13',
      '-0.12',
      '2.68',
      '0.30',
    ]);
  });
});

describe('an XML valid against the XSD that breaks one business rule', () => {
  it('sums: a grand total that is not basis + VAT fails BR-CO-15 with the values', async () => {
    const xml = variant('<ram:GrandTotalAmount>630.00', '<ram:GrandTotalAmount>640.00');
    const { problems } = await examineInvoice(
      bytes(new TextDecoder().decode(xml).replace('<ram:DuePayableAmount>630.00', '<ram:DuePayableAmount>640.00')),
      'EN 16931',
    );
    expect(problems).toEqual([
      {
        clause: 'BR-CO-15',
        message:
          'it breaks the EN 16931 business rule BR-CO-15: Invoice total amount with VAT (BT-112) = Invoice total amount without VAT (BT-109) + Invoice total VAT amount (BT-110). (BT-112 640.00 ≠ BT-109 525.00 + BT-110 105.00)',
      },
    ]);
  });

  it('VAT categories: an exemption reason on standard rated VAT fails BR-S-10', async () => {
    const xml = variant(
      '<ram:TypeCode>VAT</ram:TypeCode>\n        <ram:BasisAmount>',
      '<ram:TypeCode>VAT</ram:TypeCode>\n        <ram:ExemptionReason>Exonération</ram:ExemptionReason>\n        <ram:BasisAmount>',
    );
    expect((await examineInvoice(xml, 'EN 16931')).problems.map((p) => p.clause)).toEqual(['BR-S-10']);
  });

  it('mandatory fields: an empty invoice number fails BR-02', async () => {
    const xml = variant('<ram:ID>PW-2026-0142</ram:ID>', '<ram:ID></ram:ID>');
    expect((await examineInvoice(xml, 'EN 16931')).problems.map((p) => p.clause)).toEqual(['BR-02']);
  });

  it('claims nothing, and names the rule, when planned for a PDF', async () => {
    const xml = variant('<ram:CalculatedAmount>105.00', '<ram:CalculatedAmount>104.00');
    const plan = await planFacturX({ level: 'EN 16931', xml, element, linked: true, readShown: shownAs(SHOWN) }, []);
    expect(plan.extraClaim).toBeNull();
    expect(plan.issues.map((i) => [i.profile, i.clause])).toEqual([
      ['Factur-X', 'BR-CO-14'],
      // BR-CO-17 allows ±1 inclusive, BR-S-09 ±1 exclusive: a VAT 1.00 off fails only the latter
      ['Factur-X', 'BR-S-09'],
    ]);
    expect(plan.issues[0]?.message).toMatch(
      /^factur-x\.xml is not a Factur-X EN 16931 invoice, so the PDF does not claim Factur-X: it breaks the EN 16931 business rule BR-CO-14: .* \(BT-110 105\.00 ≠ Σ BT-117 104\.00\)$/,
    );
  });

  it('the MINIMUM level is held only to the rules that apply to its data', async () => {
    expect(await checkInvoice(bytes(text('minimum-invoice.xml')), 'MINIMUM')).toBeNull();
  });
});

describe('the XML is the invoice the PDF shows', () => {
  const values = { number: 'PW-2026-0142', due: '1234.56' };

  it('finds the amount due however it is written', () => {
    for (const shown of [
      '1234.56',
      '1234,56',
      '1,234.56',
      '1.234,56',
      '1 234,56',
      '1\u00a0234,56 €',
      '1\u202f234,56\u00a0EUR',
      "CHF 1'234.56",
      '€1,234.56',
      'Total:1234.56EUR',
    ]) {
      expect(missingFromText(values, `Invoice PW-2026-0142\n${shown}`), shown).toEqual([]);
    }
  });

  it('says which value the PDF lacks', () => {
    expect(missingFromText(values, 'Invoice PW-2026-0142, total 1234.50 €, 12 345,60').map((m) => m.clause)).toEqual(['BT-115']);
    expect(missingFromText(values, 'Invoice PW-2026-0143, total 1 234,56 €').map((m) => m.clause)).toEqual(['BT-1']);
    expect(missingFromText(values, 'Invoice 1.234.56 PW-2026-01420').map((m) => m.clause)).toEqual(['BT-115']);
  });

  it("another invoice's XML: no claim, and both values named", async () => {
    const plan = await planFacturX(
      {
        level: 'EN 16931',
        xml: bytes(SAMPLE),
        element,
        linked: true,
        readShown: shownAs('Facture PW-2026-0999\nTotal TTC : 1 234,56 €'),
      },
      [],
    );
    expect(plan.extraClaim).toBeNull();
    expect(plan.issues.map((i) => [i.clause, i.message])).toEqual([
      [
        'BT-1',
        'factur-x.xml is not the invoice this PDF shows, so the PDF does not claim Factur-X: the PDF does not show its invoice number (BT-1) "PW-2026-0142" where a reader sees it: it may be another invoice\'s XML, or the number is hidden, off the page or too small to read',
      ],
      [
        'BT-115',
        "factur-x.xml is not the invoice this PDF shows, so the PDF does not claim Factur-X: the PDF does not show its amount due (BT-115) 630.00 where a reader sees it: it may be another invoice's XML, or the amount is hidden, off the page or too small to read",
      ],
    ]);
  });
});
