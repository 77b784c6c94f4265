/**
 * A PDF carries what its document says about itself (DESIGN.md): title, author, description, keywords
 * and language from the markup, Pageworks as Creator and Producer, and the headings as nested bookmarks
 * landing on their pages — read back with pdfinfo and qpdf from PDFs rendered through the API (and, for
 * a document that navigates, through a pool allowed to reach a loopback server).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CoreDeps, closeCore, createCore } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { loadConfig } from '../../src/config.js';
import { createEgressPolicy } from '../../src/net/policy.js';
import { BrowserPool } from '../../src/render/pool/browser-pool.js';
import { toPrintParams } from '../../src/render/request/options.js';
import { VERSION } from '../../src/version.js';
import { TAMPER_SCRIPT } from '../fixtures/render/tampered-builtins.js';
import { createKey } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { pdfInfo, pdfLang, pdfOutline, pdfPageTexts, pdfProperties, qpdfCheck } from './pdf-tools.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let dataDir: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-test-'));
  const config = loadConfig({ PAGEWORKS_DATA_DIR: dataDir, RENDER_CONCURRENCY: '1', RENDER_TIMEOUT_MS: '20000' });
  core = await createCore(config, pino({ level: 'silent' }));
  app = await buildRenderApp(core, { lookup: noDns });
  key = (await createKey(core, 'render')).key;
});

afterAll(async () => {
  await app?.close();
  if (core) await closeCore(core);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function renderPdf(html: string): Promise<Buffer> {
  const res = await postRender(app, key, { html, options: { format: 'A4' } });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return res.rawPayload;
}

const REPORT = `<!doctype html>
<html lang="sv">
<head>
  <meta charset="utf-8">
  <title>Årsrapport 2026 (utkast) — Zoë</title>
  <meta name="author" content="Zoë Ångström">
  <meta name="description" content="Kvartalssiffror \\ sammanfattning">
  <meta name="keywords" content="日本語, rapport, årsredovisning">
</head>
<body>
  <h1>Del ett</h1><p>Inledning.</p>
  <h2>Intäkter</h2><p>Siffror.</p>
  <h2 style="break-before: page">Kostnader</h2><p>Mer siffror.</p>
  <h1 style="break-before: page">Del två 日本語</h1><p>Utsikter.</p>
  <h2>Framtid</h2><p>Slut.</p>
</body>
</html>`;

describe('PDF properties from the document', () => {
  it('a report with title, author, description, keywords, lang and h1/h2 over three pages carries them all', async () => {
    const pdf = await renderPdf(REPORT);
    expect(pdfInfo(pdf).pages).toBe(3);
    const props = pdfProperties(pdf);
    expect(props.Title).toBe('Årsrapport 2026 (utkast) — Zoë');
    expect(props.Author).toBe('Zoë Ångström');
    expect(props.Subject).toBe('Kvartalssiffror \\ sammanfattning');
    expect(props.Keywords).toBe('日本語, rapport, årsredovisning');
    expect(props.Creator).toBe(`Pageworks ${VERSION}`);
    expect(props.Producer).toBe(`Pageworks ${VERSION}`);
    expect(pdfLang(pdf)).toBe('sv');
    expect(pdfOutline(pdf)).toEqual([
      {
        title: 'Del ett',
        page: 1,
        kids: [
          { title: 'Intäkter', page: 1, kids: [] },
          { title: 'Kostnader', page: 2, kids: [] },
        ],
      },
      { title: 'Del två 日本語', page: 3, kids: [{ title: 'Framtid', page: 3, kids: [] }] },
    ]);
    // The headings are where the outline says they are.
    const pages = pdfPageTexts(pdf);
    expect(pages[1]).toContain('Kostnader');
    expect(pages[2]).toContain('Framtid');
    expect(qpdfCheck(pdf)).toMatchObject({ status: 0 });
  });

  it('a document without title, headings or lang has no title (never about:blank), no outline and no /Lang', async () => {
    const pdf = await renderPdf('<p>Just a paragraph.</p>');
    const props = pdfProperties(pdf);
    expect(props.Title).toBeUndefined();
    expect(JSON.stringify(props)).not.toContain('about:blank');
    expect(props.Author).toBeUndefined();
    expect(props.Creator).toBe(`Pageworks ${VERSION}`);
    expect(props.Producer).toBe(`Pageworks ${VERSION}`);
    expect(JSON.stringify(props)).not.toMatch(/Chrome|Skia|Mozilla/);
    expect(pdfOutline(pdf)).toEqual([]);
    expect(pdfLang(pdf)).toBeUndefined();
    expect(qpdfCheck(pdf)).toMatchObject({ status: 0 });
  });

  it('takes what the document says once its scripts ran: a title set by script, names in any case, the first non-empty meta, printed headings only', async () => {
    const pdf = await renderPdf(`<html lang="en-GB"><head><title>Draft</title>
      <meta name="Author" content="   "><META NAME="AUTHOR" content="  Ada
        Lovelace "><meta name="keywords" content=""><meta name="description" content="">
      <script>
        document.title = 'Invoice 42';
        document.querySelector('meta[name=description]').content = 'a' + '😀'.repeat(3000);
      </script></head><body><h2 style="display: none">Not printed</h2><h3>Only an h3</h3></body></html>`);
    const props = pdfProperties(pdf);
    expect(props.Title).toBe('Invoice 42');
    expect(props.Author).toBe('Ada Lovelace');
    expect(props.Keywords).toBeUndefined();
    // Cut at 4,096 UTF-16 code units, never inside a character.
    expect(props.Subject).toBe(`a${'😀'.repeat(2047)}`);
    expect(pdfLang(pdf)).toBe('en-GB');
    expect(pdfOutline(pdf)).toEqual([{ title: 'Only an h3', page: 1, kids: [] }]);
  });
});

describe('a document that replaces the built-ins the read uses', () => {
  it('still carries its own title, author, description, keywords and lang', async () => {
    const pdf = await renderPdf(REPORT.replace('</head>', `${TAMPER_SCRIPT}</head>`));
    const props = pdfProperties(pdf);
    expect(props.Title).toBe('Årsrapport 2026 (utkast) — Zoë');
    expect(props.Author).toBe('Zoë Ångström');
    expect(props.Subject).toBe('Kvartalssiffror \\ sammanfattning');
    expect(props.Keywords).toBe('日本語, rapport, årsredovisning');
    expect(pdfLang(pdf)).toBe('sv');
  });

  it('still has its declared PDF/A-2b seen, and claimed', async () => {
    const html = REPORT.replace('</head>', `<meta name="pdf-profile" content="PDF/A-2b">${TAMPER_SCRIPT}</head>`);
    const pdf = await renderPdf(html);
    expect(pdf.toString('latin1')).toMatch(/pdfaid:part(>|=")2/);
  });
});

describe('a document that navigates', () => {
  let server: http.Server;
  let pool: BrowserPool;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html lang="nb"><title>Landed</title><h1>Landed here</h1>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Loopback allowed for this pool only, so the document can navigate to the server above.
    pool = await BrowserPool.start({
      policy: createEgressPolicy({ allow: ['127.0.0.1/32'], lookup: noDns }),
      concurrency: 1,
      queueLimit: 4,
      timeoutMs: 20_000,
    });
  });

  afterAll(async () => {
    await pool?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('carries what the document it landed on says, nothing of the one it left', async () => {
    const { pdf } = await pool.render(
      'a',
      `<html lang="fr"><title>Left behind</title><meta name="author" content="Nobody"><h2>Gone</h2>
      <script>location.href = '${base}/landed'</script></html>`,
      toPrintParams({}),
    );
    const props = pdfProperties(pdf);
    expect(props.Title).toBe('Landed');
    expect(props.Author).toBeUndefined();
    expect(pdfLang(pdf)).toBe('nb');
    expect(pdfOutline(pdf)).toEqual([{ title: 'Landed here', page: 1, kids: [] }]);
  });
});
