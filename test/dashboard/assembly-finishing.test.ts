/**
 * An assembly's render page says how it was finished, on SQLite and, when DATABASE_URL is set, PostgreSQL:
 * real assemblies through POST /v1/assemble and POST /v1/jobs, their records through the render log to
 * the store, read back as the dashboard's page. Each part's title, pages kept and turn; each stamp's
 * layer, pages and words; the metadata the request gave; a split's files as the zip names them. The
 * customer's HTML shows as text, no password is kept or shown, and the Renders search still finds an
 * assembly by its title only, never by a stamp's words.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { fixture, page as htmlPage, pageCount, postAssemble } from '../assemble/helpers.js';
import { DATABASE_URL } from '../helpers/backends.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { submitJob, waitForJob } from '../jobs/helpers.js';
import { type FreshDatabase, freshDatabase } from '../scale/backends.js';
import { type FormClient, signUp } from './client.js';

const OWNER_PASSWORD = 'Owner-secret-4471';
const FOOTER =
  '<!doctype html><html><head><style>.n { position: absolute; bottom: 18pt; right: 30pt; font: 9pt sans-serif }</style></head>' +
  '<body><div class="n">Page {{page}} of {{pages}}</div></body></html>';
const PAID =
  '<div style="position:absolute; top:40%; width:100%; text-align:center; font: bold 60pt sans-serif; color: #d0e8d0">PAID</div>';
const METADATA = {
  title: 'Statement November 2026',
  author: 'Northwind Savings',
  subject: 'Monthly account statement',
  keywords: 'statement, november',
  lang: 'en-GB',
};

/** The numbered, watermarked, titled statement whose terms lose their cover page and are turned. */
function statement(terms: Buffer) {
  return {
    parts: [
      { html: htmlPage('Account summary', 'Balance 1,204.50'), title: 'Summary' },
      { pdf: terms.toString('base64'), title: 'Terms and conditions', pages: '2-', rotate: 90 },
      { html: htmlPage('Annex') },
    ],
    stamps: [{ html: FOOTER }, { html: PAID, pages: '1', layer: 'under' }],
    metadata: METADATA,
    protect: { owner_password: OWNER_PASSWORD },
  };
}

