/**
 * Factur-X invoices through POST /v1/render: a valid EN 16931 (and MINIMUM) invoice comes back as a
 * PDF/A-3b file that veraPDF accepts, with its XML byte for byte (pdfdetach), the Factur-X XMP schema
 * and its level's AFRelationship; an XML that is not a CII invoice, or fails its level's XSD, is a
 * warning and the PDF claims no Factur-X.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postRender } from '../helpers/render.js';
import { type DeclarationsApp, startDeclarationsApp, startFileServer } from './declarations-app.js';
import { VERAPDF, VERAPDF_SKIPPED, verapdf } from './verapdf.js';

const fixture = (name: string) => fs.readFileSync(new URL(`../fixtures/factur-x/${name}`, import.meta.url));
const LOGO =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

let ctx: DeclarationsApp;
let files: Awaited<ReturnType<typeof startFileServer>>;
/** The PDFs made below, validated together at the end (one veraPDF start). */
const claimedPdfA3b: Record<string, Buffer> = {};

beforeAll(async () => {
  [ctx, files] = await Promise.all([
    startDeclarationsApp({ allowLoopback: true }),
    startFileServer(
      Object.fromEntries([
        ...['en16931-invoice.xml', 'minimum-invoice.xml', 'not-cii.xml', 'xsd-invalid-invoice.xml'].map((n) => [
          `/${n}`,
          { type: 'application/xml', body: fixture(n) },
        ]),
        // valid against the XSD, but its grand total is not basis + VAT (BR-CO-15)
        [
          '/br-co-15.xml',
          {
            type: 'application/xml',
            body: Buffer.from(
              fixture('en16931-invoice.xml')
                .toString('utf8')
                .replace('<ram:GrandTotalAmount>630.00', '<ram:GrandTotalAmount>640.00')
                .replace('<ram:DuePayableAmount>630.00', '<ram:DuePayableAmount>640.00'),
            ),
          },
        ],
      ]),
    ),
  ]);
});
afterAll(async () => {
  await Promise.all([ctx?.close(), files?.close()]);
});

/** An invoice a person reads, declaring Factur-X `level` with its XML at `xml` on the file server. */
const invoice = (level: string, xml: string, number = 'PW-2026-0142', total = '630,00 €') => `<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><title>Facture PW-2026-0142</title>
<meta name="factur-x" content="${level}">
<link rel="attachment" href="${files.base}/${xml}" title="factur-x.xml">
<style>body { font-family: sans-serif } table { border-collapse: collapse } td, th { border: 1px solid #999; padding: 4px }</style>
</head><body>
<img src="${LOGO}" alt="Atelier Lumière" width="60" height="60">
<h1>Facture ${number}</h1>
<p>Boulangerie Martin, 4 avenue Parmentier, 75011 Paris</p>
<table><thead><tr><th>Article</th><th>Qté</th><th>Montant</th></tr></thead>
<tbody><tr><td>Logo design</td><td>1</td><td>450,00 €</td></tr><tr><td>Business cards, box of 250</td><td>2</td><td>75,00 €</td></tr></tbody></table>
<p>Total TTC : ${total} (TVA 20 % : 105,00 €)</p>
</body></html>`;

