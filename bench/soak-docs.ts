/**
 * The documents the soak bench renders: the render corpus (test/fixtures, plus the saved real documents when
 * PAGEWORKS_CORPUS_DIR is set) and heavier ones (a canvas
 * drawing, a 5,000-node DOM, web fonts from a loopback server, a script that leaks 50 MB into a global).
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { corpusDocuments } from '../test/fixtures/corpus/documents.js';
import { extraCorpusDir } from '../test/fixtures/corpus/index.js';

const FONT_FILE = '/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf';

/** A loopback server handing out one TrueType font (CORS open: the document's origin is not the server's). */
export interface FontServer {
  base: string;
  requests: number;
  close(): Promise<void>;
}

/** Starts the font server on 127.0.0.1. */
export async function startFontServer(): Promise<FontServer> {
  const font = fs.readFileSync(FONT_FILE);
  const state = { requests: 0 };
  const server = http.createServer((_req, res) => {
    state.requests += 1;
    res.writeHead(200, { 'content-type': 'font/ttf', 'content-length': font.length, 'access-control-allow-origin': '*' });
    res.end(font);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One document of the mix: `html(n)` builds the n-th render of it (some vary per render). */
export interface SoakDocument {
  name: string;
  html: (n: number) => string;
}

const canvas = `<!doctype html><body style="margin:0"><canvas id="c" width="1600" height="2200"></canvas><script>
const x = document.getElementById('c').getContext('2d');
for (let i = 0; i < 20000; i++) {
  x.fillStyle = 'hsl(' + (i % 360) + ',70%,50%)';
  x.beginPath();
  x.arc((i * 37) % 1600, (i * 53) % 2200, 4 + (i % 23), 0, 2 * Math.PI);
  x.fill();
}
x.font = '48px serif';
x.fillStyle = '#000';
x.fillText('canvas soak', 40, 80);
</script></body>`;

const bigDom = (() => {
  const rows = Array.from(
    { length: 1000 },
    (_, r) => `<tr>${Array.from({ length: 4 }, (_, c) => `<td>r${r} c${c}</td>`).join('')}</tr>`,
  );
  // 1,000 rows × (1 tr + 4 td) = 5,000 elements, plus their text nodes.
  return `<!doctype html><style>td{border:1px solid #999;padding:2px 6px;font:10px sans-serif}</style><table>${rows.join('')}</table>`;
})();

const leak = `<!doctype html><p>leaks 50 MB into a global</p><script>
window.__soakLeak = [];
for (let i = 0; i < 50; i++) window.__soakLeak.push(new Uint8Array(1 << 20).fill(i + 1));
</script>`;

/** A document that loads the font with a new query each render, so every render fetches it through the egress proxy. */
function webFont(fontBase: string): (n: number) => string {
  return (n) =>
    `<!doctype html><style>@font-face{font-family:Soak;src:url(${fontBase}/font.ttf?n=${n}) format('truetype')}` +
    `body{font-family:Soak,serif;font-size:18px}</style><h1>Web font ${n}</h1>${'<p>The quick brown fox jumps over the lazy dog.</p>'.repeat(40)}`;
}

/** The render mix: every corpus document, then the heavier ones. */
export function soakDocuments(fontBase: string): SoakDocument[] {
  const extra = extraCorpusDir('render');
  const saved = extra
    ? fs
        .readdirSync(extra)
        .filter((f) => f.endsWith('.html'))
        .sort()
        .map((f) => ({ name: `saved/${f}`, html: fs.readFileSync(path.join(extra, f), 'utf8') }))
    : [];
  const corpus = [...corpusDocuments(), ...saved].map((d) => ({ name: d.name, html: () => d.html }));
  return [
    ...corpus,
    { name: 'canvas', html: () => canvas },
    { name: 'dom-5000', html: () => bigDom },
    { name: 'web-font', html: webFont(fontBase) },
    { name: 'leak-50mb', html: () => leak },
  ];
}
