/**
 * One assembly three ways, compared byte for byte: docs/assembling.md's multipart example run as written
 * (the real curl, to the render service on a port), `RenderClient.assemble` with the file beside the body,
 * and `pageworks assemble` on the same body.json with terms.pdf beside it; then the same with `split`. The
 * requests pass through a loopback proxy that keeps them, so the form the client sends is compared with
 * the one curl sends for the docs. The PDFs may differ only in the times they were made (see withoutTimes).
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { type AssembleRequest, type AssembleSplit, JobsClient, RenderApiError, RenderClient } from '../../src/client/index.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { PAGEWORKS } from '../helpers/pageworks-command.js';
import { type RecordedRequest, type RecordingProxy, startRecordingProxy } from '../helpers/recording-proxy.js';
import { noDns } from '../helpers/render.js';
import { pageTexts } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-api-client-cli-'));
const docs = path.join(work, 'docs');

let core: CoreDeps;
let app: FastifyInstance;
let proxy: RecordingProxy;
let key: string;
let client: RenderClient;
/** The docs' body.json as written, and parsed. */
let bodyText: string;
let body: AssembleRequest;
let terms: Buffer;
/** The assembly the docs' curl made, and when (ms) its run started and ended. */
let apiPdf: Buffer;
let window: [number, number];

/** The ```sh block of docs/assembling.md that uploads terms.pdf beside body.json. */
function docsExample(): string {
  const text = fs.readFileSync(path.join(ROOT, 'docs/assembling.md'), 'utf8');
  const block = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]).find((b) => b.includes("'body=<body.json'"));
  if (!block) throw new Error('docs/assembling.md has no multipart example with body=<body.json');
  return block;
}

beforeAll(async () => {
  core = await createTestCore({ RENDER_CONCURRENCY: '1' });
  app = await buildRenderApp(core, { lookup: noDns });
  await app.listen({ host: '127.0.0.1', port: 0 });
  key = (await createKey(core, 'render')).key;
  proxy = await startRecordingProxy(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
  client = new RenderClient({ baseUrl: proxy.base, apiKey: key });

  fs.mkdirSync(docs);
  const start = Date.now();
  // Asynchronous: the service runs in this process and must answer while curl waits.
  await run('bash', ['-euo', 'pipefail', '-c', docsExample()], {
    cwd: docs,
    env: { PATH: process.env.PATH, PAGEWORKS_RENDER_URL: proxy.base, PAGEWORKS_RENDER_KEY: key },
    timeout: 90_000,
  });
  window = [start, Date.now()];
  bodyText = fs.readFileSync(path.join(docs, 'body.json'), 'utf8');
  body = JSON.parse(bodyText) as AssembleRequest;
  terms = fs.readFileSync(path.join(docs, 'terms.pdf'));
  apiPdf = fs.readFileSync(path.join(docs, 'invoice-with-terms.pdf'));
}, 180_000);

afterAll(async () => {
  await proxy?.close();
  await app?.close();
  if (core) await closeTestCore(core);
  fs.rmSync(work, { recursive: true, force: true });
});

/**
 * The PDF with the times it was made blanked, each to the same length: `/CreationDate` and `/ModDate` of
 * every Info dictionary (D:YYYYMMDDHHmmSS: the assembly's, and each rendered part's, whose Info stays in the
 * file as an object nothing refers to) and the XMP's `xmp:CreateDate`, `ModifyDate` and `MetadataDate`.
 * Two identical requests made a second apart differ in exactly these bytes and no others: a time is the one
 * thing a PDF made later should say differently. (This assembly's trailer /ID is the same for the same
 * request. A part declaring a PDF/A or PDF/UA profile would get an /ID hashed with its render's time, and a
 * protected or signed file differs throughout, by its random keys and its signing time: this one is neither.) Each blanked value must be a time within `during` (to the second), so a
 * mask hides nothing but this run's clock.
 */
function withoutTimes(pdf: Buffer, during: [number, number]): Buffer {
  const inWindow = (ms: number, text: string) => {
    expect(ms, `${text} is a time of this run`).toBeGreaterThanOrEqual(Math.floor(during[0] / 1000) * 1000);
    expect(ms, `${text} is a time of this run`).toBeLessThanOrEqual(during[1]);
  };
  const text = pdf
    .toString('latin1')
    .replace(/(\/(?:CreationDate|ModDate) ?\(D:)(\d{14})(\+00'00'\))/g, (_all, head: string, digits: string, tail: string) => {
      const [, y, mo, d, h, mi, s] = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/.exec(digits) ?? [];
      inWindow(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)), digits);
      return `${head}${'0'.repeat(digits.length)}${tail}`;
    })
    .replace(
      /(<xmp:(CreateDate|ModifyDate|MetadataDate)>)(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00)(<\/xmp:\2>)/g,
      (_all, open: string, _name: string, time: string, close: string) => {
        inWindow(Date.parse(time), time);
        return `${open}${'0'.repeat(time.length)}${close}`;
      },
    );
  return Buffer.from(text, 'latin1');
}