function withFile<T>(pdf: Buffer, fn: (file: string, dir: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-facturx-'));
  try {
    fs.writeFileSync(path.join(dir, 'invoice.pdf'), pdf);
    return fn(path.join(dir, 'invoice.pdf'), dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The embedded files as pdfdetach saves them, by name. */
function detached(pdf: Buffer): Record<string, Buffer> {
  return withFile(pdf, (file, dir) => {
    const out = path.join(dir, 'out');
    fs.mkdirSync(out);
    execFileSync('pdfdetach', ['-saveall', '-o', out, file]);
    return Object.fromEntries(fs.readdirSync(out).map((n) => [n, fs.readFileSync(path.join(out, n))]));
  });
}

/** The catalog's XMP packet as text ('' when there is none). */
function xmp(pdf: Buffer): string {
  const text = withFile(pdf, (file) =>
    execFileSync('qpdf', ['--qdf', '--object-streams=disable', file, '-'], { maxBuffer: 1 << 26 }),
  ).toString('latin1');
  const start = text.indexOf('<x:xmpmeta');
  return start < 0 ? '' : text.slice(start, text.indexOf('</x:xmpmeta>', start));
}

/** A property's value in the XMP, written as an element or as an attribute. */
function xmpValue(packet: string, property: string): string | undefined {
  return (new RegExp(`${property}>([^<]*)<`).exec(packet) ?? new RegExp(`${property}="([^"]*)"`).exec(packet))?.[1];
}

/** Each file specification's name and AFRelationship, as qpdf reads them. */
function fileSpecs(pdf: Buffer): Array<{ name: string; relationship: string | undefined }> {
  const json = JSON.parse(
    withFile(pdf, (file) =>
      execFileSync('qpdf', ['--json=2', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 1 << 26 }),
    ),
  );
  const specs: Array<{ name: string; relationship: string | undefined }> = [];
  for (const object of Object.values(json.qpdf[1]) as Array<{ value?: Record<string, unknown> }>) {
    const v = object.value;
    if (!v || typeof v !== 'object' || !('/EF' in v)) continue;
    const name = String(v['/UF'] ?? v['/F'] ?? '').replace(/^u:/, '');
    specs.push({ name, relationship: typeof v['/AFRelationship'] === 'string' ? v['/AFRelationship'] : undefined });
  }
  return specs;
}

async function render(html: string, headers: Record<string, string> = {}) {
  const res = await postRender(ctx.app, ctx.key, { html }, headers);
  return { res, warnings: res.statusCode === 200 ? ctx.recordOf(res.headers['x-render-id']).warnings : [] };
}

describe('a valid Factur-X invoice', () => {
  it('EN 16931: PDF/A-3b with factur-x.xml byte for byte, the Factur-X XMP schema and AFRelationship Alternative', async () => {
    const { res, warnings } = await render(invoice('EN 16931', 'en16931-invoice.xml'));
    expect(res.statusCode).toBe(200);
    expect(warnings).toEqual([]);
    expect(res.headers['x-render-warnings']).toBe('0');
    const pdf = res.rawPayload;
    expect(detached(pdf)['factur-x.xml'].equals(fixture('en16931-invoice.xml'))).toBe(true);
    const packet = xmp(pdf);
    expect(
      ['fx:ConformanceLevel', 'fx:DocumentFileName', 'fx:DocumentType', 'fx:Version', 'pdfaid:part', 'pdfaid:conformance'].map(
        (p) => xmpValue(packet, p),
      ),
    ).toEqual(['EN 16931', 'factur-x.xml', 'INVOICE', '1.0', '3', 'B']);
    expect(packet).toContain('urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#');
    expect(fileSpecs(pdf)).toEqual([{ name: 'factur-x.xml', relationship: '/Alternative' }]);
    claimedPdfA3b.en16931 = pdf;
  });

  it('MINIMUM: AFRelationship Data and its level in the XMP', async () => {
    const { res, warnings } = await render(invoice('MINIMUM', 'minimum-invoice.xml', 'PW-2026-0143'));
    expect(warnings).toEqual([]);
    const pdf = res.rawPayload;
    expect(fileSpecs(pdf)).toEqual([{ name: 'factur-x.xml', relationship: '/Data' }]);
    expect(xmpValue(xmp(pdf), 'fx:ConformanceLevel')).toBe('MINIMUM');
    expect(detached(pdf)['factur-x.xml'].equals(fixture('minimum-invoice.xml'))).toBe(true);
    claimedPdfA3b.minimum = pdf;
  });

  it.skipIf(!VERAPDF)('passes veraPDF for PDF/A-3b', () => {
    expect(verapdf(claimedPdfA3b, '3b')).toEqual({ en16931: [], minimum: [] });
  });
  if (!VERAPDF) console.log(VERAPDF_SKIPPED);
});

describe('an XML that is not a Factur-X invoice of its level', () => {
  it('not CII: a conformance warning, and the PDF claims neither Factur-X nor PDF/A', async () => {
    const { res, warnings } = await render(invoice('EN 16931', 'not-cii.xml'));
    expect(res.statusCode).toBe(200);
    expect(warnings.map((w) => (w.kind === 'conformance' ? [w.profile, w.clause] : [w.kind]))).toEqual([['Factur-X', 'CII']]);
    const packet = xmp(res.rawPayload);
    expect(packet).not.toContain('factur-x');
    expect(packet).not.toContain('pdfaid');
  });

  it('failing the EN 16931 XSD: a warning naming the element and line, no Factur-X claim, and 422 when strict', async () => {
    const { res, warnings } = await render(invoice('EN 16931', 'xsd-invalid-invoice.xml'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ kind: 'conformance', profile: 'Factur-X', clause: 'Factur-X_1.07.3_EN16931.xsd' });
    expect(warnings[0].message).toMatch(/Element 'ram:DuePayableAmount': This element is not expected\..*\(line \d+\)$/);
    expect(xmp(res.rawPayload)).not.toContain('factur-x');
    const strict = await render(invoice('EN 16931', 'xsd-invalid-invoice.xml'), { prefer: 'handling=strict' });
    expect(strict.res.statusCode).toBe(422);
    expect(strict.res.json().error.code).toBe('RENDER_INCOMPLETE');
  });

  it('breaking an EN 16931 business rule: a warning naming the rule and its values, no claim, 422 when strict', async () => {
    const { res, warnings } = await render(invoice('EN 16931', 'br-co-15.xml', 'PW-2026-0142', '640,00 €'));
    expect(warnings.map((w) => (w.kind === 'conformance' ? [w.profile, w.clause] : [w.kind]))).toEqual([
      ['Factur-X', 'BR-CO-15'],
    ]);
    expect(warnings[0]?.message).toContain('(BT-112 640.00 ≠ BT-109 525.00 + BT-110 105.00)');
    expect(xmp(res.rawPayload)).not.toContain('factur-x');
    const strict = await render(invoice('EN 16931', 'br-co-15.xml', 'PW-2026-0142', '640,00 €'), { prefer: 'handling=strict' });
    expect(strict.res.statusCode).toBe(422);
  });

  it("another invoice's XML: the PDF shows neither its number nor its amount due, so no claim", async () => {
    const { res, warnings } = await render(invoice('EN 16931', 'en16931-invoice.xml', 'PW-2026-0999', '1 234,56 €'));
    expect(warnings.map((w) => (w.kind === 'conformance' ? [w.profile, w.clause] : [w.kind]))).toEqual([
      ['Factur-X', 'BT-1'],
      ['Factur-X', 'BT-115'],
    ]);
    expect(xmp(res.rawPayload)).not.toContain('factur-x');
  });
});
