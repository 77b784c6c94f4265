/**
 * Cross-references print their page numbers (DESIGN.md, "Documents print as written"): a report whose
 * table of contents ends every line with leader dots and the page its part starts on, "see page N"
 * references, roman page numbers, a missing target, and a table of contents whose own length moves its
 * targets. Checked as a reader would: pdftotext page by page.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { crossReferenceReport } from '../fixtures/cross-reference-report.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { jobRequest, submitJob, waitForJob } from '../jobs/helpers.js';
import { pdfOutline, pdfPageTexts, qpdfCheck } from './pdf-tools.js';

/** Paragraphs per part: different lengths, so the parts start on pages that no rule of thumb gives. */
const PARTS = [2, 11, 5, 19, 1, 8, 14];

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let stylesheets: http.Server;
/** What the linked stylesheet of the cascade test serves. */
const LINKED_CSS = `nav a::after { content: leader('_') target-counter(attr(href), page); }
a.see::after { content: " (page " target-counter(attr(href), page) ")"; }`;
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  // Loopback is allowed so that a linked stylesheet can be served from 127.0.0.1.
  stylesheets = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/css' }).end(LINKED_CSS);
  });
  await new Promise<void>((resolve) => stylesheets.listen(0, '127.0.0.1', resolve));
  core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32' }, logLines);
  app = await buildRenderApp(core, { lookup: noDns });
  key = (await createKey(core, 'render')).key;
});

afterAll(async () => {
  await new Promise((resolve) => stylesheets?.close(resolve));
  await app?.close();
  if (core) await closeTestCore(core);
});

async function renderPdf(html: string): Promise<Buffer> {
  const res = await postRender(app, key, { html });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return res.rawPayload;
}

function fromRoman(text: string): number {
  const values: Record<string, number> = { i: 1, v: 5, x: 10, l: 50, c: 100, d: 500, m: 1000 };
  let total = 0;
  for (let i = 0; i < text.length; i++) {
    const v = values[text[i]];
    total += v < (values[text[i + 1]] ?? 0) ? -v : v;
  }
  return total;
}

/** The 1-based page whose text has a line that is exactly `heading`. */
function pageOf(pages: string[], heading: string): number {
  const index = pages.findIndex((text) => text.split('\n').some((line) => line.trim() === heading));
  expect(index, `${heading} is printed`).toBeGreaterThanOrEqual(0);
  return index + 1;
}

/** Checks the 7-part report as a reader would: contents lines, references, outline, a sound file. */
function expectReport(pdf: Buffer, style: 'lower-roman' | undefined): void {
  const read = style === undefined ? Number : fromRoman;
  const number = style === undefined ? '\\d+' : '[ivxlcdm]+';
  const pages = pdfPageTexts(pdf);
  const lines = pages[0].split('\n').filter((line) => /^\s*Part \d/.test(line));
  expect(lines).toHaveLength(PARTS.length);
  const starts = PARTS.map((_, i) => pageOf(pages, `Part ${i + 1}`));
  // The parts start on pages that differ by more than one: the lengths matter.
  expect(new Set(starts.slice(1).map((p, i) => p - starts[i])).size).toBeGreaterThan(1);
  lines.forEach((line, i) => {
    const match = new RegExp(`^\\s*Part ${i + 1}\\s*(\\.{20,})\\s*(${number})\\s*$`).exec(line);
    expect(match, line).not.toBeNull();
    expect(read(match?.[2] ?? ''), line).toBe(starts[i]);
  });
  const refs = pages[1].replace(/\s+/g, ' ');
  const last = new RegExp(`the last part \\(page (${number})\\)`).exec(refs);
  const three = new RegExp(`part three \\(page (${number})\\)`).exec(refs);
  expect(read(last?.[1] ?? ''), refs).toBe(starts[6]);
  expect(read(three?.[1] ?? ''), refs).toBe(starts[2]);
  // The outline still lands on each part, and the file is sound.
  expect(
    pdfOutline(pdf)
      .filter((entry) => entry.title.startsWith('Part'))
      .map((entry) => entry.page),
  ).toEqual(starts);
  expect(qpdfCheck(pdf).status).toBe(0);
  expect(pdf.includes('HeadlessChrome') || pdf.includes('about:blank')).toBe(false);
}

describe('a report of 7 parts after a table of contents on its own page', () => {
  for (const style of [undefined, 'lower-roman'] as const) {
    it(`every contents line is filled with leader dots and ends with its part's page (${style ?? 'decimal'})`, async () => {
      expectReport(await renderPdf(crossReferenceReport({ parts: PARTS, style })), style);
    });
  }

  it('prints the same through a render job', async () => {
    const submitted = await submitJob(app, key, { html: crossReferenceReport({ parts: PARTS }) });
    expect(submitted.statusCode, submitted.body).toBe(202);
    const job = await waitForJob(app, key, submitted.json().id);
    expect(job.status).toBe('succeeded');
    const res = await jobRequest(app, key, 'GET', `/v1/jobs/${job.id}/pdf`);
    expect(res.statusCode).toBe(200);
    expectReport(res.rawPayload, undefined);
  });
});

