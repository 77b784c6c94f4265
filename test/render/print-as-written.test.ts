/**
 * Documents print as written (DESIGN.md): animations and transitions at their end state, frames for
 * script-drawn content, `window.pageworksReady` (promise, flag, rejection, never), and paged media: the
 * request's page box against the document's `@page` rules, and docs/rendering.md's worked invoice example.
 */
import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { firstWordBox, pdfInfo, pdfPageSizes, pdfPageTexts, pdfText, pixel } from './pdf-tools.js';

const TIMEOUT_MS = 6000;

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  core = await createTestCore({ RENDER_TIMEOUT_MS: String(TIMEOUT_MS) }, logLines);
  app = await buildRenderApp(core, { lookup: noDns });
  key = (await createKey(core, 'render')).key;
});

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
});

async function renderPdf(html: string, options: object = {}): Promise<Buffer> {
  const res = await postRender(app, key, { html, options });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  return res.rawPayload;
}

const MM = 72 / 25.4;

describe('animations and transitions print at their end state', () => {
  it('a heading that fades in over 2 s prints (the issue report: a blank page before)', async () => {
    const pdf = await renderPdf('<style>@keyframes f{from{opacity:0}to{opacity:1}} h1{animation:f 2s}</style><h1>Title</h1>');
    expect(pdfText(pdf)).toContain('Title');
  });

  it('a long delayed slide-in, a transition started two frames in and element.animate() all print finished', async () => {
    const pdf = await renderPdf(
      `<body style="margin:0">
      <style>
        @keyframes in{from{transform:translateX(2000px)}to{transform:none}}
        #slide{animation:in 3s 10s both;width:96px;height:96px;background:rgb(0,160,0)}
        #fade{width:96px;height:96px;background:rgb(255,0,0);transition:background-color 20s linear}
        #fade.on{background:rgb(0,0,255)}
        #waapi{width:96px;height:96px;background:rgb(200,120,0)}
      </style>
      <div id="slide"></div><div id="fade"></div><div id="waapi"></div>
      <script>
        requestAnimationFrame(() => requestAnimationFrame(() => document.getElementById('fade').classList.add('on')));
        document.getElementById('waapi').animate([{opacity: 0}, {opacity: 1}], {duration: 30000, fill: 'forwards'});
      </script></body>`,
      { printBackground: true },
    );
    // 96 px squares stacked from the top-left corner; at 72 dpi one CSS px is 0.75 device px.
    expect(pixel(pdf, 36, 36, 72)).toEqual([0, 160, 0]);
    expect(pixel(pdf, 36, 108, 72)).toEqual([0, 0, 255]);
    expect(pixel(pdf, 36, 180, 72)).toEqual([200, 120, 0]);
  });

  it('without any script (no frames on the headless shell), a delayed slide-in and a colour animation print finished', async () => {
    const pdf = await renderPdf(
      `<body style="margin:0">
      <style>
        @keyframes in{from{transform:translateX(2000px)}to{transform:none}}
        @keyframes blue{from{background:rgb(255,0,0)}to{background:rgb(0,0,255)}}
        #slide{animation:in 3s 10s both;width:96px;height:96px;background:rgb(0,160,0)}
        #paint{animation:blue 20s linear both;width:96px;height:96px}
      </style>
      <div id="slide"></div><div id="paint"></div></body>`,
      { printBackground: true },
    );
    expect(pixel(pdf, 36, 36, 72)).toEqual([0, 160, 0]);
    expect(pixel(pdf, 36, 108, 72)).toEqual([0, 0, 255]);
  });

  it('a transition a script starts two frames after load prints finished (the frames it asked for ran first)', async () => {
    const pdf = await renderPdf(
      `<body style="margin:0">
      <style>#fade{width:96px;height:96px;background:rgb(255,0,0);transition:background-color 20s linear} #fade.on{background:rgb(0,0,255)}</style>
      <div id="fade"></div>
      <script>requestAnimationFrame(() => requestAnimationFrame(() => document.getElementById('fade').classList.add('on')));</script></body>`,
      { printBackground: true },
    );
    expect(pixel(pdf, 36, 36, 72)).toEqual([0, 0, 255]);
  });

  it('an infinite animation neither hangs the render nor hides its element', async () => {
    const started = Date.now();
    const pdf = await renderPdf(
      '<style>@keyframes blink{from{opacity:1}to{opacity:0}} p{animation:blink 1s infinite alternate}</style><p>Always here</p>',
    );
    expect(pdfText(pdf)).toContain('Always here');
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS);
  });

  it('what an animationend handler starts is finished too', async () => {
    const pdf = await renderPdf(
      `<style>@keyframes f{from{opacity:0}to{opacity:1}} .a{animation:f 5s}</style>
      <p class="a" id="one">First</p>
      <script>document.getElementById('one').addEventListener('animationend', () => {
        document.body.insertAdjacentHTML('beforeend', '<p class="a">Second</p>');
      });</script>`,
    );
    expect(pdfText(pdf)).toMatch(/First\s+Second/);
  });
});

