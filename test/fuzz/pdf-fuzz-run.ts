/**
 * The PDF fuzz against a real running service (the render app listening on a loopback port, real Chromium,
 * qpdf and SQLite): mutated PDFs as parts of POST /v1/assemble, mutated PKCS#12 files to POST
 * /v1/certificates, mutated Factur-X XMLs attached to a render. Every answer must be 200/201 or a 4xx within
 * its deadline, and every assembly answered 200 (each file of a split) a PDF whose every object its reader
 * parses and in which `qpdf --check` finds nothing it does not find in the part. Unless the request turns or
 * stamps the pages, the answer (a split's first file) must hold the pages of the part it keeps (qpdf's page
 * list), its first page drawn by poppler as the part's page it is and holding, key by key as qpdf reads both,
 * objects of the kinds that page holds. Meanwhile another account renders a page now and then, and each of those must succeed.
 * The suite runs it with a fixed seed and a few hundred inputs; `npm run bench -- pdf-fuzz` with 20,000.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { zipEntries } from '../../src/client/zip-entries.js';
import { pageIndexes } from '../../src/pdf/assemble/page-ranges.js';
import { PdfFile } from '../../src/pdf/profiles/pdf-file.js';
import { formPart, layeredPdf, onPdfAsync, qpdfCheckAsync, tinyPdf } from '../assemble/helpers.js';
import {
  backtrackingXmp,
  claimsUnderOtherPrefixes,
  pageTreeContainingItself,
  pdfWithXmp,
  unparsableTrailer,
  xrefClaimingBillion,
} from '../assemble/hostile-pdfs.js';
import { makeTestCertificates } from '../helpers/certificates.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { prng } from '../helpers/prng.js';
import { noDns } from '../helpers/render.js';
import { fixturePdfs, type Mutant, mutatePdf, mutatePkcs12, mutateXml } from './pdf-mutations.js';

/** What a run is asked to do. */
export interface PdfFuzzOptions {
  seed: number;
  /** Inputs in all (PDFs, PKCS#12 files, XMLs). */
  inputs: number;
  /** Most Factur-X renders (each a Chromium render): the suite keeps them few. */
  maxXmlRenders?: number;
  /** Whether PKCS#12 bit flips may touch the MAC's iteration count (see mutatePkcs12). */
  pkcs12MacTail?: boolean;
  /** Where a failing input's bytes are written (`input-N.pdf`, `.p12`, `.xml`), to replay it; unset: not kept. */
  failureDir?: string;
  /** Called after each input (the bench prints progress). */
  progress?: (done: number) => void;
}

/** What a run saw. */
export interface PdfFuzzReport {
  inputs: number;
  byStatus: Record<string, number>;
  /** The slowest answers, slowest first. */
  slowest: Array<{ ms: number; kind: string; how: string; status: number }>;
  /** The process's peak resident set (the service runs in it), MiB. */
  peakRssMib: number;
  /** The other account's renders: how many, how many failed, the slowest. */
  bystander: { renders: number; failed: number; slowestMs: number };
  /** Inputs answered with a 5xx, or not within their deadline, each with how it was made. */
  failures: string[];
}

/** Deadlines per kind of input: a part is read and assembled in far less; a render gets its timeout. */
const DEADLINE_MS = { pdf: 15_000, pkcs12: 10_000, xml: 45_000 };

const FACTUR_X_XML = 'test/fixtures/factur-x/en16931-invoice.xml';

interface Service {
  base: string;
  fuzzKey: string;
  otherKey: string;
  files: Map<string, Buffer>;
  fileBase: string;
  close(): Promise<void>;
}

async function start(): Promise<Service> {
  const core: CoreDeps = await createTestCore({
    EGRESS_ALLOW: '127.0.0.1/32',
    RENDER_CONCURRENCY: '1',
    RENDER_RATE_LIMIT: '1000000',
    CERTIFICATE_KEY: crypto.randomBytes(32).toString('hex'),
  });
  const app: FastifyInstance = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const fuzzKey = (await createKey(core, 'render')).key;
  const otherKey = (await createKey(core, 'render')).key;
  const files = new Map<string, Buffer>();
  const server = http.createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (body) res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    fuzzKey,
    otherKey,
    files,
    fileBase: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.close();
      await app.close();
      await closeTestCore(core);
    },
  };
}

