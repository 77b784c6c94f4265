/**
 * An invoice's XML that points a receiver's XML tool at a remote address (an xml-stylesheet, an
 * xsi:schemaLocation) is a conformance warning naming it, through POST /v1/render, and the PDF claims no
 * Factur-X; a schema location that stays in the file's own folder is claimed as before.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportEntry } from '../../src/report/report.js';
import { postRender } from '../helpers/render.js';
import { type DeclarationsApp, startDeclarationsApp, startFileServer } from './declarations-app.js';

const XML = fs.readFileSync(new URL('../fixtures/factur-x/en16931-invoice.xml', import.meta.url), 'utf8');
const ROOT = '<rsm:CrossIndustryInvoice ';
const XSI = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ';
const VARIANTS: Record<string, string> = {
  stylesheet: XML.replace('?>\n', '?>\n<?xml-stylesheet type="text/xsl" href="https://tracker.example/invoice.xsl"?>\n'),
  'schema-location': XML.replace(
    ROOT,
    `${ROOT}${XSI}xsi:schemaLocation="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100 http://schemas.example/cii.xsd" `,
  ),
  'no-namespace': XML.replace(ROOT, `${ROOT}${XSI}xsi:noNamespaceSchemaLocation="//schemas.example/cii.xsd" `),
  'local-schema': XML.replace(
    ROOT,
    `${ROOT}${XSI}xsi:schemaLocation="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100 CrossIndustryInvoice_100pD16B.xsd" `,
  ),
};

let ctx: DeclarationsApp;
let files: Awaited<ReturnType<typeof startFileServer>>;
beforeAll(async () => {
  [ctx, files] = await Promise.all([
    startDeclarationsApp({ allowLoopback: true }),
    startFileServer(
      Object.fromEntries(Object.entries(VARIANTS).map(([n, body]) => [`/${n}.xml`, { type: 'application/xml', body }])),
    ),
  ]);
});
afterAll(async () => {
  await Promise.all([ctx?.close(), files?.close()]);
});

async function render(variant: string) {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Invoice PW-2026-0142</title>
<meta name="factur-x" content="EN 16931"><link rel="attachment" href="${files.base}/${variant}.xml" title="factur-x.xml">
</head><body><h1>Invoice PW-2026-0142</h1><p>Amount due: 630.00 EUR</p></body></html>`;
  const res = await postRender(ctx.app, ctx.key, { html });
  expect(res.statusCode).toBe(200);
  const warnings = ctx.recordOf(res.headers['x-render-id']).warnings as ReportEntry[];
  return {
    claimed: res.rawPayload.toString('latin1').includes('urn:factur-x:pdfa:CrossIndustryDocument'),
    warnings: warnings.map((w) => (w.kind === 'conformance' ? [w.profile, w.clause, w.message] : [w.kind])),
  };
}

describe('remote references in the XML', () => {
  for (const [variant, named] of [
    ['stylesheet', 'xml-stylesheet href="https://tracker.example/invoice.xsl"'],
    ['schema-location', 'xsi:schemaLocation="http://schemas.example/cii.xsd"'],
    ['no-namespace', 'xsi:noNamespaceSchemaLocation="//schemas.example/cii.xsd"'],
  ]) {
    it(`${variant}: a warning naming ${named}, no Factur-X`, async () => {
      const { claimed, warnings } = await render(variant);
      expect(claimed).toBe(false);
      expect(warnings).toEqual([
        [
          'Factur-X',
          'XML',
          `factur-x.xml is not a Factur-X EN 16931 invoice, so the PDF does not claim Factur-X: it refers to remote addresses a receiver's XML tool may fetch (${named}): an invoice stands on its own, so remove them`,
        ],
      ]);
    });
  }

  it('a schema location beside the file is no remote address: claimed, no warning', async () => {
    expect(await render('local-schema')).toEqual({ claimed: true, warnings: [] });
  });
});
