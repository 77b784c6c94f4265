/**
 * What a document declares in its markup, as the render reads it: an unknown profile or level is a
 * warning (never a 400), attachments come through the egress policy (a refused or failed one is a
 * warning, and a refused one never reaches its server), and a document that declares nothing prints
 * as before, claiming nothing.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportEntry } from '../../src/report/report.js';
import { VERSION } from '../../src/version.js';
import { postRender } from '../helpers/render.js';
import { pdfProperties } from '../render/pdf-tools.js';
import { type DeclarationsApp, startDeclarationsApp, startFileServer } from './declarations-app.js';

const notCii = readFileSync(new URL('../fixtures/factur-x/not-cii.xml', import.meta.url));
let open: DeclarationsApp;
let closed: DeclarationsApp;
let files: Awaited<ReturnType<typeof startFileServer>>;

beforeAll(async () => {
  [open, closed, files] = await Promise.all([
    startDeclarationsApp({ allowLoopback: true }),
    startDeclarationsApp({ allowLoopback: false }),
    startFileServer({ '/not-cii.xml': { type: 'application/xml', body: notCii } }),
  ]);
});
afterAll(async () => {
  await Promise.all([open?.close(), closed?.close(), files?.close()]);
});

const page = (head: string) =>
  `<!doctype html><html lang="en"><head><title>Invoice</title>${head}</head><body><h1>Invoice</h1></body></html>`;

async function warningsOf(ctx: DeclarationsApp, head: string): Promise<ReportEntry[]> {
  const res = await postRender(ctx.app, ctx.key, { html: page(head) });
  expect(res.statusCode).toBe(200);
  const { warnings } = ctx.recordOf(res.headers['x-render-id']);
  expect(res.headers['x-render-warnings']).toBe(String(warnings.length));
  return warnings;
}

describe('declared profiles', () => {
  it('an unknown one is a warning that lists what Pageworks makes, and the known ones still count', async () => {
    const warnings = await warningsOf(open, '<meta name="PDF-Profile" content="PDF/A-1b, pdf/ua-1">');
    expect(warnings).toEqual([
      {
        kind: 'conformance',
        profile: 'PDF/A-1b',
        clause: 'pdf-profile',
        element: 'meta[name="pdf-profile"]',
        message:
          '"PDF/A-1b" is not a profile Pageworks makes (PDF/A-2b, PDF/A-2u, PDF/A-3b, PDF/A-3u, PDF/UA-1): it was left out',
      },
    ]);
  });

  it('only unknown ones: the PDF is made as without a declaration, its Info naming Pageworks', async () => {
    const res = await postRender(open.app, open.key, { html: page('<meta name="pdf-profile" content="PDF/X-4">') });
    expect(res.headers['x-render-warnings']).toBe('1');
    const info = pdfProperties(res.rawPayload);
    expect([info.Title, info.Creator, info.Producer]).toEqual(['Invoice', `Pageworks ${VERSION}`, `Pageworks ${VERSION}`]);
    expect(res.rawPayload.toString('latin1')).not.toContain('<x:xmpmeta');
  });

  it("are read as written whatever the page's scripts did to its DOM methods, and past ten the rest are counted", async () => {
    const head =
      '<meta name=" PDF-Profile " content="  pdf/a-2B ">' +
      '<meta name="pdf-profile" content="PDF/A-2b">'.repeat(11) +
      '<script>Element.prototype.getAttribute = () => "PDF/UA-1"; Document.prototype.querySelector = () => null;' +
      'HTMLCollection.prototype.item = () => null;</script>';
    const res = await postRender(open.app, open.key, { html: page(head) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-render-claims']).toBe('PDF/A-2b');
    expect(open.recordOf(res.headers['x-render-id']).warnings.map((w) => w.message)).toEqual([
      '2 more declarations (pdf-profile, factur-x, attachments) than a document may make (10 of each) were left out',
    ]);
  });

  it('two PDF/A levels keep the first and say so', async () => {
    const warnings = await warningsOf(
      open,
      '<meta name="pdf-profile" content="PDF/A-3b"><meta name="pdf-profile" content="PDF/A-2u">',
    );
    expect(warnings.map((w) => w.message)).toEqual([
      'A PDF meets one PDF/A level: PDF/A-3b was declared first, so PDF/A-2u was left out',
    ]);
  });

  it('an unknown Factur-X level is a warning, not a claim', async () => {
    const warnings = await warningsOf(open, '<meta name="factur-x" content="XRECHNUNG">');
    expect(warnings).toMatchObject([{ kind: 'conformance', profile: 'Factur-X', element: 'meta[name="factur-x"]' }]);
    expect(warnings[0].message).toMatch(/^"XRECHNUNG" is not a Factur-X level/);
  });
});

describe('attachments', () => {
  it('one its server does not have is a resource_failed warning', async () => {
    const warnings = await warningsOf(open, `<link rel="attachment" href="${files.base}/terms.pdf" title="terms.pdf">`);
    expect(warnings).toEqual([
      {
        kind: 'resource_failed',
        url: `${files.base}/terms.pdf`,
        status: 404,
        message: 'terms.pdf was not loaded: its server answered HTTP 404',
      },
    ]);
  });

  it('one on an address the egress policy refuses is a resource_blocked warning, and its server never hears of it', async () => {
    const before = files.requests;
    const warnings = await warningsOf(closed, `<link rel="Attachment" href="${files.base}/not-cii.xml" title="data.xml">`);
    expect(warnings).toEqual([
      {
        kind: 'resource_blocked',
        url: `${files.base}/not-cii.xml`,
        reason: 'private_address',
        message:
          'not-cii.xml was not loaded: its address 127.0.0.1 is loopback, the machine that renders the document; EGRESS_ALLOW=127.0.0.1/32 lets an operator allow it',
      },
    ]);
    expect(files.requests).toBe(before);
  });
});

describe('a Factur-X declaration', () => {
  it('without a factur-x.xml attachment is a warning that says how to add one', async () => {
    const warnings = await warningsOf(open, '<meta name="factur-x" content="EN 16931">');
    expect(warnings).toMatchObject([{ kind: 'conformance', profile: 'Factur-X', clause: 'factur-x.xml' }]);
    expect(warnings[0].message).toContain('<link rel="attachment" href="…" title="factur-x.xml">');
  });

  it('whose factur-x.xml cannot be loaded says so beside the failed request', async () => {
    const head = `<meta name="factur-x" content="BASIC"><link rel="attachment" href="${files.base}/gone.xml" title="factur-x.xml">`;
    const warnings = await warningsOf(open, head);
    expect(warnings.map((w) => w.message)).toEqual([
      'gone.xml was not loaded: its server answered HTTP 404',
      'factur-x.xml could not be loaded (the warning about it says why): the PDF does not claim Factur-X',
    ]);
  });

  it('whose XML is not a CII invoice is a warning naming the root it found', async () => {
    const head = `<meta name="factur-x" content="EN 16931"><link rel="attachment" href="${files.base}/not-cii.xml" title="factur-x.xml">`;
    const warnings = await warningsOf(open, head);
    expect(warnings).toMatchObject([
      { kind: 'conformance', profile: 'Factur-X', clause: 'CII', element: 'link[rel="attachment"][title="factur-x.xml"]' },
    ]);
    expect(warnings[0].message).toBe(
      'factur-x.xml is not a Factur-X EN 16931 invoice, so the PDF does not claim Factur-X: it is not a Cross Industry Invoice: ' +
        'its root element is {urn:oasis:names:specification:ubl:schema:xsd:Invoice-2}Invoice, not rsm:CrossIndustryInvoice',
    );
  });
});
