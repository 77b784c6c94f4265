import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkInvoice } from '../../src/pdf/factur-x/check-invoice.js';
import { planFacturX } from '../../src/pdf/factur-x/factur-x.js';
import { levelOfGuideline, parseFacturXLevel, relationshipOf } from '../../src/pdf/factur-x/levels.js';

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/factur-x/${name}`, import.meta.url)));
const element = 'link[rel="attachment"][title="factur-x.xml"]';
/** The text of the PDF the fixtures' invoices are shown in (number and amount due of both). */
const SHOWN = 'Facture PW-2026-0142 / PW-2026-0143\nTotal TTC : 630,00 €';
/** A page that shows `text` to a reader, in French, marking nothing. */
const shownAs = (text: string) => async () => ({ text, lang: 'fr', marked: [] });

describe('Factur-X levels', () => {
  it('reads the level names people write', () => {
    expect(
      ['EN 16931', 'en16931', 'comfort', 'BASIC-WL', 'basic wl', 'Minimum', 'EXTENDED', 'XRECHNUNG'].map(parseFacturXLevel),
    ).toEqual(['EN 16931', 'EN 16931', 'EN 16931', 'BASIC WL', 'BASIC WL', 'MINIMUM', 'EXTENDED', null]);
  });

  it('gives MINIMUM and BASIC WL the Data relationship, the invoice levels Alternative', () => {
    expect(['MINIMUM', 'BASIC WL', 'BASIC', 'EN 16931', 'EXTENDED'].map((l) => relationshipOf(l as never))).toEqual([
      'Data',
      'Data',
      'Alternative',
      'Alternative',
      'Alternative',
    ]);
  });

  it('reads the level from the guideline ids of Factur-X 1.0', () => {
    expect(
      [
        'urn:factur-x.eu:1p0:minimum',
        'urn:factur-x.eu:1p0:basicwl',
        'urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic',
        'urn:cen.eu:en16931:2017',
        'urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended',
        'urn:cen.eu:en16931:2017#conformant#urn.cpro.gouv.fr:1p0:extended-ctc-fr',
        'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
      ].map(levelOfGuideline),
    ).toEqual(['MINIMUM', 'BASIC WL', 'BASIC', 'EN 16931', 'EXTENDED', 'EXTENDED', null]);
  });
});

describe('a Factur-X invoice XML', () => {
  it('is accepted when it is a valid EN 16931 CII invoice', async () => {
    expect(await checkInvoice(fixture('en16931-invoice.xml'), 'EN 16931')).toBeNull();
  });

  it('is refused when it is a UBL invoice, not CII', async () => {
    expect(await checkInvoice(fixture('not-cii.xml'), 'EN 16931')).toEqual({
      clause: 'CII',
      message:
        'it is not a Cross Industry Invoice: its root element is {urn:oasis:names:specification:ubl:schema:xsd:Invoice-2}Invoice, not rsm:CrossIndustryInvoice',
    });
  });

  it('is refused with the line and element the XSD names', async () => {
    const problem = await checkInvoice(fixture('xsd-invalid-invoice.xml'), 'EN 16931');
    expect(problem?.clause).toBe('Factur-X_1.07.3_EN16931.xsd');
    expect(problem?.message).toMatch(
      /^it is not valid against the EN 16931 XSD: Element 'ram:DuePayableAmount': This element is not expected\. Expected is one of \( ram:RoundingAmount, ram:GrandTotalAmount \)\. \(line \d+\)$/,
    );
  });

  it('is refused when it is not well-formed, or declares a DOCTYPE', async () => {
    const broken = new TextEncoder().encode('<rsm:CrossIndustryInvoice><a></rsm:CrossIndustryInvoice>');
    expect((await checkInvoice(broken, 'EN 16931'))?.message).toMatch(/^it is not well-formed XML: .+\(line 1\)$/);
    const doctype = new TextEncoder().encode('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>');
    expect((await checkInvoice(doctype, 'EN 16931'))?.clause).toBe('XML');
  });

  it('is refused when its guideline id names another level than the declared one', async () => {
    const problem = await checkInvoice(fixture('en16931-invoice.xml'), 'BASIC');
    expect(problem).toEqual({
      clause: 'BT-24',
      message: 'it names the guideline "urn:cen.eu:en16931:2017" (EN 16931), not the BASIC level the document declares',
    });
  });
});

describe('planning a Factur-X PDF', () => {
  it('makes PDF/A-3b and claims Factur-X with its XMP schema for a valid invoice', async () => {
    const plan = await planFacturX(
      { level: 'EN 16931', xml: fixture('en16931-invoice.xml'), element, linked: true, readShown: shownAs(SHOWN) },
      ['PDF/UA-1'],
    );
    expect(plan.profiles).toEqual(['PDF/A-3b', 'PDF/UA-1']);
    expect(plan.relationship).toBe('Alternative');
    expect(plan.issues).toEqual([]);
    expect(plan.extraClaim?.requires).toEqual(['PDF/A-3b']);
    const values = Object.fromEntries(plan.extraClaim?.extensions[0].properties.map((p) => [p.name, p.value]) ?? []);
    expect(values).toEqual({
      DocumentFileName: 'factur-x.xml',
      DocumentType: 'INVOICE',
      Version: '1.0',
      ConformanceLevel: 'EN 16931',
    });
  });

  it('gives a valid MINIMUM invoice the Data relationship and its level in the XMP', async () => {
    const plan = await planFacturX(
      { level: 'MINIMUM', xml: fixture('minimum-invoice.xml'), element, linked: true, readShown: shownAs(SHOWN) },
      [],
    );
    expect(plan.issues).toEqual([]);
    expect(plan.relationship).toBe('Data');
    expect(plan.extraClaim?.extensions[0].properties.find((p) => p.name === 'ConformanceLevel')?.value).toBe('MINIMUM');
  });

  it('turns a declared PDF/A-2u into PDF/A-3u, and says so', async () => {
    const plan = await planFacturX(
      { level: 'EN 16931', xml: fixture('en16931-invoice.xml'), element, linked: true, readShown: shownAs(SHOWN) },
      ['PDF/A-2u'],
    );
    expect(plan.profiles).toEqual(['PDF/A-3u']);
    expect(plan.issues.map((i) => [i.profile, i.message])).toEqual([
      ['PDF/A-2u', 'A Factur-X invoice is a PDF/A-3 file (PDF/A-2 cannot hold its XML): PDF/A-3u was made instead of PDF/A-2u'],
    ]);
  });

  it('claims nothing for an XML that is not an invoice, and names the attachment', async () => {
    const plan = await planFacturX(
      { level: 'EN 16931', xml: fixture('not-cii.xml'), element, linked: true, readShown: shownAs(SHOWN) },
      [],
    );
    expect(plan.extraClaim).toBeNull();
    expect(plan.profiles).toEqual([]);
    expect(plan.issues).toHaveLength(1);
    expect(plan.issues[0]).toMatchObject({ profile: 'Factur-X', clause: 'CII', element });
    expect(plan.issues[0].message).toMatch(
      /^factur-x\.xml is not a Factur-X EN 16931 invoice, so the PDF does not claim Factur-X: it is not a Cross Industry Invoice/,
    );
  });
});