/** The text of the element that opens with `opening`, tags dropped and the template's escapes read back. */
function textOf(body: string, opening: string, closing: string): string {
  const start = body.indexOf(opening);
  expect(start, `${opening} on the page`).toBeGreaterThan(-1);
  const chunk = body.slice(start, body.indexOf(closing, start));
  return chunk
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

const partRow = (body: string, i: number) => textOf(body, `<tr data-part="parts[${i}]">`, '</tr>');
const stampRow = (body: string, i: number) => textOf(body, `<tr data-stamp="${i}">`, '</tr>');

/** The names of a zip's files in its order, as unzip lists them. */
function zipNames(zip: Buffer): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-finishing-zip-'));
  try {
    fs.writeFileSync(path.join(dir, 'a.zip'), zip);
    return execFileSync('unzip', ['-Z1', path.join(dir, 'a.zip')], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let pgDb: FreshDatabase | undefined;
const backends = [
  { name: 'sqlite', enabled: true, env: async () => ({}), cleanup: async () => {} },
  {
    name: 'postgres',
    enabled: Boolean(DATABASE_URL),
    env: async (): Promise<Record<string, string>> => {
      pgDb = await freshDatabase(DATABASE_URL as string, 'pw_finishing');
      return { DATABASE_URL: pgDb.url };
    },
    cleanup: async () => pgDb?.drop(),
  },
];

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`an assembly's render page on ${backend.name}`, () => {
    let core: CoreDeps;
    let app: FastifyInstance;
    let dashboard: FastifyInstance;
    let client: FormClient;
    let key: string;
    const terms = fixture('terms-objstm.pdf');

    beforeAll(async () => {
      core = await createTestCore({ ...(await backend.env()), RENDER_RATE_LIMIT: '1000' });
      app = await buildRenderApp(core, { lookup: noDns });
      dashboard = await buildDashboardApp(core);
      const email = `finishing-${backend.name}@example.com`;
      client = await signUp(dashboard, email);
      const account = await core.accounts.findByEmail(email);
      if (!account) throw new Error('signed-up account not found');
      key = (await core.keys.create(account.id, 'render', 'Statements')).key;
    }, 60_000);
    afterAll(async () => {
      await app?.close();
      await dashboard?.close();
      if (core) await closeTestCore(core);
      await backend.cleanup();
    });

    /** The render page of `id` once the render log has written its record. */
    async function renderPage(id: string): Promise<string> {
      await app.renderLog.flush();
      const res = await client.get(`/renders/${id}`);
      expect(res.statusCode).toBe(200);
      return res.body;
    }

    it('shows each part’s title, pages kept and turn, each stamp, and the metadata; never the password', async () => {
      const res = await postAssemble(app, key, statement(terms));
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(pageCount(res.rawPayload)).toBe(3);
      const id = String(res.headers['x-render-id']);
      const body = await renderPage(id);

      expect(textOf(body, '<h2 id="parts-title">', '</h2>')).toBe('3 parts, in order');
      expect(partRow(body, 0)).toBe('parts[0] Summary HTML, rendered all 1 0');
      expect(partRow(body, 1)).toBe('parts[1] Terms and conditions PDF, sent with the request 2- turned 90° 1 0');
      // No title in the request: the outline entry is the document's own title.
      expect(partRow(body, 2)).toBe('parts[2] Annex HTML, rendered all 1 0');

      expect(textOf(body, '<h3 id="stamps-title">', '</h3>')).toBe('2 stamps, laid in order');
      expect(stampRow(body, 0)).toBe(
        'stamps[0] Over the content every page (3 pages) Page {{page}} of {{pages}} <div class="n">Page {{page}} of {{pages}}</div>',
      );
      expect(stampRow(body, 1)).toMatch(
        /^stamps\[1\] Under the content \(watermark\) 1 \(1 page\) PAID <div style="position:absolute;/,
      );

      for (const [field, words] of [
        ['title', 'Title'],
        ['author', 'Author'],
        ['subject', 'Subject'],
        ['keywords', 'Keywords'],
        ['lang', 'Language'],
      ] as const)
        expect(textOf(body, `<div data-field="${field}">`, '</div>')).toBe(`${words} ${METADATA[field]}`);
      expect(body).not.toContain('Split into');

      const record = await app.inject({ method: 'GET', url: `/v1/renders/${id}`, headers: { authorization: `Bearer ${key}` } });
      expect(record.statusCode).toBe(200);
      // The API's parts keep their documented fields; what the page adds is the record's.
      expect(record.json().parts[1]).toEqual({ label: 'parts[1]', kind: 'pdf', pages: 1, warnings: 0 });
      const stored = await app.renderLog.find(id, (await core.accounts.findByEmail(`finishing-${backend.name}@example.com`))!.id);
      for (const [what, text] of [
        ['the render page', body],
        ['the API record', record.body],
        ['the stored record', JSON.stringify(stored)],
      ])
        expect(text.includes(OWNER_PASSWORD), `${what} holds the owner password`).toBe(false);
    }, 120_000);

    it('names a part’s warning once, and counts it on the part’s row', async () => {
      // The terms as a vendor sends them: an owner password that forbids printing, allows assembling.
      const restricted = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pw-finishing-owner-')), 'terms.pdf');
      fs.writeFileSync(`${restricted}.in`, terms);
      execFileSync('qpdf', ['--encrypt', '', 'owner', '256', '--print=none', '--', `${restricted}.in`, restricted]);
      const res = await postAssemble(app, key, {
        parts: [{ html: htmlPage('Cover') }, { pdf: fs.readFileSync(restricted).toString('base64'), title: 'Terms' }],
      });
      fs.rmSync(path.dirname(restricted), { recursive: true, force: true });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const body = await renderPage(String(res.headers['x-render-id']));
      expect(partRow(body, 1)).toBe('parts[1] Terms PDF, sent with the request all 2 1');
      const warning = textOf(body, '<li class="warning warning-active_content">', '</li>');
      expect(warning).toBe(
        'Not carried over from parts[1]: its owner’s restrictions Part parts[1] What to do: parts[1]: its owner’s restrictions ' +
          '(no printing) are not carried over: the assembly allows what its own `protect` allows. The part opened without a ' +
          'password, and its owner allowed assembling it; to keep it from being printed or copied, protect the assembly with ' +
          'the permissions you want. Encrypted parts, and protecting an assembly .',
      );
    }, 120_000);

    it("shows a stamp's HTML as text, however it is written", async () => {
      const hostile = `<p class="x">SEEN</p><script>document.title = "ran"</script><img src=x onerror="alert('x')">`;
      const res = await postAssemble(app, key, {
        parts: [{ html: htmlPage('Escapes') }],
        stamps: [{ html: hostile }],
        metadata: { author: '<b>Eve</b> & "Co"' },
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const body = await renderPage(String(res.headers['x-render-id']));
      expect(stampRow(body, 0)).toBe(`stamps[0] Over the content every page (1 page) SEEN ${hostile}`);
      expect(body).toContain('&lt;script&gt;document.title = &quot;ran&quot;&lt;/script&gt;');
      expect(body).not.toContain('<script>document.title');
      expect(body).not.toContain('<img src=x');
      expect(body).toContain('&lt;b&gt;Eve&lt;/b&gt; &amp; &quot;Co&quot;');
    }, 120_000);

    it("shows a split's files as the zip names them, for a request and for a job", async () => {
      const parts = [
        { html: htmlPage('Alice'), title: 'Alice Martin' },
        { html: htmlPage('Bob'), title: 'Bob <Jones>' },
        { pdf: terms.toString('base64'), title: 'Terms' },
      ];
      const res = await postAssemble(app, key, { parts, split: 'parts' });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.headers['content-type']).toBe('application/zip');
      const names = zipNames(res.rawPayload);
      expect(names).toHaveLength(3);
      const body = await renderPage(String(res.headers['x-render-id']));
      expect(textOf(body, '<h3 id="split-title">', '</h3>')).toBe('Split into 3 files');
      expect(body).toContain('Answered as a zip, one file per part:');
      expect(textOf(body, '<ol class="split-files">', '</ol>')).toBe(names.join(' '));

      const submitted = await submitJob(app, key, { parts, split: { every: 2 }, stamps: [{ html: FOOTER, pages: '!1' }] });
      expect(submitted.statusCode, submitted.body.slice(0, 300)).toBe(202);
      const job = await waitForJob(app, key, submitted.json().id);
      expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
      const download = await app.inject({
        method: 'GET',
        url: `/v1/jobs/${job.id}/pdf`,
        headers: { authorization: `Bearer ${key}` },
      });
      const jobNames = zipNames(download.rawPayload);
      expect(jobNames).toHaveLength(2);
      const jobBody = await renderPage(job.id);
      expect(textOf(jobBody, '<h3 id="split-title">', '</h3>')).toBe('Split into 2 files');
      expect(jobBody).toContain('Answered as a zip, one file per 2 pages:');
      expect(textOf(jobBody, '<ol class="split-files">', '</ol>')).toBe(jobNames.join(' '));
      expect(stampRow(jobBody, 0)).toMatch(/^stamps\[0\] Over the content !1 \(3 pages\) Page \{\{page\}\} of \{\{pages\}\}/);
      expect(partRow(jobBody, 1)).toBe('parts[1] Bob <Jones> HTML, rendered all 1 0');
    }, 180_000);

    it('finds an assembly by its title in the Renders search, never by what its stamps or parts say', async () => {
      const res = await postAssemble(app, key, {
        parts: [{ html: htmlPage('Cover'), title: 'Quokka chapter' }],
        stamps: [{ html: '<p>Wombat watermark</p>' }],
        metadata: { title: 'Platypus bundle', author: 'Echidna' },
      });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const id = String(res.headers['x-render-id']);
      await app.renderLog.flush();
      const listed = async (q: string) =>
        (await client.get(`/renders?q=${encodeURIComponent(q)}`)).body.includes(`data-render-id="${id}"`);
      expect(await listed('Platypus')).toBe(true);
      for (const term of ['Wombat', 'Quokka', 'Echidna']) expect(await listed(term), term).toBe(false);
    }, 120_000);
  });
}
