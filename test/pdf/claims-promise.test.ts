/**
 * A claim is a promise on any input: documents that once got a false PDF/A or PDF/UA claim (odd
 * characters in the title, a language that is no language tag, characters no font has, a 40,000-character
 * link, an irregular table, a list holding a <div>, a page wider than PDF/A allows, a list item outside a
 * list, a figure without alternative text, a cell outside a row, a heading without a level) either get a PDF veraPDF passes for what it claims,
 * or the claim is withheld with a `conformance` warning naming veraPDF's rule, and veraPDF fails that PDF
 * on that rule. Beside each, the same document fixed claims what it declares.
 */
import * as libxml from 'libxml2-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReportEntry } from '../../src/report/report.js';
import { postRender } from '../helpers/render.js';
import { type DeclarationsApp, startDeclarationsApp } from './declarations-app.js';
import { VERAPDF, VERAPDF_SKIPPED, verapdf } from './verapdf.js';

let ctx: DeclarationsApp;
beforeAll(async () => {
  ctx = await startDeclarationsApp({ allowLoopback: false });
});
afterAll(() => ctx?.close());

const page = (profile: string, body: string, opts: { lang?: string; head?: string } = {}) =>
  `<!doctype html><html lang="${opts.lang ?? 'en'}"><head><meta name="pdf-profile" content="${profile}">` +
  `<title>Statement</title>${opts.head ?? ''}</head><body><h1>Statement</h1>${body}</body></html>`;

/** The PDF's XMP packet as text (empty when it has none). */
function xmpOf(pdf: Buffer): string {
  const text = pdf.toString('utf8');
  const start = text.lastIndexOf('<x:xmpmeta');
  return start < 0 ? '' : text.slice(start, text.indexOf('</x:xmpmeta>', start) + '</x:xmpmeta>'.length);
}

/** What the XMP claims, in the names a document declares. */
function claimsOf(pdf: Buffer): string[] {
  const xmp = xmpOf(pdf);
  const claims: string[] = [];
  const part = /<pdfaid:part>(\d)<\/pdfaid:part>/.exec(xmp)?.[1];
  const level = /<pdfaid:conformance>([A-Z])<\/pdfaid:conformance>/.exec(xmp)?.[1];
  if (part) claims.push(`PDF/A-${part}${level?.toLowerCase() ?? ''}`);
  if (/<pdfuaid:part>1<\/pdfuaid:part>/.test(xmp)) claims.push('PDF/UA-1');
  return claims;
}

const FLAVOUR: Record<string, string> = { 'PDF/A-2b': '2b', 'PDF/UA-1': 'ua1' };
const PUA = '\ue000\ue001 \u{10fffd} \u0378';
const DOT =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const row = (n: number, cell = 'td') => `<tr>${Array.from({ length: n }, (_, i) => `<${cell}>${i + 1}</${cell}>`).join('')}</tr>`;

interface Case {
  name: string;
  html: string;
  claims: string[];
  /** The warnings' profile and clause, when the claim is withheld. */
  withheld: string[];
}