describe('docs/rendering.md', () => {
  it('the worked example prints its contents, references and "Page N of M" as the page says', async () => {
    const docs = fs.readFileSync(new URL('../../docs/rendering.md', import.meta.url), 'utf8');
    const block = /<!-- cross-reference-example[^\n]*\n\s*```html\n([\s\S]*?)\n\s*```/.exec(docs);
    expect(block, 'the docs/rendering.md example block').not.toBeNull();
    const pages = pdfPageTexts(await renderPdf((block?.[1] ?? '').replace(/^ {2}/gm, '')));
    expect(pages).toHaveLength(6);
    pages.forEach((text, i) => {
      expect(text).toContain(`Page ${i + 1} of 6`);
    });
    const contents = pages[0].split('\n').map((line) => line.trim().replace(/\.{10,}\s*/, ' … '));
    expect(contents).toEqual(expect.arrayContaining(['Summary … 2', 'Revenue … 3', 'Costs … 5', 'Outlook … 6']));
    expect(pages[1].replace(/\s+/g, ' ')).toContain('under Revenue (page 3), and what it cost under Costs (page 5)');
    expect(pageOf(pages, 'Costs')).toBe(5);
  });
});

describe('stylesheets and the cascade', () => {
  it('rules of a linked stylesheet and nested rules count; specificity and "later wins" decide as in CSS', async () => {
    const port = (stylesheets.address() as AddressInfo).port;
    const html = `<link rel="stylesheet" href="http://127.0.0.1:${port}/report.css">
<style>
  nav { break-after: page; }
  /* More specific than the linked rule: roman numbers for this one. */
  p a.see.roman::after { content: " (p. " target-counter(attr(href), page, upper-roman) ")"; }
  /* Same specificity, later: the plain text wins over the reference above it. */
  .late::after { content: " (page " target-counter(attr(href), page) ")"; }
  .late::after { content: " (no number)"; }
  /* CSS nesting, as the WeasyPrint sample report writes its contents. */
  p { .nested { &::after { content: " (" target-text(attr(href)) ", page " target-counter(attr(href), page) ")"; } } }
  h2 { break-before: page; }
</style>
<nav><a href="#one">One</a><a href="#two">Two</a></nav>
<p><a class="see" href="#two">see two</a>, <a class="see roman" href="#three">see three</a>, <a class="late" href="#one">late</a>, <a class="nested" href="#three">nested</a></p>
<h2 id="one">One</h2><h2 id="two">Two</h2><h2 id="three">Three</h2>`;
    const pages = pdfPageTexts(await renderPdf(html));
    const contents = pages[0].split('\n').map((line) => line.trim().replace(/_{10,}\s*/, ' … '));
    expect(contents).toEqual(expect.arrayContaining(['One … 3', 'Two … 4']));
    expect(pages[1].replace(/\s+/g, ' ')).toContain(
      'see two (page 4), see three (p. V), late (no number), nested (Three, page 5)',
    );
  });
});

describe('bad input', () => {
  it('a reference to an id the document lacks prints no number, is logged, and the others still print theirs', async () => {
    logLines.length = 0;
    const html = `<style>a::after { content: " (page " target-counter(attr(href url), page) ")" }</style>
<p><a href="#nowhere">gone</a> <a href="#here">here</a></p><h1 id="here" style="break-before: page">Here</h1>`;
    const res = await postRender(app, key, { html });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-render-warnings']).toBe('1');
    const pages = pdfPageTexts(res.rawPayload);
    expect(pages[0]).toMatch(/gone \(page \)/);
    expect(pages[0]).toMatch(/here \(page 2\)/);
    const warning = logLines.find((line) => String(line.msg).startsWith('cross-references'));
    expect(warning?.targets).toEqual(['nowhere']);
    // The render report lists it as the customer reads it.
    const report = await app.inject({
      method: 'GET',
      url: `/v1/renders/${res.headers['x-render-id']}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(report.statusCode).toBe(200);
    expect(report.json().warnings).toEqual([
      {
        kind: 'unresolved_reference',
        target: 'nowhere',
        message: expect.stringMatching(/^a cross-reference points to #nowhere, which the document does not have/),
      },
    ]);
  });

  it('a table of contents whose own length moves its targets prints each target’s page', async () => {
    // Upper-roman numbers in a narrow column: how many lines the contents take depends on the numbers
    // (a long one wraps), and the sections follow the contents directly, so the numbers move what they
    // point to. Printed with the placeholders, the contents are shorter than with the numbers: this one
    // takes all three passes.
    const entries = Array.from({ length: 40 }, (_, i) => i + 1);
    const toc = entries.map((n) => `<li><a href="#s${n}">Entry ${n}</a></li>`).join('');
    const sections = entries
      .map((n) => `<h2 id="s${n}">Section ${n}</h2><p>${'Figures for the quarter, region by region. '.repeat(110)}</p>`)
      .join('');
    const html = `<style>
      body { font: 12pt/1.3 "Liberation Serif", serif; margin: 0 }
      ol { width: 4.5em; list-style: none; padding: 0 }
      a::after { content: " " target-counter(attr(href), page, upper-roman) }
    </style><ol>${toc}</ol>${sections}`;
    const pages = pdfPageTexts(await renderPdf(html));
    const text = pages.join('\n');
    for (const n of entries) {
      const printed = new RegExp(`Entry ${n}\\s+([IVXLCDM]+)\\b`).exec(text);
      expect(printed, `Section ${n}`).not.toBeNull();
      expect(fromRoman((printed?.[1] ?? '').toLowerCase()), `Section ${n}`).toBe(pageOf(pages, `Section ${n}`));
    }
  });

  it('url(#id) and target-text() name their target too', async () => {
    const html = `<style>
      p.see::after { content: " — see “" target-text(url(#intro)) "” on page " target-counter(url("#intro"), page) }
    </style><p class="see">Summary</p><h2 id="intro" style="break-before: page">Introduction to the figures</h2>`;
    const pages = pdfPageTexts(await renderPdf(html));
    expect(pages[0].replace(/\s+/g, ' ')).toContain('Summary — see “Introduction to the figures” on page 2');
  });
});
