/**
 * POST /v1/assemble and POST /v1/jobs with `split`: the answer is a zip of PDFs named by part title or
 * pages, each passing qpdf --check with its own outline, and protected and signed as asked (qpdf
 * --password, pdfsig); bad splits are 400 naming the field.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { makeTestCertificates } from '../helpers/certificates.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { outline, page, pageCount, pageTexts, postAssemble, qpdfCheck, tinyPdf, uploadCertificate } from './helpers.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let certificate = '';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-assemble-split-'));

beforeAll(async () => {
  const certs = makeTestCertificates();
  core = await createTestCore({ CERTIFICATE_KEY: crypto.randomBytes(32).toString('hex'), RENDER_CONCURRENCY: '2' });
  app = await buildRenderApp(core, { lookup: noDns, jobPollMs: 50 });
  key = (await createKey(core, 'render')).key;
  certificate = await uploadCertificate(app, key, certs.rsaChain, certs.password);
}, 180_000);
afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  fs.rmSync(work, { recursive: true, force: true });
});

/** The zip's files by name, in the archive's order, as unzip extracts them. */
function unzip(zip: Buffer): Map<string, Buffer> {
  const dir = fs.mkdtempSync(path.join(work, 'zip-'));
  fs.writeFileSync(path.join(dir, 'a.zip'), zip);
  const names = execFileSync('zipinfo', ['-1', path.join(dir, 'a.zip')], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  execFileSync('unzip', ['-q', path.join(dir, 'a.zip'), '-d', path.join(dir, 'out')]);
  return new Map(names.map((n) => [n, fs.readFileSync(path.join(dir, 'out', n))]));
}

function tool(pdf: Buffer, command: string, args: string[]): string {
  const file = path.join(work, `${crypto.randomBytes(4).toString('hex')}.pdf`);
  fs.writeFileSync(file, pdf);
  const run = spawnSync(
    command,
    args.map((a) => (a === 'FILE' ? file : a)),
    { encoding: 'utf8' },
  );
  return `${run.stdout}${run.stderr}`;
}

const batch = {
  parts: [
    { html: page('Statement Alice', 'Balance 10'), title: 'Alice Martin' },
    { pdf: tinyPdf('Terms for Bob').toString('base64'), title: 'Bob / Jones' },
    { html: page('Statement Carol', 'Balance 30') },
  ],
};

describe('split', () => {
  it('"parts": one file per part, named by its title, each with its own outline', async () => {
    const res = await postAssemble(app, key, { ...batch, split: 'parts' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    const files = unzip(res.rawPayload);
    expect([...files.keys()]).toEqual(['Alice Martin.pdf', 'Bob Jones.pdf', 'Statement Carol.pdf']);
    const texts = ['Balance 10', 'Terms for Bob', 'Balance 30'];
    [...files.values()].forEach((pdf, i) => {
      expect(qpdfCheck(pdf).status, qpdfCheck(pdf).output).toBe(0);
      expect(pageCount(pdf)).toBe(1);
      expect(pageTexts(pdf)[0]).toContain(texts[i]);
      expect(outline(pdf)).toHaveLength(1);
      expect(outline(pdf)[0].page).toBe(1);
    });
    expect(outline(files.get('Alice Martin.pdf') as Buffer)[0].title).toBe('Alice Martin');
  }, 60_000);

  it('"parts": titles that clash or that Windows keeps for devices get names every unpacker can create', async () => {
    const titles = ['Terms', 'terms', 'CON', 'con', 'nul.backup', 'Com1', 'LPT\u00b9', 'CONTRACT', 'Aux ', 'Café Été'];
    const parts = titles.map((title, i) => ({ pdf: tinyPdf(`Part ${i + 1}`).toString('base64'), title }));
    const res = await postAssemble(app, key, { parts, split: 'parts' });
    expect(res.statusCode, res.body).toBe(200);
    const files = unzip(res.rawPayload);
    expect([...files.keys()]).toEqual([
      'Terms.pdf',
      'terms-2.pdf',
      'CON_.pdf',
      'con_-2.pdf',
      'nul_.backup.pdf',
      'Com1_.pdf',
      'LPT\u00b9_.pdf',
      'CONTRACT.pdf',
      'Aux_.pdf',
      'Café Été.pdf',
    ]);
    expect(tool(files.get('CON_.pdf') as Buffer, 'pdftotext', ['FILE', '-'])).toContain('Part 3');
  }, 60_000);

  it('{"every": 2}, protected and signed: each file opens with the password and its signature is valid', async () => {
    const res = await postAssemble(app, key, {
      parts: [...batch.parts, { html: page('Statement Dave', 'Balance 40') }, { html: page('Statement Erin', 'Balance 50') }],
      split: { every: 2 },
      protect: { user_password: 'open sesame', owner_password: 'owner secret' },
      sign: { certificate, reason: 'Statements issued' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const files = unzip(res.rawPayload);
    expect([...files.keys()]).toEqual(['pages-1-2.pdf', 'pages-3-4.pdf', 'page-5.pdf']);
    for (const pdf of files.values()) {
      expect(tool(pdf, 'qpdf', ['--password=open sesame', '--check', 'FILE'])).toContain('No syntax or stream encoding errors');
      expect(tool(pdf, 'qpdf', ['--show-encryption', '--password=open sesame', 'FILE'])).toMatch(/^R = 6$/m);
      const signed = tool(pdf, 'pdfsig', ['-upw', 'open sesame', 'FILE']);
      expect(signed).toContain('Signature is Valid');
      expect(signed).toContain('Total document signed');
    }
    expect(tool(files.get('page-5.pdf') as Buffer, 'pdftotext', ['-upw', 'open sesame', 'FILE', '-'])).toContain('Balance 50');
  }, 120_000);

  it('{"ranges": ["1-2", "3-"]}: a file per range, named by its pages', async () => {
    const res = await postAssemble(app, key, { ...batch, split: { ranges: ['1-2', '3-'] } });
    expect(res.statusCode, res.body).toBe(200);
    const files = unzip(res.rawPayload);
    expect([...files.keys()]).toEqual(['pages-1-2.pdf', 'page-3.pdf']);
    expect(pageCount(files.get('pages-1-2.pdf') as Buffer)).toBe(2);
    expect(outline(files.get('pages-1-2.pdf') as Buffer).map((e) => e.title)).toEqual(['Alice Martin', 'Bob / Jones']);
  }, 60_000);

  const refused: Array<[string, unknown, string]> = [
    ['every: 0', { every: 0 }, 'split.every: must be a whole number of pages of at least 1, got number 0'],
    ['a range that is not one', { ranges: ['1-2', 'x'] }, 'split.ranges[1]: "x" is not a page selection'],
    ['an unknown kind', 'pages', 'split: must be "parts", {"every": N} or {"ranges": ["1-3", "4-"]}'],
  ];
  for (const [what, split, message] of refused)
    it(`refuses ${what}, naming the field`, async () => {
      const res = await postAssemble(app, key, { ...batch, split });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toContain(message);
    });

  it('refuses a range past the assembly’s pages with 400 naming it', async () => {
    const res = await postAssemble(app, key, { ...batch, split: { ranges: ['1-2', '3-9'] } });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.message).toBe("split.ranges[1]: page 9 is past the document's 3 pages");
  }, 60_000);

  it('a job with split: its result is the zip', async () => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const submit = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers,
      payload: JSON.stringify({ ...batch, split: 'parts' }),
    });
    expect(submit.statusCode, submit.body).toBe(202);
    const id = submit.json().id as string;
    let status = '';
    for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      status = (await app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers })).json().status;
      if (status === 'succeeded' || status === 'failed') break;
    }
    expect(status).toBe('succeeded');
    const result = await app.inject({ method: 'GET', url: `/v1/jobs/${id}/pdf`, headers });
    expect(result.statusCode).toBe(200);
    expect(result.headers['content-type']).toBe('application/zip');
    expect([...unzip(result.rawPayload).keys()]).toEqual(['Alice Martin.pdf', 'Bob Jones.pdf', 'Statement Carol.pdf']);
  }, 90_000);
});
