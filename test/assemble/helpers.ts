/**
 * What the assemble tests share: requests to POST /v1/assemble, the fixtures, and the PDF checks a user
 * would run (qpdf --check, pdfinfo's page count, pdftotext, the outline as qpdf --json shows it).
 */

import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';

/** A fixture under test/fixtures/assemble. */
export function fixture(name: string): Buffer {
  return fs.readFileSync(path.resolve('test/fixtures/assemble', name));
}

/** A PDF as a part's `pdf` field carries it. */
export const b64 = (pdf: Buffer): string => pdf.toString('base64');

/** The render app a test file shares, with a render key: started before its tests, stopped after them. */
export interface AssembleService {
  app: FastifyInstance;
  key: string;
  /** `POST /v1/assemble` with the key. */
  assemble(body: unknown): Promise<LightMyRequestResponse>;
}

/** Starts the render app on a test core (no DNS, no job worker) for the calling test file; see AssembleService. */
export function assembleServiceForFile(env: Record<string, string> = {}): AssembleService {
  let close: (() => Promise<void>) | undefined;
  const service = {
    assemble: (body: unknown) => postAssemble(service.app, service.key, body),
  } as AssembleService;
  beforeAll(async () => {
    const core = await createTestCore(env);
    service.app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
    service.key = (await createKey(core, 'render')).key;
    close = async () => {
      await service.app.close();
      await closeTestCore(core);
    };
  }, 60_000);
  afterAll(() => close?.());
  return service;
}

