/**
 * A seeded generator of awkward HTML documents for the claims differential test: random mixes of what
 * real pages and attackers put in front of the PDF profiles (odd `lang` values, titles of any character,
 * irregular tables and lists, forms, iframes, SVG, canvas, emoji, generated content, fixed elements, deep
 * nesting, long links, many scripts, page breaks). The same seed and index always give the same document,
 * so a failure names its seed and index and can be written out as a fixture.
 */
import { png } from '../../fixtures/pdf/profile-documents.js';
import { prng } from '../../helpers/prng.js';

/** The random choices a construct makes. */
export class Dice {
  /** The ill-formed `lang` values this document may use (the good ones when a run leaves them out). */
  badLangs: readonly string[] = BAD_LANGS;
  constructor(readonly next: () => number) {}
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** A generated document: its name (seed and index), the constructs it mixes, and its HTML with a slot for the declaration. */
export interface AwkwardDocument {
  name: string;
  constructs: string[];
  /** The document declaring `profiles` in `<meta name="pdf-profile">`. */
  html(profiles: string): string;
}

const TEXT: Record<string, { lang: string; words: string[] }> = {
  latin: { lang: 'en', words: ['invoice', 'office', 'affine', 'ﬁle', 'naïve', 'café', 'Straße', 'Ångström', 'œuvre', 'total'] },
  cjk: { lang: 'ja', words: ['請求書', '日本語', '中文字', '東京都', 'ひらがな', 'カタカナ', '漢字', '합계'] },
  arabic: { lang: 'ar', words: ['فاتورة', 'المجموع', 'شركة', 'السعر', 'العربية'] },
  hebrew: { lang: 'he', words: ['חשבונית', 'סכום', 'עברית', 'שלום'] },
  thai: { lang: 'th', words: ['ใบแจ้งหนี้', 'ภาษาไทย', 'ราคา', 'ผู้ใหญ่', 'น้ำ'] },
  devanagari: { lang: 'hi', words: ['चालान', 'हिन्दी', 'कुल', 'क्षत्रिय'] },
  cyrillic: { lang: 'ru', words: ['счёт', 'Итого', 'русский', 'Ёжик'] },
  greek: { lang: 'el', words: ['τιμολόγιο', 'σύνολο', 'Ελληνικά'] },
  emoji: { lang: 'en', words: ['📄', '✅', '👩🏽‍💻', '🇫🇷', '❤️', '🧾', '1️⃣'] },
};
const GOOD_LANGS = ['en', 'en-US', 'en-GB', 'de-CH', 'ja', 'zh-Hant-TW', 'sr-Latn-RS', 'ar-EG', 'th', 'es-419', 'EN-us'];
/** Ill-formed tags, and well-formed odd ones (private use, grandfathered) a checker may get wrong. */
const BAD_LANGS = [
  'x-klingon',
  'i-navajo',
  'en_US',
  '',
  ' ',
  'english',
  '123',
  'e',
  'en-',
  '-en',
  'en--us',
  'a"b',
  "fr'",
  'de\u0001',
  'en US',
  'toolonglanguage',
  'zh_TW',
];

function words(d: Dice, script: string, n: number): string {
  const pool = TEXT[script]?.words ?? TEXT.latin.words;
  return Array.from({ length: n }, () => d.pick(pool)).join(script === 'cjk' || script === 'thai' ? '' : ' ');
}

/** Scripts by weight: CJK and colour emoji cost Chromium seconds of font subsetting a render, so they come less often. */
const SCRIPTS = [
  'latin',
  'latin',
  'latin',
  'latin',
  'latin',
  'latin',
  'cyrillic',
  'greek',
  'arabic',
  'hebrew',
  'thai',
  'devanagari',
  'cjk',
  'emoji',
];

function text(d: Dice, n = d.int(3, 20)): string {
  return words(d, d.chance(0.5) ? 'latin' : d.pick(SCRIPTS), n);
}

function langAttr(d: Dice): string {
  if (d.chance(0.5)) return '';
  return ` lang="${escapeAttr(d.chance(0.7) ? d.pick(GOOD_LANGS) : d.pick(d.badLangs))}"`;
}

function escapeAttr(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
}

const RED_PNG = `data:image/png;base64,${png(8, 8, (x, y) => [200, (x * 30) % 255, y * 20]).toString('base64')}`;
const SVG_IMG = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><circle cx="10" cy="10" r="8" fill="teal" fill-opacity="0.5"/></svg>').toString('base64')}`;

/** Each construct: a name (what a failure reports) and the HTML it adds to the body. */
export const CONSTRUCTS: Record<string, (d: Dice) => string> = {
  paragraph: (d) => `<p${langAttr(d)}>${text(d)}</p>`,
  heading: (d) => {
    const level = d.int(1, 6);
    return `<h${level}${langAttr(d)}>${text(d, d.int(1, 5))}</h${level}>`;
  },
  'aria-heading': (d) => `<div role="heading" aria-level="${d.int(1, 9)}">${text(d, 3)}</div>`,
  link: (d) => {
    const length = d.pick([10, 80, 400, 1500, 4000]);
    const href = `https://example.com/${'p'.repeat(length)}?q=${encodeURIComponent(text(d, 2))}`;
    return `<p>See <a href="${href}"${d.chance(0.3) ? ` title="${escapeAttr(text(d, 3))}"` : ''}>${text(d, d.int(1, 40))}</a>.</p>`;
  },
  'fragment-link': (d) => `<p><a href="#${d.pick(['top', 'missing', 'sec-1'])}">${text(d, 2)}</a></p><h2 id="sec-1">Section</h2>`,
  'empty-link': () =>
    `<p><a href="https://example.com/empty"></a> <a href="https://example.com/img"><img src="${RED_PNG}" alt=""></a></p>`,
  image: (d) => {
    const alt = d.pick(['', ' alt=""', ` alt="${escapeAttr(text(d, 3))}"`]);
    return `<p><img src="${d.pick([RED_PNG, SVG_IMG])}"${alt} width="${d.int(8, 120)}"></p>`;
  },
  figure: (d) =>
    `<figure><img src="${RED_PNG}" alt="${escapeAttr(text(d, 2))}" width="40"><figcaption>${text(d, 4)}</figcaption></figure>`,
  'inline-svg': (d) =>
    `<svg width="60" height="40"${d.chance(0.5) ? ' role="img" aria-label="shape"' : ''}>${d.chance(0.5) ? `<title>${text(d, 2)}</title>` : ''}<rect width="50" height="30" fill="orange" opacity="0.6"/><text x="4" y="20">${text(d, 1)}</text></svg>`,
  canvas: (d) => {
    const id = `c${d.int(0, 1e6)}`;
    const label = d.pick(['', ` aria-label="${escapeAttr(text(d, 3))}"`, ' aria-hidden="true"', ' role="img"']);
    return `<canvas id="${id}" width="80" height="40"${label}></canvas><script>{const c=document.getElementById('${id}').getContext('2d');c.fillStyle='rgba(0,128,255,0.5)';c.fillRect(5,5,60,25);c.fillText('${words(d, 'latin', 2)}',8,20);}</script>`;
  },
  form: (d) =>
    `<form><label for="f1">${text(d, 2)}</label> <input id="f1" value="${escapeAttr(text(d, 2))}"> <input type="checkbox" checked> <select><option>${text(d, 1)}</option></select> <textarea>${text(d, 5)}</textarea> <button>${text(d, 1)}</button>${d.chance(0.5) ? ' <input type="radio" name="r"> <input type="range">' : ''}</form>`,
  iframe: (d) =>
    `<iframe title="${escapeAttr(text(d, 2))}" width="200" height="60" srcdoc="${escapeAttr(`<p>${text(d, 5)}</p><h3>${text(d, 1)}</h3>`)}"></iframe>`,
  'generated-content': (d) => {
    const id = `g${d.int(0, 1e6)}`;
    return `<style>.${id}::before{content:"${d.pick(['★ ', '→ ', 'Note: ', '§'])}"} .${id}::after{content:" ${d.pick(['✓', '(fin)', '»', '1.'])}"}</style><p class="${id}">${text(d)}</p>`;
  },
  'fixed-element': (d) =>
    `<div style="position:fixed;${d.pick(['top', 'bottom'])}:0;right:0;background:rgba(255,255,0,0.4)">${text(d, 3)}</div>`,
  'deep-nesting': (d) => {
    const depth = d.int(20, 150);
    const tag = d.pick(['div', 'span', 'section', 'blockquote']);
    return `${`<${tag}>`.repeat(depth)}${text(d, 3)}${`</${tag}>`.repeat(depth)}`;
  },
  table: (d) => {
    const rows = d.int(1, 5);
    const cols = d.int(1, 4);
    const head = d.chance(0.6)
      ? `<thead><tr>${Array.from({ length: cols }, () => `<th>${text(d, 1)}</th>`).join('')}</tr></thead>`
      : '';
    const body = Array.from(
      { length: rows },
      () => `<tr>${Array.from({ length: cols }, () => `<td>${text(d, 2)}</td>`).join('')}</tr>`,
    );
    return `<table border="1">${d.chance(0.4) ? `<caption>${text(d, 2)}</caption>` : ''}${head}<tbody>${body.join('')}</tbody></table>`;
  },
  'irregular-table': (d) => {
    const rows = Array.from(
      { length: d.int(2, 4) },
      () => `<tr>${Array.from({ length: d.int(1, 5) }, () => `<td>${text(d, 1)}</td>`).join('')}</tr>`,
    );
    return `<table border="1">${rows.join('')}</table>`;
  },
  'spanning-table': (d) =>
    `<table border="1"><tr><th colspan="2">${text(d, 1)}</th><th rowspan="2">${text(d, 1)}</th></tr><tr><td>${text(d, 1)}</td><td>${text(d, 1)}</td></tr></table>`,
  'layout-table': (d) => `<table role="presentation"><tr><td>${text(d, 3)}</td><td>${text(d, 3)}</td></tr></table>`,
  list: (d) => {
    const tag = d.pick(['ul', 'ol']);
    const items = Array.from(
      { length: d.int(1, 5) },
      () => `<li>${text(d, 3)}${d.chance(0.2) ? `<ul><li>${text(d, 2)}</li></ul>` : ''}</li>`,
    );
    return `<${tag}>${items.join('')}</${tag}>`;
  },
  'list-without-li': (d) => {
    const tag = d.pick(['ul', 'ol']);
    const inside = d.pick([
      `<div>${text(d, 3)}</div>`,
      `<p>${text(d, 3)}</p>`,
      text(d, 3),
      `<li>${text(d, 2)}</li><div>${text(d, 2)}</div>`,
    ]);
    return `<${tag}>${inside}</${tag}>`;
  },
  'definition-list': (d) => `<dl><dt>${text(d, 1)}</dt><dd>${text(d, 4)}</dd><dt>${text(d, 1)}</dt></dl>`,
  'details-summary': (d) => `<details${d.chance(0.5) ? ' open' : ''}><summary>${text(d, 2)}</summary><p>${text(d)}</p></details>`,
  'pre-code': (d) => `<pre><code>const x = "${words(d, 'latin', 3)}";\n\tindent\t${text(d, 2)}</code></pre>`,
  'inline-semantics': (d) =>
    `<p>${text(d, 2)} <abbr title="x">ABBR</abbr> H<sub>2</sub>O x<sup>2</sup> <em>${text(d, 1)}</em> <q>${text(d, 2)}</q> <mark>${text(d, 1)}</mark> <s>old</s> <small>fine</small></p>`,
  'hidden-content': (d) =>
    `<div style="display:none">${text(d)}</div><div aria-hidden="true">${text(d, 3)}</div><div style="visibility:hidden">${text(d, 2)}</div>`,
  'page-break': (d) => `<div style="break-before:page">${text(d, 3)}</div>`,
  transparency: (d) =>
    `<div style="opacity:${d.pick([0.2, 0.5, 0.9])};background:linear-gradient(90deg,red,blue);mix-blend-mode:${d.pick(['normal', 'multiply', 'screen'])}">${text(d, 4)}</div>`,
  'vertical-writing': (d) => `<div style="writing-mode:vertical-rl;height:120px" lang="ja">${words(d, 'cjk', 6)}</div>`,
  'bidi-mix': (d) =>
    `<p dir="${d.pick(['rtl', 'ltr', 'auto'])}">${words(d, 'arabic', 3)} 123 ${words(d, 'latin', 2)} ‮reversed‬ ${words(d, 'hebrew', 2)}</p>`,
  'transform-shadow': (d) =>
    `<p style="transform:rotate(${d.int(-30, 30)}deg);text-shadow:1px 1px 2px gray;letter-spacing:${d.int(0, 4)}px">${text(d, 4)}</p>`,
  'odd-characters': (d) =>
    `<p>${text(d, 2)} ${d.pick(['\u00ad soft', 'zero\u200bwidth', 'nbsp\u00a0here', 'ｆｕｌｌ', 'ﬀ ﬃ ﬄ', 'Ω≈ç√∫', '½ ⅞ ²', '\u2028line'])} ${text(d, 2)}</p>`,
  'list-item-outside-list': (d) =>
    d.pick([
      `<div><li>${text(d, 2)}</li></div>`,
      `<article><p>${text(d, 3)}</p><li>${text(d, 2)}</li><li>${text(d, 2)}</li></article>`,
      `<div role="listitem">${text(d, 2)}</div>`,
      `<section><li role="listitem">${text(d, 2)}</li></section>`,
    ]),
  'figure-without-alt': (d) =>
    d.pick([
      `<figure><img src="${RED_PNG}" alt="" width="40"><figcaption>${text(d, 3)}</figcaption></figure>`,
      `<figure><p>${text(d, 4)}</p><figcaption>${text(d, 2)}</figcaption></figure>`,
      `<div role="figure">${text(d, 3)}</div>`,
      '<svg role="img" width="40" height="20"><rect width="30" height="10" fill="teal"/></svg>',
      `<div role="img" style="width:30px;height:30px;background:url(${RED_PNG})"></div>`,
      `<div role="img" aria-label="${escapeAttr(text(d, 2))}" style="width:30px;height:30px;background:url(${SVG_IMG})"></div>`,
      `<svg role="img" aria-label="${escapeAttr(text(d, 2))}" width="40" height="20"><rect width="30" height="10"/></svg>`,
    ]),
  'cell-outside-row': (d) =>
    d.pick([
      `<div role="cell">${text(d, 1)}</div>`,
      `<div role="table"><div role="cell">${text(d, 1)}</div><div role="cell">${text(d, 1)}</div></div>`,
      `<div role="row"><div role="cell">${text(d, 1)}</div></div>`,
      `<div role="columnheader">${text(d, 1)}</div>`,
      `<div id="t${d.int(0, 1e6)}"></div><script>document.currentScript.previousElementSibling.append(Object.assign(document.createElement('td'), { textContent: '${words(d, 'latin', 1)}' }))</script>`,
    ]),
  'heading-skip': (d) => {
    const level = d.int(3, 6);
    return d.pick([
      `<h1>${text(d, 2)}</h1><h${level}>${text(d, 2)}</h${level}>`,
      `<div role="heading" aria-level="${d.pick(['9', '0', 'x'])}">${text(d, 2)}</div>`,
      `<div role="heading">${text(d, 2)}</div><div role="heading">${text(d, 2)}</div>`,
    ]);
  },
  'no-glyph-characters': (d) =>
    `<p>${text(d, 2)} ${d.pick(['\ue000\ue001', '\u{10fffd}', '\u0378', '\u{e0001}', '\u{f0000}'])}</p>`,
};

/** The constructs a document mixes by default: all of them, and a page size past PDF/A's limits (not a body construct). */
export const ALL_CONSTRUCTS = [...Object.keys(CONSTRUCTS), 'oversized-page'];
/** Page sizes PDF/A does not allow (a side over 14,400 units, 200 in), or just within them. */
const PAGE_SIZES = ['250in 11in', '8.5in 210in', '201in 201in', '199in 11in', '5000mm 297mm'];

const TITLES: Array<(d: Dice) => string | undefined> = [
  (d) => text(d, d.int(1, 6)),
  () => undefined,
  () => '',
  (d) => text(d, d.int(200, 900)),
  (d) => `${text(d, 2)} \u0007\u001b control`,
  (d) => `${text(d, 2)} & <escaped> "quotes" 'apos'`,
  (d) => `${text(d, 2)} \u202e RTL override`,
  (d) => `${text(d, 2)} \uFFFE\uFFFF nonchar`,
];
/** The kinds of `<title>` a document may have (a construct named `title:<kind>`). */
export const TITLE_KINDS = ['plain', 'missing', 'empty', 'long', 'control', 'markup', 'bidi', 'nonchar'];

/**
 * What a run leaves out: construct names (`irregular-table`), title kinds (`title:nonchar`) and `bad-lang`
 * (no ill-formed `lang` anywhere), for a suite that keeps to what the code already meets.
 */
export interface GenerateOptions {
  exclude?: readonly string[];
}

/** Document `index` of the run seeded `seed`: the same pair always gives the same document. */
export function awkwardDocument(seed: number, index: number, opts: GenerateOptions = {}): AwkwardDocument {
  const d = new Dice(prng((seed * 0x9e3779b1) ^ (index * 0x85ebca6b) ^ 0x5bd1e995));
  const exclude = new Set(opts.exclude ?? []);
  const allowed = Object.keys(CONSTRUCTS).filter((c) => !exclude.has(c));
  const titleKinds = TITLE_KINDS.filter((k) => !exclude.has(`title:${k}`));
  const badLangs = exclude.has('bad-lang') ? GOOD_LANGS : BAD_LANGS;
  d.badLangs = badLangs;
  const titleKind = d.chance(0.6) ? 'plain' : d.pick(titleKinds);
  const title = TITLES[TITLE_KINDS.indexOf(titleKind)]?.(d);
  const htmlLang = d.chance(0.85) ? d.pick(d.chance(0.75) ? GOOD_LANGS : badLangs) : undefined;
  const used: string[] = [];
  const body: string[] = [];
  for (let i = d.int(3, 9); i > 0; i--) {
    const name = d.pick(allowed);
    used.push(name);
    body.push((CONSTRUCTS[name] as (d: Dice) => string)(d));
  }
  const pageSize = exclude.has('oversized-page') || !d.chance(0.08) ? undefined : d.pick(PAGE_SIZES);
  const constructs = [
    `title:${titleKind}`,
    ...(pageSize ? ['oversized-page'] : []),
    `html-lang:${htmlLang === undefined ? 'none' : JSON.stringify(htmlLang)}`,
    ...[...new Set(used)].sort(),
  ];
  const head =
    `${title === undefined ? '' : `<title>${escapeAttr(title)}</title>`}<style>body{font-family:${d.pick(['serif', 'sans-serif', '"Noto Sans"', 'monospace'])}}` +
    `${pageSize ? `@page{size:${pageSize}}` : ''}</style>`;
  const bodyHtml = body.join('\n');
  return {
    name: `s${seed}-d${index}`,
    constructs,
    html: (profiles) =>
      `<!doctype html>\n<html${htmlLang === undefined ? '' : ` lang="${escapeAttr(htmlLang)}"`}><head><meta charset="utf-8">` +
      `<meta name="pdf-profile" content="${profiles}">${head}</head>\n<body>\n${bodyHtml}\n</body></html>\n`,
  };
}