describe('window.pageworksReady', () => {
  const canvasChart = (ready: string) => `<body style="margin:0"><canvas id="c" width="200" height="100"></canvas><script>
    const draw = () => new Promise((resolve) => setTimeout(() => requestAnimationFrame(() => {
      const ctx = document.getElementById('c').getContext('2d');
      ctx.fillStyle = 'rgb(30,90,200)';
      ctx.fillRect(0, 0, 200, 100);
      resolve();
    }), 400));
    ${ready}
  </script></body>`;

  it('a promise: printing waits for a chart drawn in a frame after a timer', async () => {
    const pdf = await renderPdf(canvasChart('window.pageworksReady = draw();'), { printBackground: true });
    expect(pixel(pdf, 50, 30, 72)).toEqual([30, 90, 200]);
  });

  it('without it, the same late chart is not there: the wait is what prints it', async () => {
    const pdf = await renderPdf(canvasChart('draw();'), { printBackground: true });
    expect(pixel(pdf, 50, 30, 72)).toEqual([255, 255, 255]);
  });

  it('a flag set to false, then true by a timer; also as a top-level var', async () => {
    const flag = await renderPdf(
      canvasChart('window.pageworksReady = false; draw().then(() => { window.pageworksReady = true; });'),
      {
        printBackground: true,
      },
    );
    expect(pixel(flag, 50, 30, 72)).toEqual([30, 90, 200]);
    const asVar = await renderPdf(canvasChart('var pageworksReady = false; draw().then(() => { pageworksReady = 1; });'), {
      printBackground: true,
    });
    expect(pixel(asVar, 50, 30, 72)).toEqual([30, 90, 200]);
  });

  it('a rejected promise prints anyway and logs a warning with the reason and the render id', async () => {
    const res = await postRender(app, key, {
      html: `<p id="p">before</p><script>window.pageworksReady = new Promise((_, reject) => setTimeout(() => {
        document.getElementById('p').textContent = 'after';
        reject(new Error('price feed down'));
      }, 200));</script>`,
    });
    expect(res.statusCode).toBe(200);
    expect(pdfText(res.rawPayload)).toContain('after');
    const warning = logLines.find((line) => line.msg === 'window.pageworksReady rejected; printed anyway');
    expect(warning).toMatchObject({ level: 40, reason: 'price feed down', reqId: res.headers['x-render-id'] });
  });

  it('a promise that never settles: 504 RENDER_TIMEOUT at RENDER_TIMEOUT_MS, and the next render prints', async () => {
    const started = Date.now();
    const res = await postRender(app, key, {
      html: '<p>never</p><script>window.pageworksReady = new Promise(() => {});</script>',
    });
    const elapsed = Date.now() - started;
    expect(res.statusCode).toBe(504);
    expect(res.json().error.code).toBe('RENDER_TIMEOUT');
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 3000);
    const next = await Promise.all([renderPdf('<p>next one</p>'), renderPdf('<p>and another</p>')]);
    expect(pdfText(next[0])).toContain('next one');
    expect(pdfText(next[1])).toContain('and another');
  });
});