/** The times withoutTimes blanks: how many there are, so a comparison is known to have masked something. */
function timeFields(pdf: Buffer): number {
  return (
    pdf.toString('latin1').match(/\/(?:CreationDate|ModDate) ?\(D:\d{14}|<xmp:(?:CreateDate|ModifyDate|MetadataDate)>/g) ?? []
  ).length;
}

/**
 * A multipart/form-data request's bytes made comparable across senders: its boundary (each sender picks
 * its own at random) written as BOUNDARY, and its `body` field's JSON written compactly (curl sends the
 * file's text as it is, with its line breaks; the client sends JSON.stringify's). Every other byte, the
 * parts' headers and the files included, is as it was sent.
 */
function canonicalForm(request: RecordedRequest): string {
  const boundary = /boundary=(\S+)$/.exec(String(request.headers['content-type']))?.[1];
  if (!boundary) throw new Error(`not a form: ${request.headers['content-type']}`);
  return request.body
    .toString('latin1')
    .split(`--${boundary}`)
    .map((piece) => {
      const field = /^(\r\nContent-Disposition: form-data; name="body"\r\n\r\n)([\s\S]*)(\r\n)$/.exec(piece);
      if (!field) return piece;
      const json = JSON.stringify(JSON.parse(Buffer.from(field[2], 'latin1').toString('utf8')));
      return `${field[1]}${Buffer.from(json, 'utf8').toString('latin1')}${field[3]}`;
    })
    .join('--BOUNDARY');
}

/** The last request the proxy passed on to `pathname`. */
function lastRequest(pathname: string): RecordedRequest {
  const found = proxy.requests.filter((r) => r.path === pathname).at(-1);
  if (!found) throw new Error(`no request to ${pathname}`);
  return found;
}

/** `pageworks assemble ARGS` (pageworks-command.ts says which build); exit code and stderr. */
function cli(args: string[]): { status: number | null; stderr: string } {
  const out = spawnSync(process.execPath, [...PAGEWORKS, 'assemble', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PAGEWORKS_DATA_DIR: work, LOG_LEVEL: 'warn' },
    timeout: 120_000,
    encoding: 'utf8',
  });
  return { status: out.status, stderr: out.stderr };
}

