/**
 * Assembling from the command line (`pageworks assemble`, a real process with its own Chromium) and from
 * the client (`RenderClient.assemble` against the render service on a port): the PDF as the API makes
 * it, the same claims (X-Render-Claims, the client's `claims`, the CLI's claims line) and the same errors,
 * naming the part.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { RenderApiError, RenderClient } from '../../src/client/index.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { manyPagesPdf } from '../helpers/hostile-inputs.js';
import { PAGEWORKS } from '../helpers/pageworks-command.js';
import { noDns } from '../helpers/render.js';
import { page, pageCount, pageTexts, tinyPdf } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-assemble-cli-'));
const body = { parts: [{ html: page('Cover letter', 'Dear customer') }, { pdf: tinyPdf('Statement March').toString('base64') }] };
const INVOICE_XML = fs.readFileSync(path.join(ROOT, 'test/fixtures/factur-x/en16931-invoice.xml'));
/** A Factur-X EN 16931 invoice (its XML as a data: attachment, so no network) and an archival annex: PDF/A-3b both. */
const facturX = {
  parts: [
    {
      html: `<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>Facture PW-2026-0142</title>
<meta name="factur-x" content="EN 16931">
<link rel="attachment" href="data:application/xml;base64,${INVOICE_XML.toString('base64')}" title="factur-x.xml">
</head><body><h1>Facture PW-2026-0142</h1><p>Boulangerie Martin, 4 avenue Parmentier, 75011 Paris</p>
<table><tr><th>Article</th><th>Qté</th><th>Montant</th></tr><tr><td>Logo design</td><td>1</td><td>450,00 €</td></tr>
<tr><td>Business cards, box of 250</td><td>2</td><td>75,00 €</td></tr></table>
<p>Total TTC : 630,00 € (TVA 20 % : 105,00 €)</p></body></html>`,
    },
    {
      html: '<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>Annexe</title><meta name="pdf-profile" content="PDF/A-3b"></head><body><p>Conditions générales</p></body></html>',
    },
  ],
};

/**
 * Under tsx a PDF worker's first Factur-X check compiles the checker (seconds on a busy machine; the built
 * worker does it before it is ready), and the claim is withheld past the deadline. These runs judge the
 * claim, not the machine's load: their PDF work gets 30 s.
 */
const UNDER_TSX = { PDF_WORK_TIMEOUT_MS: '30000' };

