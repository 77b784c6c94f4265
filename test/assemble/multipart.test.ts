/**
 * POST /v1/assemble as multipart/form-data: a `body` field with the JSON request and files its parts
 * name (`{"file": "terms.pdf"}`), sent in small chunks so the boundary falls across them; the PDF as
 * poppler reads it, the refusals naming the field, and no uploaded file left behind.
 */
import fs from 'node:fs';
import os from 'node:os';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import {
  FORM_BOUNDARY,
  fixture,
  multipartForm,
  outline,
  page,
  pageCount,
  pageTexts,
  postAssemble,
  qpdfCheck,
} from './helpers.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
const terms = fixture('terms-objstm.pdf');
const BOUNDARY = FORM_BOUNDARY;
const form = multipartForm;

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '2' });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  key = (await createKey(core, 'render')).key;
}, 60_000);
afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

/** The body as a stream of `size`-byte chunks. */
function chunked(bytes: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return Readable.from(chunks);
}

function postForm(payload: Buffer | Readable) {
  return app.inject({
    method: 'POST',
    url: '/v1/assemble',
    headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload,
  });
}

const uploadDirs = () =>
  fs
    .readdirSync(os.tmpdir())
    .filter((d) => d.startsWith('pageworks-upload-'))
    .sort();

describe('multipart/form-data', () => {
  it('assembles a part rendered from the body and a PDF uploaded beside it, read in 7-byte chunks', async () => {
    const before = uploadDirs();
    const body = { parts: [{ html: page('Invoice 9', 'Amount due 90') }, { file: 'terms.pdf', title: 'Terms' }] };
    const res = await postForm(chunked(form(body, { 'terms.pdf': terms }), 7));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    const pdf = res.rawPayload;
    expect(qpdfCheck(pdf).status).toBe(0);
    expect(pageCount(pdf)).toBe(3);
    expect(pageTexts(pdf)[1]).toContain('Payment is due within 30 days');
    expect(outline(pdf).map((e) => [e.title, e.page])).toEqual([
      ['Invoice 9', 1],
      ['Terms', 2],
    ]);
    // The upload is removed once the answer is sent (onResponse runs just after it).
    for (let i = 0; i < 40 && uploadDirs().length > before.length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(uploadDirs()).toEqual(before);
  }, 60_000);

  it('refuses a file part naming a file that was not uploaded, naming the part and the file', async () => {
    const res = await postForm(form({ parts: [{ html: page('x') }, { file: 'annex.pdf' }] }, { 'terms.pdf': terms }));
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.message).toBe('parts[1].file: "annex.pdf" is not among the uploaded files ("terms.pdf")');
  });

  it('refuses an uploaded file that is not a PDF before rendering anything: 400 naming the part and the file', async () => {
    // A .docx is a zip: its first KiB has no %PDF-. A PDF after 600 bytes of mail headers is still one.
    const docx = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(2000, 0x41)]);
    const res = await postForm(
      form({ parts: [{ html: page('x') }, { file: 'letter.docx' }] }, { 'letter.docx': docx, 'terms.pdf': terms }),
    );
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toEqual({
      code: 'INVALID_REQUEST',
      message: 'parts[1]: not a PDF (the file "letter.docx" does not start with %PDF-)',
    });
    const prefixed = Buffer.concat([Buffer.alloc(600, 0x20), terms]);
    const ok = await postForm(form({ parts: [{ file: 'mailed.pdf' }] }, { 'mailed.pdf': prefixed }));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(pageTexts(ok.rawPayload)[0]).toContain('Payment is due within 30 days');
  }, 60_000);

  it('refuses a file no part names: it would be missing from the PDF unseen', async () => {
    const before = uploadDirs();
    const res = await postForm(
      form({ parts: [{ html: page('Invoice 9') }, { file: 'terms.pdf' }] }, { 'terms.pdf': terms, 'cover.pdf': terms }),
    );
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toEqual({
      code: 'INVALID_REQUEST',
      message:
        'files: "cover.pdf" is uploaded but no part names it: add a part such as {"file": "cover.pdf"}, or leave it out of the form',
    });
    const two = await postForm(form({ parts: [{ file: 'terms.pdf' }] }, { 'a.pdf': terms, 'terms.pdf': terms, 'b.pdf': terms }));
    expect(two.statusCode, two.body).toBe(400);
    expect(two.json().error.message).toBe(
      'files: "a.pdf", "b.pdf" are uploaded but no part names them: add a part such as {"file": "a.pdf"}, or leave them out of the form',
    );
    // Both forms' files are removed as an accepted form's are (other tests' uploads may come and go meanwhile).
    const left = () => uploadDirs().filter((d) => !before.includes(d));
    for (let i = 0; i < 40 && left().length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(left()).toEqual([]);
  });

  it('refuses a file part in a JSON request, and a form without its body field', async () => {
    const json = await postAssemble(app, key, { parts: [{ file: 'terms.pdf' }] });
    expect(json.statusCode).toBe(400);
    expect(json.json().error.message).toMatch(/^parts\[0\]\.file: a file part needs a multipart\/form-data request/);
    const noBody = await postForm(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="a.pdf"\r\n\r\n%PDF-1.4\r\n--${BOUNDARY}--\r\n`,
      ),
    );
    expect(noBody.statusCode).toBe(400);
    expect(noBody.json().error.message).toBe('body: the form has no "body" field holding the JSON request');
    const cut = await postForm(form({ parts: [{ file: 'terms.pdf' }] }, { 'terms.pdf': terms }).subarray(0, 400));
    expect(cut.statusCode).toBe(400);
    expect(cut.json().error.message).toBe('body: the multipart body ends before its closing boundary');
  });

  it('takes a body sent as a file (curl -F body=@body.json), and names a field that is neither the body nor a file', async () => {
    const body = JSON.stringify({ parts: [{ file: 'terms.pdf', title: 'Terms' }] });
    const asFile = await postForm(
      Buffer.concat([
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="body"; filename="body.json"\r\nContent-Type: application/octet-stream\r\n\r\n${body}\r\n` +
            `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="terms.pdf"\r\n\r\n`,
        ),
        terms,
        Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
      ]),
    );
    expect(asFile.statusCode, asFile.body).toBe(200);
    expect(outline(asFile.rawPayload).map((e) => [e.title, e.page])).toEqual([['Terms', 1]]);
    // curl -F 'files=<terms.pdf' sends the file's bytes as a field, without a file name a part could give.
    const noName = await postForm(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="body"\r\n\r\n${body}\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"\r\n\r\n%PDF-1.4\r\n--${BOUNDARY}--\r\n`,
      ),
    );
    expect(noName.statusCode).toBe(400);
    expect(noName.json().error.message).toBe(
      `body: the form field "files" is not a file (it has no file name) and not "body": send each PDF as a file, whose file name the parts give (curl -F 'files=@terms.pdf')`,
    );
  }, 60_000);

  it('leaves the other routes as they were: POST /v1/render does not take a form', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/render',
      headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: form({ html: '<p>x</p>' }, {}),
    });
    expect(res.statusCode).toBe(415);
  });
});