describe("paged media: the request's page box wins over @page", () => {
  const body = '<body style="margin:0"><p style="margin:0;font:20px sans-serif">Hello</p></body>';

  it("a document's @page size (even !important on :first) changes neither the paper nor the layout", async () => {
    for (const css of [
      '@page{size:A5 landscape}',
      '@page :first{size:A3 landscape !important}',
      '@layer doc{@page{size:landscape !important}}',
      '@page wide:first{size:A3 landscape !important} body{page:wide}',
      '@page{page-orientation:rotate-left}',
    ]) {
      const pdf = await renderPdf(`<style>${css}</style>${body}`, { format: 'Letter' });
      expect(pdfInfo(pdf), css).toMatchObject({ width: 612, height: 792 });
      // At the top-left corner, not laid out at the document's size and centred on the paper.
      const box = firstWordBox(pdf);
      expect(box.xMin).toBeLessThan(3);
      expect(box.yMin).toBeLessThan(8);
    }
  });

  it('a request that sets no size lets the document decide, page by page; A4 where it says nothing', async () => {
    const sized = await renderPdf(
      `<style>@page{size:A5} @page wide{size:A4 landscape} .w{page:wide}</style>${body}<p class="w">Wide</p>`,
      { margin: { top: '5mm' } },
    );
    expect(pdfPageSizes(sized).map(([w, h]) => [Math.round(w / MM), Math.round(h / MM)])).toEqual([
      [148, 210],
      [297, 210],
    ]);
    const plain = pdfInfo(await renderPdf(body));
    expect([Math.round(plain.width / MM), Math.round(plain.height / MM)]).toEqual([210, 297]);
  });

  it("a margin side the request sets wins; one it leaves out takes the document's @page margin", async () => {
    const pdf = await renderPdf(`<style>@page{margin:20mm !important} @page :first{margin-left:30mm !important}</style>${body}`, {
      margin: { top: '10mm' },
    });
    const box = firstWordBox(pdf);
    expect(box.yMin).toBeGreaterThan(10 * MM - 1);
    expect(box.yMin).toBeLessThan(10 * MM + 8);
    expect(box.xMin).toBeGreaterThan(30 * MM - 1);
    expect(box.xMin).toBeLessThan(30 * MM + 3);
  });

  it('the same holds under a Content-Security-Policy that forbids inline styles', async () => {
    const pdf = await renderPdf(
      `<meta http-equiv="Content-Security-Policy" content="style-src 'none'"><p style="margin:0">Hello</p>`,
      { format: 'A5', margin: { left: '1in', top: '1in' } },
    );
    expect(pdfInfo(pdf).width).toBeCloseTo(148 * MM, 0);
    expect(firstWordBox(pdf).xMin).toBeGreaterThan(72 - 1);
  });

  it("docs/rendering.md's worked invoice prints Page N of M, a running header from page 2, the table header on every page and no split row", async () => {
    const readme = fs.readFileSync(new URL('../../docs/rendering.md', import.meta.url), 'utf8');
    const block = /<!-- paged-media-example[^\n]*\n\s*```html\n([\s\S]*?)\n\s*```/.exec(readme);
    expect(block, 'the docs/rendering.md example block').not.toBeNull();
    const html = block![1].replace(/^ {2}/gm, '');
    const pdf = await renderPdf(html, { format: 'A4' });
    const pages = pdfPageTexts(pdf);
    expect(pages.length).toBe(5);
    pages.forEach((text, i) => {
      expect(text).toContain(`Page ${i + 1} of 5`);
      expect(text).toMatch(/#\s+Item\s+Amount/);
      if (i === 0) expect(text).not.toContain('ACME Ltd · Invoice 2026-0042');
      else expect(text).toContain('ACME Ltd · Invoice 2026-0042');
    });
    for (let row = 1; row <= 80; row++) {
      const page = pages.findIndex((text) => new RegExp(`Consulting, week ${row}\\b`).test(text));
      expect(page, `row ${row}`).toBeGreaterThanOrEqual(0);
      expect(pages[page], `row ${row} in one piece`).toContain(`PW-${1000 + row}`);
    }
    expect(pages[4]).toContain('Total due: EUR 9,680.00');
  });
});