async function post(service: Service, key: string, route: string, body: unknown, deadlineMs: number) {
  const started = performance.now();
  try {
    const res = await fetch(`${service.base}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(deadlineMs),
    });
    const answer = Buffer.from(await res.arrayBuffer());
    const said = res.status >= 500 ? answer.toString('utf8', 0, 200) : '';
    return { status: res.status, ms: performance.now() - started, said, answer };
  } catch {
    return { status: 0, ms: performance.now() - started, said: '', answer: Buffer.alloc(0) };
  }
}

/**
 * Why an assembly's answer is not a PDF whose every object parses (each file, for a split's zip), or
 * undefined: what the service copies from a hostile part must come out readable or not at all.
 */
function unreadable(answer: Buffer): string | undefined {
  const zipped = answer.subarray(0, 4).toString('latin1') === 'PK\x03\x04';
  for (const { name, pdf } of zipped ? zipEntries(answer) : [{ name: 'the PDF', pdf: answer }]) {
    try {
      const file = new PdfFile(pdf);
      for (const num of file.objectNumbers()) file.get(num);
    } catch (error) {
      return `${name}: ${(error as Error).message}`;
    }
  }
  return undefined;
}

/** What `qpdf --check` says of `pdf`: 'clean', or its first complaint (an error or a warning). */
async function qpdfCheck(pdf: Buffer): Promise<string> {
  const { status, output } = await qpdfCheckAsync(pdf);
  if (status === 0) return 'clean';
  return (output.split('\n').find((line) => /error|warning/i.test(line)) ?? `exit ${status}`).slice(0, 300);
}

/**
 * What `qpdf --check` finds in an assembly's answer (each file, for a split's zip; a protected one opened
 * with its empty user password) when it finds nothing in the part it came from, or undefined: a fault the
 * part did not have is the assembly's own.
 */
async function newFault(answer: Buffer, part: Buffer): Promise<string | undefined> {
  const zipped = answer.subarray(0, 4).toString('latin1') === 'PK\x03\x04';
  for (const { name, pdf } of zipped ? zipEntries(answer) : [{ name: 'the PDF', pdf: answer }]) {
    const fault = await qpdfCheck(pdf);
    if (fault !== 'clean') return (await qpdfCheck(part)) === 'clean' ? `${name}: ${fault}` : undefined;
  }
  return undefined;
}

/** How long poppler may take to draw a page of a hostile part before the comparison gives up on it. */
const READER_MS = 10_000;

/** The pages a PDF's page tree holds as qpdf lists them, or undefined when qpdf reports a problem with it. */
async function listedPages(pdf: Buffer): Promise<number | undefined> {
  // Not pdfinfo's count: poppler takes the tree's /Count, which a hostile part may inflate.
  const listed = await onPdfAsync('qpdf', ['--json', '--json-key=pages'], pdf, READER_MS);
  if (listed.status !== 0) return undefined;
  return (JSON.parse(listed.stdout.toString('utf8')) as { pages: unknown[] }).pages.length;
}

/** Page `page` (from 1) as pdftoppm draws it, 10 dpi, annotations hidden; undefined when poppler reports an error. */
async function drawnPage(pdf: Buffer, page: number): Promise<Buffer | undefined> {
  const args = ['-r', '10', '-f', String(page), '-l', String(page), '-hide-annotations'];
  const drawn = await onPdfAsync('pdftoppm', args, pdf, READER_MS);
  return drawn.status === 0 && !/error/i.test(drawn.stderr) ? drawn.stdout : undefined;
}

/** Of a part of `pages` pages, which page the answer's first page is (from 1), and how many of its pages the answer's first file holds. */
export type View = (pages: number) => { first: number; pages: number } | undefined;

/** The part as qpdf reads it, written out again (no longer in dispute between readers), or undefined when qpdf complains. */
async function asQpdfReadsIt(pdf: Buffer): Promise<Buffer | undefined> {
  const written = await onPdfAsync('sh', ['-c', 'exec qpdf "$0" -'], pdf, READER_MS);
  return written.status === 0 ? written.stdout : undefined;
}

/**
 * How the answer (the first file of a split) looks otherwise than the part it came from, or undefined: it
 * holds the part's pages `view` names (and `after` more), its first page drawn as the part's page it is.
 * Annotations are hidden on both sides, since what acts on the reader is taken out (a signature field's
 * widget with it). A part qpdf or poppler reports a problem with is not compared: what either shows of it
 * is its own repair, not the document. Where the two read the part differently without a complaint (a
 * vertical tab is white space to qpdf, not to poppler), the assembly reads it as qpdf does: the page may
 * then look as poppler draws qpdf's rewrite of the part.
 */
async function drawnOtherwise(answer: Buffer, part: Buffer, view: View, after: number): Promise<string | undefined> {
  const count = await listedPages(part);
  const expected = count ? view(count) : undefined;
  const partPage = expected ? await drawnPage(part, expected.first) : undefined;
  if (!count || !expected || !partPage) return undefined;
  const file = answer.subarray(0, 4).toString('latin1') === 'PK\x03\x04' ? zipEntries(answer)[0].pdf : answer;
  const pages = await listedPages(file);
  if (pages === undefined) return "qpdf cannot list the answer's pages";
  if (pages !== expected.pages + after)
    return `${pages} pages where ${expected.pages} of the part's ${count} and ${after} more were to be`;
  const answerPage = await drawnPage(file, 1);
  if (!answerPage) return 'poppler cannot draw the answer';
  if (answerPage.equals(partPage)) return undefined;
  const rewritten = await asQpdfReadsIt(part);
  const asQpdf = rewritten ? await drawnPage(rewritten, expected.first) : undefined;
  return asQpdf?.equals(answerPage) ? undefined : `page 1 is drawn otherwise than the part's page ${expected.first}`;
}

/** What qpdf reads of a PDF: its objects by reference (`obj:4 0 R`), and its pages' references in order. */
interface QpdfReading {
  objects: Record<string, { value?: unknown; stream?: { dict: Record<string, unknown> } }>;
  pages: string[];
}

/** qpdf's reading of `pdf`, or undefined when qpdf reports anything about it (a repair is qpdf's, not the document's). */
async function qpdfReading(pdf: Buffer): Promise<QpdfReading | undefined> {
  const read = await onPdfAsync('qpdf', ['--json=2', '--json-key=pages', '--json-key=qpdf'], pdf, READER_MS);
  if (read.status !== 0) return undefined;
  const json = JSON.parse(read.stdout.toString('utf8')) as {
    pages: Array<{ object: string }>;
    qpdf: [unknown, QpdfReading['objects']];
  };
  return { objects: json.qpdf[1], pages: json.pages.map((page) => page.object) };
}

const REFERENCE = /^\d+ \d+ R$/;

/** A value of qpdf's JSON, references followed: what kind of object it is, and what it holds to walk into. */
function followed(
  reading: QpdfReading,
  value: unknown,
  hops = 0,
): { kind: string; ref?: string; entries?: Array<[string, unknown]> } {
  if (typeof value === 'string' && REFERENCE.test(value)) {
    const object = reading.objects[`obj:${value}`];
    // An object that is only a reference to another (or to itself) is followed a few hops, then taken for null.
    if (!object || hops > 8) return { kind: 'null', ref: value };
    const inner = followed(reading, object.stream ? object.stream.dict : object.value, hops + 1);
    return { ...inner, kind: object.stream ? inner.kind.replace('dictionary', 'stream') : inner.kind, ref: value };
  }
  if (value === null) return { kind: 'null' };
  if (Array.isArray(value)) return { kind: 'array', entries: value.map((v, i): [string, unknown] => [`[${i}]`, v]) };
  if (typeof value === 'object') {
    const dict = value as Record<string, unknown>;
    const type = typeof dict['/Type'] === 'string' ? ` ${dict['/Type']}` : '';
    return { kind: `dictionary${type}`, entries: Object.entries(dict) };
  }
  if (typeof value === 'string') return { kind: value.startsWith('/') ? 'name' : 'string' };
  return { kind: typeof value };
}

/**
 * Keys the assembly writes anew or filters, not the part's to compare: the tree, the annotations it leaves out,
 * and destinations (a named one becomes a string of the assembly's name tree).
 */
const REWRITTEN = new Set(['/Parent', '/Annots', '/P', '/StructParents', '/StructParent', '/B', '/Dest', '/D']);

/**
 * Whether the answer's object is what the assembly puts in place of the part's on purpose, wherever the part
 * refers to it (pages-and-outline.ts, assemble-pdfs.ts redirect them): the part's outline root is its entry
 * in the assembly's outline (an item with a /Title), its structure tree root the assembly's element for the
 * part. A reference a mutation points at such a root (a font's /ToUnicode) lands there too.
 */
function standsFor(a: { kind: string }, b: { kind: string; entries?: Array<[string, unknown]> }): boolean {
  if (a.kind === 'dictionary /Outlines') return b.kind === 'dictionary' && (b.entries ?? []).some(([key]) => key === '/Title');
  return a.kind === 'dictionary /StructTreeRoot' && b.kind === 'dictionary /StructElem';
}

/**
 * Where the answer's first page holds an object of another kind than the part's page it is, as qpdf reads
 * both, or undefined: walked key by key from the two pages, each pair of objects once. A reference the
 * assembly renumbers wrongly lands on another of the assembly's objects; where neither qpdf nor poppler
 * reads that object (a font the content never selects, a /ToUnicode map), the other judges cannot see it,
 * this one does. The answer may hold nothing where the part had something (what acts on a reader is left out).
 */
export async function objectsOtherwise(answer: Buffer, part: Buffer, view: View): Promise<string | undefined> {
  const partRead = await qpdfReading(part);
  const expected = partRead ? view(partRead.pages.length) : undefined;
  if (!partRead || !expected) return undefined;
  const file = answer.subarray(0, 4).toString('latin1') === 'PK\x03\x04' ? zipEntries(answer)[0].pdf : answer;
  const answerRead = await qpdfReading(file);
  if (!answerRead) return 'qpdf cannot read the answer';
  const queue: Array<[unknown, unknown, string]> = [[partRead.pages[expected.first - 1], answerRead.pages[0], 'the page']];
  const seen = new Set<string>();
  for (let next = 0; next < queue.length && next < 50_000; next++) {
    const [inPart, inAnswer, at] = queue[next];
    const a = followed(partRead, inPart);
    const b = followed(answerRead, inAnswer);
    if (a.ref || b.ref) {
      const pair = `${a.ref ?? at} ${b.ref ?? at}`;
      if (seen.has(pair)) continue;
      seen.add(pair);
    }
    if (b.kind === 'null') continue;
    if (standsFor(a, b)) continue;
    if (a.kind !== b.kind) return `${at}: ${a.kind} in the part, ${b.kind} in the answer`;
    const theirs = new Map(b.entries ?? []);
    for (const [key, value] of a.entries ?? [])
      if (!REWRITTEN.has(key) && theirs.has(key)) queue.push([value, theirs.get(key), `${at} ${key}`]);
  }
  return undefined;
}

/**
 * A finishing step a PDF part is sent with: the part's fields, the request's, how to say it, and which of
 * the part's pages the answer shows as they are drawn in the part (none for a rotation or a stamp, which
 * change them).
 */
interface Finishing {
  part: Record<string, unknown>;
  request: Record<string, unknown>;
  how: string;
  view?: View;
}

const STAMP = '<p style="font:8px sans-serif;margin:0">{{page}} / {{pages}}</p>';
const ALL: View = (pages) => ({ first: 1, pages });

/** The pages `selection` keeps of `pages`, as a view; undefined when it keeps none of them (the service answers 422). */
const selected =
  (selection: string): View =>
  (pages) => {
    try {
      const kept = pageIndexes(selection, pages, 'pages');
      return { first: kept[0] + 1, pages: kept.length };
    } catch {
      return undefined;
    }
  };

/**
 * One PDF input in two is sent with a finishing step, so that the hostile part is read again by the page
 * selection, or its copied objects meet the steps that work on the merge (stamps, metadata, split, protect).
 */
function finishing(rng: () => number): Finishing {
  const none: Finishing = { part: {}, request: {}, how: '', view: ALL };
  if (rng() < 0.5) return none;
  const roll = rng();
  const step = (how: string, part: Record<string, unknown>, request: Record<string, unknown>, view?: View): Finishing => ({
    part,
    request,
    how,
    ...(view ? { view } : {}),
  });
  if (roll < 0.25) {
    const pages = ['1', '-1', '!1', '1,1', '2-'][Math.floor(rng() * 5)];
    return step(`pages ${pages}`, { pages }, {}, selected(pages));
  }
  if (roll < 0.4) return step('rotate 90', { rotate: 90 }, {});
  if (roll < 0.5) return step('title', { title: 'Fuzz part' }, {}, ALL);
  if (roll < 0.65) return step('metadata', {}, { metadata: { title: 'Fuzz', author: 'Pageworks', lang: 'en' } }, ALL);
  if (roll < 0.8) {
    // The first file of a split is the part's pages alone, or its first page.
    const byParts = rng() < 0.5;
    return step('split', {}, { split: byParts ? 'parts' : { every: 1 } }, byParts ? ALL : () => ({ first: 1, pages: 1 }));
  }
  if (roll < 0.92) return step('protect', {}, { protect: { owner_password: 'owner' } }, ALL);
  return step('stamp', {}, { stamps: [{ html: STAMP }] });
}

const invoice = (xmlUrl: string) => `<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>Facture</title>
<meta name="factur-x" content="EN 16931"><link rel="attachment" href="${xmlUrl}" title="factur-x.xml"></head>
<body><h1>Facture PW-2026-0142</h1><p>Total TTC : 630,00 €</p></body></html>`;

/**
 * The seed corpus: the assembly fixtures, the hostile PDFs, hand-written ones (one with a hidden layer, one a
 * filled form), and one Chromium rendered (tagged).
 */
async function corpus(service: Service): Promise<Buffer[]> {
  const res = await fetch(`${service.base}/v1/render`, {
    method: 'POST',
    headers: { authorization: `Bearer ${service.fuzzKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      html: '<!doctype html><html lang="en"><head><title>Seed</title><meta name="pdf-profile" content="PDF/A-3b, PDF/UA-1"></head><body><h1 id="top">Seed</h1><p><a href="#top">Back</a></p><ul><li>One</li></ul></body></html>',
    }),
  });
  if (res.status !== 200) throw new Error(`the seed render answered ${res.status}: ${await res.text()}`);
  const rendered = Buffer.from(await res.arrayBuffer());
  return [
    rendered,
    ...fixturePdfs().map(([, pdf]) => pdf),
    tinyPdf('Seed'),
    layeredPdf('/OFF [6 0 R] /Order [6 0 R 7 0 R]'),
    formPart([
      { name: 'name', value: 'Ada' },
      { name: 'city', value: 'London' },
    ]),
    pdfWithXmp(claimsUnderOtherPrefixes()),
    pdfWithXmp(claimsUnderOtherPrefixes(), { deflate: true }),
    pdfWithXmp(backtrackingXmp(200), { deflate: true }),
    pdfWithXmp(Buffer.from('x'), { deflated: zlib.deflateSync(Buffer.alloc(1 << 20)) }),
    xrefClaimingBillion(),
    pageTreeContainingItself(),
    unparsableTrailer(),
  ];
}

/** Runs the fuzz: see the module comment. */
export async function runPdfFuzz(opts: PdfFuzzOptions): Promise<PdfFuzzReport> {
  const service = await start();
  const rng = prng(opts.seed);
  const report: PdfFuzzReport = {
    inputs: 0,
    byStatus: {},
    slowest: [],
    peakRssMib: 0,
    bystander: { renders: 0, failed: 0, slowestMs: 0 },
    failures: [],
  };
  try {
    const pdfs = await corpus(service);
    const certs = makeTestCertificates();
    const p12s = [certs.rsaChain, certs.ec, certs.noKey, certs.expired];
    const xml = fs.readFileSync(FACTUR_X_XML);
    let xmlRenders = 0;
    let bystander: Promise<void> = Promise.resolve();
    for (let i = 0; i < opts.inputs; i++) {
      const roll = rng();
      let kind: 'pdf' | 'pkcs12' | 'xml';
      let mutant: Mutant;
      let send: () => ReturnType<typeof post>;
      let protectedAnswer = false;
      // Which of the part's pages the answer shows as they are, and how many pages follow them in its first file.
      let shown: { view: View; after: number } | undefined;
      if (roll < 0.04 && xmlRenders < (opts.maxXmlRenders ?? Number.POSITIVE_INFINITY)) {
        kind = 'xml';
        xmlRenders++;
        mutant = mutateXml(rng, xml);
        const at = `/invoice-${i}.xml`;
        service.files.set(at, mutant.bytes);
        send = () => post(service, service.fuzzKey, '/v1/render', { html: invoice(`${service.fileBase}${at}`) }, DEADLINE_MS.xml);
      } else if (roll < 0.14) {
        kind = 'pkcs12';
        mutant = mutatePkcs12(rng, p12s[Math.floor(rng() * p12s.length)], opts.pkcs12MacTail ?? false);
        const body = { pkcs12: mutant.bytes.toString('base64'), password: certs.password, name: `fuzz ${i}` };
        send = () => post(service, service.fuzzKey, '/v1/certificates', body, DEADLINE_MS.pkcs12);
      } else {
        kind = 'pdf';
        mutant = mutatePdf(rng, pdfs[Math.floor(rng() * pdfs.length)], pdfs);
        const finish = finishing(rng);
        protectedAnswer = 'protect' in finish.request;
        if (finish.how) mutant = { ...mutant, how: `${mutant.how}, ${finish.how}` };
        const parts = [
          { pdf: mutant.bytes.toString('base64'), ...finish.part },
          ...(rng() < 0.3 ? [{ pdf: tinyPdf('After').toString('base64') }] : []),
        ];
        if (finish.view) shown = { view: finish.view, after: 'split' in finish.request ? 0 : parts.length - 1 };
        send = () => post(service, service.fuzzKey, '/v1/assemble', { parts, ...finish.request }, DEADLINE_MS.pdf);
      }
      // Another account renders while every tenth input is answered: it must not be hurt.
      if (i % 10 === 0) {
        bystander = bystander.then(async () => {
          const other = await post(service, service.otherKey, '/v1/render', { html: '<p>Another account</p>' }, 30_000);
          report.bystander.renders++;
          if (other.status !== 200) report.bystander.failed++;
          report.bystander.slowestMs = Math.max(report.bystander.slowestMs, other.ms);
        });
      }
      const { status, ms, said, answer } = await send();
      report.inputs++;
      report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
      report.slowest.push({ ms, kind, how: mutant.how, status });
      report.slowest.sort((a, b) => b.ms - a.ms).splice(5);
      const ok = status === 200 || status === 201 || (status >= 400 && status < 500);
      // A protected assembly's strings are encrypted, and the reader opens no encrypted file.
      const damage = kind === 'pdf' && status === 200 && !protectedAnswer ? unreadable(answer) : undefined;
      const fault = kind === 'pdf' && status === 200 && !damage ? await newFault(answer, mutant.bytes) : undefined;
      const drawn =
        status === 200 && !damage && !fault && shown
          ? await drawnOtherwise(answer, mutant.bytes, shown.view, shown.after)
          : undefined;
      const otherwise =
        status === 200 && !damage && !fault && !drawn && shown
          ? await objectsOtherwise(answer, mutant.bytes, shown.view)
          : undefined;
      if (!ok || ms > DEADLINE_MS[kind] || damage || fault || drawn || otherwise) {
        const what = damage
          ? `200 with an object no reader parses (${damage})`
          : fault
            ? `200 with what qpdf --check finds in the answer and not in the part (${fault})`
            : drawn
              ? `200 that looks otherwise than the part (${drawn})`
              : otherwise
                ? `200 whose page holds other objects than the part's (${otherwise})`
                : `${status || 'no answer'} after ${Math.round(ms)} ms ${said}`;
        report.failures.push(`input ${i} (${kind}, ${mutant.how}): ${what}`);
        const ext = { pdf: 'pdf', pkcs12: 'p12', xml: 'xml' }[kind];
        if (opts.failureDir) fs.writeFileSync(path.join(opts.failureDir, `input-${i}.${ext}`), mutant.bytes);
      }
      opts.progress?.(i + 1);
    }
    await bystander;
  } finally {
    report.peakRssMib = process.resourceUsage().maxRSS / 1024;
    await service.close();
  }
  return report;
}