/** The names in a zip (zipinfo), and one file's bytes (unzip). */
function zipNames(zip: string): string[] {
  return spawnSync('zipinfo', ['-1', zip], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
}
function unzipFile(zip: string, name: string): Buffer {
  return spawnSync('unzip', ['-p', zip, name.replace(/[[\]*?]/g, '\\$&')], { maxBuffer: 64 << 20 }).stdout;
}

describe("docs/assembling.md's multipart example, by curl, the client and the CLI", () => {
  it('the docs example makes the numbered invoice with the terms uploaded beside it', () => {
    const texts = pageTexts(apiPdf);
    expect(texts.length).toBe(3);
    expect(texts[0]).toContain('Amount due: 120.00 EUR');
    expect(texts[2]).toContain('Payment within 30 days.');
    for (const [i, text] of texts.entries()) expect(text).toContain(`Page ${i + 1} of 3`);
    const assemble = lastRequest('/v1/assemble');
    expect(String(assemble.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
  });

  it('the client sends the form curl sends, and gets the same PDF but for the times it was made', async () => {
    const before = Date.now();
    const pdf = await client.assemble(body, { files: { 'terms.pdf': { path: path.join(docs, 'terms.pdf') } } });
    const sent = lastRequest('/v1/assemble');
    expect(canonicalForm(sent)).toBe(canonicalForm(proxy.requests.filter((r) => r.path === '/v1/assemble')[0]));
    // curl sent body.json's text as it is; the client the same JSON, compactly; both the file's exact bytes.
    expect(canonicalForm(sent)).toContain(
      `name="files"; filename="terms.pdf"\r\nContent-Type: application/pdf\r\n\r\n${terms.toString('latin1')}\r\n`,
    );
    expect(sent.body.includes(Buffer.from(JSON.stringify(body)))).toBe(true);
    expect(proxy.requests[1].body.includes(Buffer.from(bodyText))).toBe(true);

    expect(pdf.length).toBe(apiPdf.length);
    expect(timeFields(pdf)).toBeGreaterThanOrEqual(5);
    const during: [number, number] = [window[0], Date.now()];
    expect(withoutTimes(pdf, [before, Date.now()]).equals(withoutTimes(apiPdf, during))).toBe(true);
    expect(pdf.warnings).toBe(0);
    expect(pdf.claims).toEqual([]);
  }, 120_000);

  it('pageworks assemble, reading terms.pdf beside body.json, writes the same PDF but for the times it was made', () => {
    const out = path.join(docs, 'cli.pdf');
    const before = Date.now();
    const res = cli([path.join(docs, 'body.json'), '-o', out]);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stderr).toBe(`wrote ${out} (${apiPdf.length} bytes)\n`);
    const pdf = fs.readFileSync(out);
    expect(withoutTimes(pdf, [before, Date.now()]).equals(withoutTimes(apiPdf, window))).toBe(true);

    fs.renameSync(path.join(docs, 'terms.pdf'), path.join(docs, 'terms-away.pdf'));
    try {
      const missing = cli([path.join(docs, 'body.json'), '-o', out]);
      expect(missing.status).toBe(2);
      expect(missing.stderr).toBe(`pageworks assemble: parts[2].file: cannot read ${path.join(docs, 'terms.pdf')}: ENOENT\n`);
    } finally {
      fs.renameSync(path.join(docs, 'terms-away.pdf'), path.join(docs, 'terms.pdf'));
    }
  }, 240_000);

  it('split: the zips of curl, the client and the CLI hold the same files, each the same but for its times', async () => {
    const split = { ...body, split: 'parts' as AssembleSplit };
    fs.writeFileSync(path.join(docs, 'split.json'), JSON.stringify(split));
    const start = Date.now();
    await run(
      'curl',
      ['-sS', '-X', 'POST', `${proxy.base}/v1/assemble`, '-H', `Authorization: Bearer ${key}`, '-D', 'headers.txt'].concat([
        '-F',
        'body=<split.json',
        '-F',
        'files=@terms.pdf;type=application/pdf',
        '-o',
        'api.zip',
      ]),
      { cwd: docs, timeout: 90_000 },
    );
    expect(fs.readFileSync(path.join(docs, 'headers.txt'), 'utf8')).toMatch(/^content-type: application\/zip\r$/im);
    const zip = await client.assemble(split, { files: { 'terms.pdf': terms } });
    fs.writeFileSync(path.join(docs, 'client.zip'), zip);
    const res = cli([path.join(docs, 'body.json'), '--split', 'parts', '-o', path.join(docs, 'cli.zip')]);
    expect(res.status, res.stderr).toBe(0);
    const during: [number, number] = [start, Date.now()];

    const names = ['Invoice 2026-0042.pdf', 'Delivery note.pdf', 'Terms.pdf'];
    for (const file of ['api.zip', 'client.zip', 'cli.zip']) expect(zipNames(path.join(docs, file)), file).toEqual(names);
    expect(zip.files.map((f) => f.name)).toEqual(names);
    for (const [i, name] of names.entries()) {
      const api = unzipFile(path.join(docs, 'api.zip'), name);
      // The client's list is the zip's own files, as unzip reads them.
      expect(zip.files[i].pdf.equals(unzipFile(path.join(docs, 'client.zip'), name)), name).toBe(true);
      expect(pageTexts(api)[0]).toContain(`Page ${i + 1} of 3`);
      expect(timeFields(api)).toBeGreaterThanOrEqual(4);
      expect(withoutTimes(zip.files[i].pdf, during).equals(withoutTimes(api, during)), `client ${name}`).toBe(true);
      const fromCli = unzipFile(path.join(docs, 'cli.zip'), name);
      expect(withoutTimes(fromCli, during).equals(withoutTimes(api, during)), `CLI ${name}`).toBe(true);
    }
    expect(zip.warnings).toBe(0);
    expect(zip.renderId).toMatch(/^rnd_/);
  }, 300_000);
});

describe('RenderClient.assemble with files', () => {
  it('sends a Blob as it sends a path; sends the whole form again when a 503 is retried', async () => {
    proxy.refuseNext = 1;
    const retried: number[] = [];
    const retrying = new RenderClient({
      baseUrl: proxy.base,
      apiKey: key,
      onRetry: (e) => retried.push(e.status),
      retry: { baseDelayMs: 10 },
    });
    const count = proxy.requests.length;
    const pdf = await retrying.assemble(body, { files: { 'terms.pdf': new Blob([new Uint8Array(terms)]) } });
    expect(retried).toEqual([503]);
    const [refused, answered] = proxy.requests.slice(count);
    // fetch writes each try's form afresh, with a boundary of its own: the rest is the same whole form.
    expect(canonicalForm(refused)).toBe(canonicalForm(answered));
    expect(canonicalForm(answered)).toBe(canonicalForm(proxy.requests.filter((r) => r.path === '/v1/assemble')[0]));
    expect(pageTexts(pdf)[2]).toContain('Payment within 30 days.');
  }, 120_000);

  it("refuses a name a form cannot carry before sending anything; a name the parts use but the files lack is the service's 400", async () => {
    const count = proxy.requests.length;
    const quoted = await client.assemble(body, { files: { 'terms".pdf': terms } }).catch((e: unknown) => e);
    expect(quoted).toBeInstanceOf(TypeError);
    expect((quoted as Error).message).toBe('files["terms\\".pdf"]: a file name must be non-empty, without quotes or line breaks');
    const gone = await client
      .assemble(body, { files: { 'terms.pdf': { path: path.join(docs, 'no-such.pdf') } } })
      .catch((e: unknown) => e);
    expect((gone as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect((gone as Error).message).toContain(path.join(docs, 'no-such.pdf'));
    expect(proxy.requests.length).toBe(count);

    const missing = await client.assemble(body, { files: {} }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(RenderApiError);
    expect((missing as RenderApiError).status).toBe(400);
    expect((missing as RenderApiError).message).toBe('parts[2].file: "terms.pdf" is not among the uploaded files (none)');
  }, 60_000);
});

describe('JobsClient.submit with files', () => {
  it('queues the assembly as the same form, and its PDF is the same but for its times', async () => {
    const jobs = new JobsClient({ baseUrl: proxy.base, apiKey: key });
    const start = Date.now();
    const queued = await jobs
      .submit(body, { files: { 'terms.pdf': { path: path.join(docs, 'terms.pdf') } } })
      .catch((e: unknown) => e);
    if (queued instanceof Error) throw queued;
    expect(canonicalForm(lastRequest('/v1/jobs'))).toBe(
      canonicalForm(proxy.requests.filter((r) => r.path === '/v1/assemble')[0]),
    );
    const job = await jobs.wait((queued as { id: string }).id, { timeoutMs: 120_000, intervalMs: 200 });
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    const chunks: Buffer[] = [];
    for await (const chunk of (await jobs.downloadPdf(job.id)).body) chunks.push(chunk as Buffer);
    expect(withoutTimes(Buffer.concat(chunks), [start, Date.now()]).equals(withoutTimes(apiPdf, window))).toBe(true);
  }, 180_000);
});
