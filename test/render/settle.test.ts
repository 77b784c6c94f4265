/**
 * When a render prints: after load and fonts, once what the document started on its own has settled —
 * a navigation asked for at load (meta refresh, onload, a zero-delay timer, a form) is followed to the
 * document it leads to, and a fetch chained on a fetch is waited for. Loopback is allowed here so the
 * canary can answer; its pages carry CANARY_TEXT.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressPolicy } from '../../src/net/policy.js';
import { turnsAfterLoad } from '../../src/render/document/page-script.js';
import { BrowserPool } from '../../src/render/pool/browser-pool.js';
import { toPrintParams } from '../../src/render/request/options.js';
import { invoiceDocument } from '../fixtures/corpus/documents.js';
import { noDns } from '../helpers/render.js';
import { CANARY_TEXT, type Canary, startCanary } from './canary.js';
import { pdfText, pixel } from './pdf-tools.js';

const A4 = toPrintParams({});
let canary: Canary;
let pool: BrowserPool;
let base: string;

beforeAll(async () => {
  canary = await startCanary();
  base = `http://127.0.0.1:${canary.port}`;
  pool = await BrowserPool.start({
    policy: createEgressPolicy({ allow: ['127.0.0.1/32'], lookup: noDns }),
    concurrency: 2,
    queueLimit: 8,
    timeoutMs: 10_000,
  });
});

afterAll(async () => {
  await pool?.close();
  await canary?.close();
});

const render = async (html: string): Promise<string> => pdfText((await pool.render('a', html, A4)).pdf);

describe('a navigation the document asks for at load is followed', () => {
  it.each([
    ['a meta refresh of 0 s', () => `<meta http-equiv="refresh" content="0;url=${base}/meta"><p>before</p>`],
    ['an onload handler', () => `<body onload="location.href = '${base}/onload'"><p>before</p></body>`],
    ['a zero-delay timer', () => `<p>before</p><script>setTimeout(() => { location.href = '${base}/timer'; }, 0)</script>`],
    ['an inline script', () => `<p>before</p><script>location.href = '${base}/inline'</script>`],
    ['a form submitted at once', () => `<form action="${base}/form"></form><script>document.forms[0].submit()</script>`],
    [
      'a handler attribute after a slash, no script element',
      () => `<p>before</p><img/src="data:,"/onerror="setTimeout(() => { location.href = '${base}/handler'; }, 0)">`,
    ],
  ])('%s', async (_how, html) => {
    const text = await render(html());
    expect(text).toContain(CANARY_TEXT);
    expect(text).not.toContain('before');
  });
});

it('a fetch chained on a fetch after load is waited for', async () => {
  const text = await render(`<p id="out">waiting</p><script>
  window.addEventListener('load', () => {
    fetch('${base}/first').then((r) => r.text())
      .then(() => fetch('${base}/second')).then((r) => r.text())
      .then((t) => { out.textContent = 'chained: ' + (t.includes('${CANARY_TEXT}') ? 'both answered' : 'odd answer'); });
  });
  </script>`);
  expect(text).toContain('chained: both answered');
});

it('a scripted document that loads nothing prints what its scripts wrote by load', async () => {
  const text = await render(`<p id="out"></p><script>
  out.textContent = 'written during parse';
  window.addEventListener('load', () => out.append(' and at load'));
  setTimeout(() => out.append(' and in the next task'), 0);
  </script>`);
  expect(text).toContain('written during parse and at load and in the next task');
});

it('a document that replaces the globals the wait uses (setTimeout, addEventListener, Promise, readyState, NodeList) still prints', async () => {
  const text = await render(`<p>shimmed</p><img loading="lazy" src="data:,"><script>
  Object.defineProperty(NodeList.prototype, 'length', { get: () => 1e9 });
  NodeList.prototype.item = () => null;
  window.setTimeout = () => 0;
  window.addEventListener = () => undefined;
  window.Promise = function Broken() {};
  Object.defineProperty(document, 'readyState', { get: () => 'loading' });
  Object.defineProperty(document, 'fonts', { get: () => ({ ready: new Promise(() => {}) }) });
  </script>`);
  expect(text).toContain('shimmed');
});

it('a document that opens dialogs while it loads (alert, confirm, prompt, beforeunload) prints without waiting for an answer', async () => {
  const started = Date.now();
  const text = await render(`<p id="out"></p><script>
  window.addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'stay'; });
  alert('one');
  const answers = [confirm('two'), prompt('three', 'default')];
  out.textContent = 'after dialogs: ' + JSON.stringify(answers);
  </script>`);
  // Dismissed: confirm answers false, prompt null.
  expect(text).toContain('after dialogs: [false,null]');
  expect(Date.now() - started).toBeLessThan(5000);
  // The slot's reset (a navigation that asks beforeunload) still leaves a working slot for the next render.
  expect(await render('<p>next render</p>')).toContain('next render');
  expect(await render('<p>and the one after</p>')).toContain('and the one after');
});

it('a document lays out in an 800×600 window before it prints, render after render', async () => {
  const measure = `<p id="out"></p><script>out.textContent = 'window ' + innerWidth + 'x' + innerHeight + ' dpr ' + devicePixelRatio;</script>`;
  expect(await render(measure)).toContain('window 800x600 dpr 1');
  expect(await render(measure)).toContain('window 800x600 dpr 1');
});

it('lazy images print, on the first screen and below it (each render of several)', async () => {
  const image = (n: number) => `<img loading="lazy" style="display:block;width:100%;height:200px" src="${base}/red.svg?${n}">`;
  for (let n = 0; n < 4; n++) {
    const pdf = (
      await pool.render('a', `<body style="margin:0">${image(n)}<div style="height:1200px"></div>${image(n + 10)}</body>`, A4)
    ).pdf;
    // The first image is the top 200 px of page 1 (42 px at 20 dpi); the second, 1,400 px from the top
    // (14.6 in), prints on page 2 from 2.9 in to 5 in (58 to 100 px at 20 dpi).
    expect(pixel(pdf, 60, 20)).toEqual([255, 0, 0]);
    expect(pixel(pdf, 60, 80, 20, 2)).toEqual([255, 0, 0]);
  }
});

describe('the task turns after load: only for HTML that could start something then', () => {
  it.each([
    ['<p>x</p><script>setTimeout(f, 0)</script>', 2],
    ['<P>x</P><SCRIPT SRC="a.js"></SCRIPT>', 2],
    ['<body onload="f()">', 2],
    ['<img src="x"onerror="f()">', 2],
    ['<img/src="x"/onerror = f()>', 2],
    ['<svg><animate onbegin="f()"/></svg>', 2],
    ['<meta http-equiv="refresh" content="0;url=/next">', 2],
    ['<iframe srcdoc="&lt;p&gt;x"></iframe>', 2],
    ['<object data="a.svg"></object><embed src="b.svg">', 2],
    ['<a href="javascript:f()">x</a>', 2],
    ['<meta charset="utf-8"><style>p { color: red }</style><p>one</p>', 0],
  ])('%s → %i', (html, turns) => {
    expect(turnsAfterLoad(html)).toBe(turns);
  });

  it('none for the invoice of the bench; two for a document that navigated (no HTML to read)', () => {
    expect(turnsAfterLoad(invoiceDocument(40))).toBe(0);
    expect(turnsAfterLoad(null)).toBe(2);
  });
});