const CASES: Case[] = [
  {
    name: 'title-noncharacters',
    html: page(
      'PDF/A-2b',
      '<p>Balance</p><script>document.title = "State\\uFFFEment\\uFFFF";' +
        'for (const [n, v] of [["author", "Ada\\u0001 Lovelace"], ["keywords", "bank\\u0007 statement"], ["description", "a\\u001Fb"]]) {' +
        'const m = document.createElement("meta"); m.name = n; m.content = v; document.head.append(m); }</script>',
    ),
    claims: ['PDF/A-2b'],
    withheld: [],
  },
  {
    name: 'lang-underscore',
    html: page('PDF/UA-1', '<p>Balance</p>', { lang: 'en_US' }),
    claims: [],
    withheld: ['PDF/UA-1 7.2-29'],
  },
  {
    name: 'lang-control-quote',
    html: page('PDF/UA-1', '<p>Balance</p>', { lang: 'en&quot;&#1;x' }),
    claims: [],
    withheld: ['PDF/UA-1 7.2-29'],
  },
  { name: 'lang-paragraph', html: page('PDF/UA-1', '<p lang="de_DE">Saldo</p>'), claims: [], withheld: ['PDF/UA-1 7.2-29'] },
  {
    name: 'lang-fixed',
    html: page('PDF/UA-1', '<p lang="de-DE">Saldo</p>', { lang: 'en-US' }),
    claims: ['PDF/UA-1'],
    withheld: [],
  },
  {
    name: 'notdef',
    html: page('PDF/A-2b, PDF/UA-1', `<p>Balance ${PUA} due</p>`),
    claims: [],
    withheld: ['PDF/A-2b 6.2.11.8-1', 'PDF/UA-1 7.21.8-1'],
  },
  {
    name: 'notdef-fixed',
    html: page('PDF/A-2b, PDF/UA-1', '<p>Balance due</p>'),
    claims: ['PDF/A-2b', 'PDF/UA-1'],
    withheld: [],
  },
  {
    name: 'long-href',
    html: page('PDF/A-2b', `<p><a href="https://pay.example/${'a'.repeat(40_000)}">Pay</a></p>`),
    claims: [],
    withheld: ['PDF/A-2b 6.1.13-3'],
  },
  {
    name: 'long-href-fixed',
    html: page('PDF/A-2b', `<p><a href="https://pay.example/${'a'.repeat(3000)}">Pay</a></p>`),
    claims: ['PDF/A-2b'],
    withheld: [],
  },
  {
    name: 'irregular-table',
    html: page('PDF/UA-1', `<table>${row(3, 'th')}${row(1)}${row(5)}</table>`),
    claims: [],
    withheld: ['PDF/UA-1 7.2-42'],
  },
  {
    name: 'spanned-table',
    html: page(
      'PDF/UA-1',
      `<table><thead>${row(3, 'th')}</thead><tbody><tr><td colspan="2">1</td><td rowspan="2">2</td></tr>${row(2)}</tbody></table>`,
    ),
    claims: ['PDF/UA-1'],
    withheld: [],
  },
  {
    name: 'list-holding-div',
    html: page('PDF/UA-1', '<ul><div>Opening balance</div><li>Deposit</li><p>Fees</p><li>Withdrawal</li></ul>'),
    claims: ['PDF/UA-1'],
    withheld: [],
  },
  {
    name: 'page-too-large',
    html: page('PDF/A-2b', '<p>Wide</p>', { head: '<style>@page { size: 250in 11in }</style>' }),
    claims: [],
    withheld: ['PDF/A-2b 6.1.13-11'],
  },
  {
    name: 'page-large-fixed',
    html: page('PDF/A-2b', '<p>Wide</p>', { head: '<style>@page { size: 150in 11in }</style>' }),
    claims: ['PDF/A-2b'],
    withheld: [],
  },
  {
    name: 'list-item-outside-list',
    html: page('PDF/UA-1', '<article><p>Opening balance</p><li>Deposit</li><li>Withdrawal</li></article>'),
    claims: [],
    withheld: ['PDF/UA-1 7.2-17'],
  },
  {
    name: 'figure-around-decoration',
    html: page('PDF/UA-1', `<figure><img src="${DOT}" width="40" alt=""><figcaption>The branch</figcaption></figure>`),
    claims: [],
    withheld: ['PDF/UA-1 7.3-1'],
  },
  {
    name: 'figure-of-text',
    html: page('PDF/UA-1', '<div role="figure">Balance over time</div>'),
    claims: [],
    withheld: ['PDF/UA-1 7.3-1'],
  },
  {
    name: 'figure-with-alternatives',
    html: page(
      'PDF/UA-1',
      `<figure><img src="${DOT}" width="40" alt="The branch"><figcaption>Our branch</figcaption></figure>` +
        '<svg role="img" aria-label="A bar" width="60" height="20"><rect width="50" height="10"/></svg>' +
        `<div role="img" aria-label="Logo" style="width:20px;height:20px;background:url(${DOT})"></div>`,
    ),
    claims: ['PDF/UA-1'],
    withheld: [],
  },
  {
    name: 'cell-outside-row',
    html: page('PDF/UA-1', '<div role="cell">1,250.00</div>'),
    claims: [],
    withheld: ['PDF/UA-1 7.2-9'],
  },
  {
    name: 'row-outside-table',
    html: page('PDF/UA-1', '<div role="row"><div role="cell">1,250.00</div></div>'),
    claims: [],
    withheld: ['PDF/UA-1 7.2-4'],
  },
  {
    name: 'heading-without-level',
    html: page('PDF/UA-1', '<div role="heading" aria-level="9">Fees</div>'),
    claims: [],
    withheld: ['PDF/UA-1 7.4.4-2'],
  },
];