function cli(args: string[], input?: string, env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [...PAGEWORKS, 'assemble', ...args], {
    // From the repository (tsx resolves from there when the sources run); files by absolute path.
    cwd: ROOT,
    input,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PAGEWORKS_DATA_DIR: work, LOG_LEVEL: 'warn', ...UNDER_TSX, ...env },
    timeout: 90_000,
  });
}

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('pageworks assemble', () => {
  it('assembles a body file into OUT.pdf, and stdin into stdout', () => {
    fs.writeFileSync(path.join(work, 'statement.json'), JSON.stringify(body));
    const out = path.join(work, 'statement.pdf');
    const file = cli([path.join(work, 'statement.json'), '-o', out]);
    expect(file.status, file.stderr.toString()).toBe(0);
    expect(file.stderr.toString()).toBe(`wrote ${out} (${fs.statSync(out).size} bytes)\n`);
    const pdf = fs.readFileSync(path.join(work, 'statement.pdf'));
    expect(pageCount(pdf)).toBe(2);
    expect(pageTexts(pdf)[1]).toContain('Statement March');

    const piped = cli(['-', '-o', '-'], JSON.stringify(body));
    expect(piped.status, piped.stderr.toString()).toBe(0);
    expect(pageCount(piped.stdout)).toBe(2);
  }, 180_000);

  it('says what the assembly claims on a line of its own, as X-Render-Claims does (the run above claims none: no line)', () => {
    fs.writeFileSync(path.join(work, 'invoice.json'), JSON.stringify(facturX));
    const out = path.join(work, 'invoice.pdf');
    const run = cli([path.join(work, 'invoice.json'), '-o', out]);
    expect(run.status, run.stderr.toString()).toBe(0);
    expect(run.stderr.toString()).toBe(
      `pageworks assemble: claims PDF/A-3b, Factur-X\nwrote ${out} (${fs.statSync(out).size} bytes)\n`,
    );
  }, 180_000);

  it('--stamp numbers every page and --split parts writes a zip of a PDF per part, as the API would', () => {
    fs.writeFileSync(
      path.join(work, 'batch.json'),
      JSON.stringify({ parts: [{ ...body.parts[0], title: 'Letter' }, body.parts[1]] }),
    );
    fs.writeFileSync(
      path.join(work, 'footer.html'),
      '<div style="position:absolute;bottom:20pt;right:30pt">Page {{page}} of {{pages}}</div>',
    );
    const run = cli([path.join(work, 'batch.json'), '--stamp', path.join(work, 'footer.html'), '--split', 'parts']);
    expect(run.status, run.stderr.toString()).toBe(0);
    const zip = path.join(work, 'batch.zip');
    expect(run.stderr.toString()).toBe(`wrote ${zip} (${fs.statSync(zip).size} bytes)\n`);
    const names = spawnSync('zipinfo', ['-1', zip], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
    expect(names).toEqual(['Letter.pdf', 'Statement March.pdf']);
    spawnSync('unzip', ['-q', '-o', zip, '-d', path.join(work, 'batch')]);
    expect(pageTexts(fs.readFileSync(path.join(work, 'batch', 'Letter.pdf')))[0]).toContain('Page 1 of 2');
    expect(pageTexts(fs.readFileSync(path.join(work, 'batch', 'Statement March.pdf')))[0]).toContain('Page 2 of 2');
    const bad = cli([path.join(work, 'batch.json'), '--split', '0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.toString()).toContain('--split needs "parts" or a number of pages of at least 1, got "0"');
  }, 180_000);

  it('works on PDFs within the PDF_WORK_* limits of its environment, as the service does', () => {
    // Reading 300,000 pages takes seconds: past the 0.1 s asked for, within the 5 s of the default.
    const long = path.join(work, 'long.json');
    fs.writeFileSync(long, JSON.stringify({ parts: [{ pdf: manyPagesPdf(300_000).toString('base64') }] }));
    const run = cli([long, '-o', path.join(work, 'long.pdf')], undefined, { PDF_WORK_TIMEOUT_MS: '100' });
    expect(run.status).toBe(1);
    expect(run.stderr.toString()).toMatch(/took longer than 0\.1 s \(PDF_WORK_TIMEOUT_MS\)/);
  }, 180_000);

  it('--help says what it takes; a bad part exits 2 naming it; no input exits 2', () => {
    const help = cli(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout.toString()).toContain(
      'Usage:\n  pageworks assemble BODY.json|- [-o OUT.pdf] [--stamp STAMP.html] [--split parts|N] [--strict]\n',
    );
    // The "more" the synopsis's note promises: what the body takes, and each flag.
    expect(help.stdout.toString()).toContain('Assembles the parts of BODY.json (the body of POST /v1/assemble');
    expect(help.stdout.toString()).toContain('  --split parts|N        a zip of PDFs: one per part, or one per N pages');
    fs.writeFileSync(path.join(work, 'bad.json'), JSON.stringify({ parts: [{ html: '<p>x</p>' }, { pdf: 'R0lGODlh' }] }));
    const bad = cli([path.join(work, 'bad.json')]);
    expect(bad.status).toBe(2);
    expect(bad.stderr.toString()).toBe(
      'pageworks assemble: INVALID_REQUEST: parts[1]: not a PDF (its data does not start with %PDF-)\n',
    );
    const none = cli([]);
    expect(none.status).toBe(2);
    expect(none.stderr.toString()).toMatch(/^pageworks assemble: missing BODY\.json/);
  }, 180_000);
});

describe('RenderClient.assemble', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  let client: RenderClient;
  let key: string;

  beforeAll(async () => {
    core = await createTestCore({ RENDER_CONCURRENCY: '1', ...UNDER_TSX });
    app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    key = (await createKey(core, 'render')).key;
    client = new RenderClient({ baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, apiKey: key });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    if (core) await closeTestCore(core);
  });

  it('resolves with the PDF, its render id and warning count; a bad part rejects with the code and the part', async () => {
    const pdf = await client.assemble(body);
    expect(pageCount(pdf)).toBe(2);
    expect(pdf.renderId).toMatch(/^rnd_/);
    expect(pdf.warnings).toBe(0);
    const report = await client.getRender(pdf.renderId);
    expect(report.part_count).toBe(2);

    expect(pdf.claims).toEqual([]);
    // A split resolves with the zip's bytes, its files named as the API names them.
    const zip = await client.assemble({ ...body, split: 'parts' });
    expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
    fs.writeFileSync(path.join(work, 'client.zip'), zip);
    expect(
      spawnSync('zipinfo', ['-1', path.join(work, 'client.zip')], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean),
    ).toEqual(['Cover letter.pdf', 'Statement March.pdf']);

    const failure = await client.assemble({ parts: [{ pdf: tinyPdf('x').toString('base64').slice(0, 40) }] }).catch((e) => e);
    expect(failure).toBeInstanceOf(RenderApiError);
    expect((failure as RenderApiError).code).toBe('PART_FAILED');
    expect((failure as RenderApiError).message).toMatch(/^parts\[0\]: /);
  }, 60_000);

  it("says what the assembly claims: X-Render-Claims, the client's claims and the render record agree", async () => {
    const invoice = await client.assemble(facturX);
    expect(invoice.warnings).toBe(0);
    expect(invoice.claims).toEqual(['PDF/A-3b', 'Factur-X']);
    expect((await client.getRender(invoice.renderId)).claims).toEqual(['PDF/A-3b', 'Factur-X']);
    const res = await app.inject({
      method: 'POST',
      url: '/v1/assemble',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify(facturX),
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['x-render-claims']).toBe('PDF/A-3b, Factur-X');
    const plain = await app.inject({
      method: 'POST',
      url: '/v1/assemble',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['x-render-claims']).toBeUndefined();
  }, 120_000);

  it('does not claim PDF/A when a part has a page larger than PDF/A allows, and names the part and its page', async () => {
    const wide = facturX.parts[1].html.replace('</head>', '<style>@page { size: 250in 11in }</style></head>');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/assemble',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ parts: [facturX.parts[1], { html: wide }] }),
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['x-render-claims']).toBeUndefined();
    const report = await client.getRender(String(res.headers['x-render-id']));
    expect(report.claims).toEqual([]);
    expect(report.warnings).toContainEqual(
      expect.objectContaining({ kind: 'conformance', profile: 'PDF/A-3b', clause: '6.1.13-11', part: 'parts[1]' }),
    );
    const size = report.warnings.find((w) => w.kind === 'conformance' && w.clause === '6.1.13-11');
    expect(size?.message).toBe(
      'parts[1]: Page 1 is 18,000 × 792 units (250 in × 11 in), and PDF/A allows pages of at most 14,400 units ' +
        "(200 in, 5.08 m) on a side: give it a smaller size (CSS @page size, or the render's width and height)",
    );
  }, 120_000);
});