/** `POST /v1/assemble` with a render key. */
export function postAssemble(
  app: FastifyInstance,
  key: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/v1/assemble',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The render record of an answer (`GET /v1/renders/{id}`), once the render log has written it. */
export async function renderRecord(app: FastifyInstance, key: string, id: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 60; i++) {
    const res = await app.inject({ method: 'GET', url: `/v1/renders/${id}`, headers: { authorization: `Bearer ${key}` } });
    if (res.statusCode === 200) return res.json();
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no record for ${id}`);
}

/** `POST /v1/certificates` with a render key; the upload's response (201 expected by the caller). */
export function postCertificate(
  app: FastifyInstance,
  key: string,
  pkcs12: Buffer,
  password: string,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/v1/certificates',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ pkcs12: pkcs12.toString('base64'), password }),
  });
}

/** Uploads a certificate that must be accepted (201) and gives its id. */
export async function uploadCertificate(app: FastifyInstance, key: string, pkcs12: Buffer, password: string): Promise<string> {
  const res = await postCertificate(app, key, pkcs12, password);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

/** The boundary of the multipart bodies `multipartForm` writes. */
export const FORM_BOUNDARY = '----pageworks-test-7d1f';

/** A multipart/form-data body of a `body` field (the JSON request) and files, as curl -F sends them. */
export function multipartForm(body: unknown, files: Record<string, Buffer>): Buffer {
  const pieces: Buffer[] = [
    Buffer.from(
      `--${FORM_BOUNDARY}\r\nContent-Disposition: form-data; name="body"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(body)}\r\n`,
    ),
  ];
  for (const [name, data] of Object.entries(files))
    pieces.push(
      Buffer.from(
        `--${FORM_BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\nContent-Type: application/pdf\r\n\r\n`,
      ),
      data,
      Buffer.from('\r\n'),
    );
  pieces.push(Buffer.from(`--${FORM_BOUNDARY}--\r\n`));
  return Buffer.concat(pieces);
}

/** A one-page HTML document whose title and heading are `title` and whose body says `text`. */
export function page(title: string, text = title): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;
}

function withFile<T>(pdf: Buffer, fn: (file: string) => T): T {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-assembled-'));
  const file = path.join(dir, 'doc.pdf');
  fs.writeFileSync(file, pdf);
  try {
    return fn(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** qpdf --check: exit code and output (0: no errors; 3: warnings only). */
export function qpdfCheck(pdf: Buffer, password?: string): { status: number; output: string } {
  return withFile(pdf, (file) => {
    const args = ['--check', ...(password ? [`--password=${password}`] : []), file];
    const out = spawnSync('qpdf', args, { encoding: 'utf8' });
    return { status: out.status ?? -1, output: `${out.stdout}${out.stderr}` };
  });
}

/**
 * `command …args file` on `pdf` written to a temporary file, without holding the event loop (for a run whose
 * service answers in this process): its exit status (-1 when it could not run or was stopped after
 * `timeoutMs`), its output as bytes and its error text.
 */
export async function onPdfAsync(
  command: string,
  args: readonly string[],
  pdf: Buffer,
  timeoutMs = 0,
): Promise<{ status: number; stdout: Buffer; stderr: string }> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'pageworks-assembled-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    await fs.promises.writeFile(file, pdf);
    return await new Promise((resolve) => {
      const opts = { maxBuffer: 64 << 20, timeout: timeoutMs, encoding: 'buffer' as const };
      execFile(command, [...args, file], opts, (error, stdout, stderr) => {
        const code = error?.code;
        resolve({ status: error ? (typeof code === 'number' ? code : -1) : 0, stdout, stderr: stderr.toString('utf8') });
      });
    });
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** qpdf --check as qpdfCheck, without holding the event loop. */
export async function qpdfCheckAsync(pdf: Buffer): Promise<{ status: number; output: string }> {
  const { status, stdout, stderr } = await onPdfAsync('qpdf', ['--check'], pdf);
  return { status, output: `${stdout.toString('utf8')}${stderr}` };
}

/** One top-level key of `qpdf --json` for `pdf` (exit status 3, "succeeded with warnings", still gives it whole). */
export function qpdfJson(pdf: Buffer, key: string): unknown {
  return withFile(pdf, (file) => {
    const run = spawnSync('qpdf', ['--json', `--json-key=${key}`, file], { encoding: 'utf8', maxBuffer: 256 << 20 });
    expect([0, 3], run.stderr).toContain(run.status);
    return JSON.parse(run.stdout)[key];
  });
}

/** Pages as pdfinfo counts them. */
export function pageCount(pdf: Buffer): number {
  const out = withFile(pdf, (file) => execFileSync('pdfinfo', [file], { encoding: 'utf8' }));
  return Number(/^Pages:\s+(\d+)/m.exec(out)?.[1]);
}

/** The text of each page, in order (pdftotext, one call). */
export function pageTexts(pdf: Buffer): string[] {
  const text = withFile(pdf, (file) =>
    execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8', maxBuffer: 256 << 20 }),
  );
  const pages = text.split('\f');
  if (pages.at(-1)?.trim() === '') pages.pop();
  return pages;
}

interface OutlineItem {
  title: string;
  /** The page it lands on, from 1. */
  page: number;
  kids: OutlineItem[];
}

/** The outline's top-level entries with their children, as qpdf --json reads them. */
export function outline(pdf: Buffer): OutlineItem[] {
  const json = withFile(pdf, (file) =>
    execFileSync('qpdf', ['--json', '--json-key=outlines', file], { encoding: 'utf8', maxBuffer: 256 << 20 }),
  );
  type Raw = { title: string; destpageposfrom1: number; kids: Raw[] };
  const walk = (items: Raw[]): OutlineItem[] =>
    items.map((i) => ({ title: i.title, page: i.destpageposfrom1, kids: walk(i.kids) }));
  return walk(JSON.parse(json).outlines);
}

/**
 * A one-page PDF saying `text` in Helvetica, written out by hand with exact xref offsets: thousands of
 * distinct, tiny, valid parts (qpdf --check is clean) without rendering each.
 */
export function tinyPdf(text: string): Buffer {
  const content = `BT /F1 24 Tf 72 720 Td (${text.replace(/[()\\]/g, '\\$&')}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    `<< /Title (${text.replace(/[()\\]/g, '\\$&')}) >>`,
  ];
  return pdfOfObjects('1.4', objects, '/Root 1 0 R /Info 6 0 R');
}

/** A PDF of `objects` (object n is objects[n - 1]) with exact xref offsets; `trailer` is the trailer's entries besides /Size. */
export function pdfOfObjects(version: string, objects: readonly string[], trailer: string): Buffer {
  let out = `%PDF-${version}\n`;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} ${trailer} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/**
 * A one-page part with two layers: a blue box in group 6 ("Draft") at the top left and a red box in group 7
 * ("Notes") below it, each drawn inside its group's marked content. `config` is the default configuration's
 * entries (which groups are on).
 */
export function layeredPdf(config: string): Buffer {
  const content = '/OC /L1 BDC 0 0 1 rg 0 692 100 100 re f EMC /OC /L2 BDC 1 0 0 rg 0 542 100 100 re f EMC';
  return pdfOfObjects(
    '1.5',
    [
      `<< /Type /Catalog /Pages 2 0 R /OCProperties << /OCGs [6 0 R 7 0 R] /D << ${config} >> >> >>`,
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Properties << /L1 6 0 R /L2 7 0 R >> >> /Contents 5 0 R >>',
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
      '<< /Type /OCG /Name (Draft) >>',
      '<< /Type /OCG /Name (Notes) >>',
    ],
    '/Root 1 0 R',
  );
}

/**
 * A part of one page per field, each page titled `Page N` and holding a text field named `name` whose value
 * its appearance draws (none when `needAppearances`: the form then asks the reader to draw it).
 */
export function formPart(
  fields: Array<{ name: string; value: string }>,
  opts: {
    needAppearances?: boolean;
    font?: string;
    encoding?: string;
    formDa?: string;
    fieldDa?: string | null;
    /** More entries of the /AcroForm dictionary, as written. */
    formExtra?: string;
  } = {},
): Buffer {
  const formDa = opts.formDa ?? '/Helv 12 Tf 0 g';
  // A field's own /DA by default; null leaves it out, so the field takes the form's.
  const fieldDa = opts.fieldDa === null ? '' : ` /DA (${opts.fieldDa ?? '/Helv 12 Tf 0 g'})`;
  const n = fields.length;
  // Objects: 1 catalog, 2 pages, 3 font, then per field i: page, content, widget, appearance.
  const at = (i: number, k: number) => 4 + i * 4 + k;
  const objects = [
    `<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [${fields.map((_, i) => `${at(i, 2)} 0 R`).join(' ')}] /DA (${formDa}) /DR << /Font << /Helv 3 0 R >> >>${opts.needAppearances ? ' /NeedAppearances true' : ''}${opts.formExtra ? ` ${opts.formExtra}` : ''} >> >>`,
    `<< /Type /Pages /Kids [${fields.map((_, i) => `${at(i, 0)} 0 R`).join(' ')}] /Count ${n} >>`,
    `<< /Type /Font /Subtype /Type1 /BaseFont /${opts.font ?? 'Helvetica'}${opts.encoding ? ` /Encoding ${opts.encoding}` : ''} >>`,
  ];
  fields.forEach(({ name, value }, i) => {
    const content = `BT /F1 24 Tf 72 720 Td (Page ${i + 1}) Tj ET`;
    const drawn = `BT /Helv 12 Tf 2 8 Td (${value}) Tj ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${at(i, 1)} 0 R /Annots [${at(i, 2)} 0 R] >>`,
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
      `<< /Type /Annot /Subtype /Widget /FT /Tx /T (${name}) /V (${value})${fieldDa} /Rect [72 600 300 630] /P ${at(i, 0)} 0 R /F 4${opts.needAppearances ? '' : ` /AP << /N ${at(i, 3)} 0 R >>`} >>`,
      `<< /Type /XObject /Subtype /Form /BBox [0 0 228 30] /Resources << /Font << /Helv 3 0 R >> >> /Length ${drawn.length} >>\nstream\n${drawn}\nendstream`,
    );
  });
  return pdfOfObjects('1.7', objects, '/Root 1 0 R');
}