const made: Record<string, Record<string, Buffer>> = { '2b': {}, ua1: {} };

describe('a document that once got a false claim', () => {
  for (const c of CASES) {
    it(`${c.name}: ${c.withheld.length ? `withholds ${c.withheld.join(', ')} with a warning` : `claims ${c.claims.join(', ')}`}`, async () => {
      const res = await postRender(ctx.app, ctx.key, { html: c.html });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const pdf = res.rawPayload;
      const conformance = ctx
        .recordOf(res.headers['x-render-id'])
        .warnings.filter((w): w is Extract<ReportEntry, { kind: 'conformance' }> => w.kind === 'conformance');
      expect(
        conformance.map((w) => `${w.profile} ${w.clause}`),
        JSON.stringify(conformance),
      ).toEqual(c.withheld);
      for (const w of conformance) expect(w.message.length).toBeGreaterThan(40);
      expect(claimsOf(pdf)).toEqual(c.claims);
      // The XMP is well-formed XML, whatever the document's values held.
      const xmp = libxml.XmlDocument.fromString(xmpOf(pdf));
      xmp.dispose();
      for (const profile of [...c.claims, ...c.withheld.map((w) => w.split(' ')[0])]) made[FLAVOUR[profile]][c.name] = pdf;
    });
  }

  it('veraPDF passes every claim, and fails each withheld one on the rule its warning names', { timeout: 300_000 }, () => {
    if (!VERAPDF) {
      console.log(VERAPDF_SKIPPED);
      return;
    }
    for (const [flavour, pdfs] of Object.entries(made)) {
      const found = verapdf(pdfs, flavour);
      for (const c of CASES) {
        const rules = found[c.name];
        if (!rules) continue;
        const profile = Object.entries(FLAVOUR).find(([, f]) => f === flavour)?.[0] as string;
        if (c.claims.includes(profile)) expect(rules, `${c.name} ${flavour}`).toEqual([]);
        for (const w of c.withheld.filter((w) => w.startsWith(profile)))
          expect(rules, `${c.name} ${flavour}`).toContain(w.split(' ')[1]);
      }
    }
  });
});

describe('a report with more entries than it keeps', () => {
  it('keeps the conformance warnings that say why a claim was withheld', async () => {
    const throws = '<script>for (let i = 0; i < 150; i++) setTimeout(() => { throw new Error("e" + i); });</script>';
    const res = await postRender(ctx.app, ctx.key, { html: page('PDF/UA-1', `<p>x</p>${throws}`, { lang: '' }) });
    expect(res.statusCode).toBe(200);
    const { warnings } = ctx.recordOf(res.headers['x-render-id']);
    expect(warnings.filter((w) => w.kind === 'conformance').map((w) => (w.kind === 'conformance' ? w.clause : ''))).toEqual([
      '7.2-34',
    ]);
    expect(warnings.at(-1)?.kind).toBe('truncated');
    expect(claimsOf(res.rawPayload)).toEqual([]);
  });
});
