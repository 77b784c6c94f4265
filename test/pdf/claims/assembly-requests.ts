/**
 * A seeded generator of awkward POST /v1/assemble bodies for the assembly claims run: parts that declare
 * profiles (awkward documents of awkward-documents.ts, mostly all declaring the same), finished in every
 * way a request can finish them: a part's title of any character (blank, long, control, bidi), its pages
 * and rotation, stamps of text, images, links, headings and tables over or under the content, `metadata`
 * of any character and language, and a split. What the answer claims must hold on every file it holds.
 * The same seed and index always give the same body.
 */
import { prng } from '../../helpers/prng.js';
import { awkwardDocument, Dice, TITLE_KINDS } from './awkward-documents.js';
import { DECLARATIONS } from './claims-runner.js';

/** One generated request: its name (seed and index), what it mixes, its declaration and its body. */
export interface AssemblyCase {
  name: string;
  constructs: string[];
  /** The profiles every part declares (a mixed case's first part's); only these may be claimed. */
  declaration: string;
  body: Record<string, unknown>;
}

/** Texts a title or a metadata value may be, by kind. */
const TEXTS: Record<string, (d: Dice) => string> = {
  plain: (d) => d.pick(['Statement 42', 'Rechnung März', '請求書 2026', 'Payslip: employee 1001']),
  empty: () => '',
  blank: () => '   ',
  long: (d) => 'Long title '.repeat(d.int(20, 45)).slice(0, 500),
  control: () => 'Bell \u0007 escape \u001b tab\tend',
  bidi: () => 'Invoice \u202eRTL override\u202c done',
  nonchar: () => 'Odd \uFFFE\uFFFF \uD800 end',
  markup: () => '<b>bold</b> & "quoted" \\ (paren',
  emoji: () => '🧾 Receipt 👩🏽‍💻 ✅',
};

/** What a stamp may draw. */
const STAMPS: Record<string, string> = {
  number:
    '<div style="position:absolute; bottom:20pt; right:30pt; font:10pt sans-serif">Page {{page}} of {{pages}} · {{part_title}}</div>',
  image:
    '<img style="position:absolute; top:10pt; left:10pt; width:40pt" src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==">',
  link: '<a style="position:absolute; top:10pt; right:10pt" href="https://example.com/terms">Terms</a>',
  heading: '<h1 style="position:absolute; top:0; left:40%; margin:0; font-size:12pt">Confidential</h1>',
  table: '<table style="position:absolute; bottom:5pt; left:5pt; font-size:7pt"><tr><th>Ref</th><td>{{part}}</td></tr></table>',
  watermark:
    '<div style="position:absolute; top:40%; left:0; right:0; text-align:center; font:60pt serif; color:#eee">DRAFT</div>',
  cjk: '<p lang="ja" style="position:absolute; bottom:0; left:30pt">ページ {{page}} / {{pages}}</p>',
};

/** Selections every part has pages for (a part may be one page long). */
const PAGES = ['1', '-1', '1-', '1,-1'];
/** What a tame part leaves out: every title but a plain one, and ill-formed languages. */
const TAME = [...TITLE_KINDS.filter((k) => k !== 'plain').map((k) => `title:${k}`), 'bad-lang'];
const LANGS = ['en', 'de-CH', 'ja', 'zh-Hant-TW', 'ar-EG', 'EN-us', 'x-private', 'i-navajo', 'sr-Latn-RS'];

/** Request `index` of the run seeded `seed`. */
export function assemblyCase(seed: number, index: number): AssemblyCase {
  const d = new Dice(prng((seed * 0x2545f491) ^ (index * 0x9e3779b1) ^ 0x68e31da4));
  const constructs: string[] = [];
  const declaration = d.pick(DECLARATIONS);
  const parts = Array.from({ length: d.int(1, 3) }, (_, k) => {
    // Half the parts keep to what meets the profiles (plain titles, well-formed languages), so that the
    // finishing has claims to break; the rest are as awkward as any.
    const tame = d.chance(0.5);
    const doc = awkwardDocument(seed, index * 8 + k, tame ? { exclude: TAME } : {});
    // Now and then a part declares less than the first: the assembly must then claim only what all meet.
    const declares = k > 0 && d.chance(0.1) ? d.pick(DECLARATIONS) : declaration;
    if (declares !== declaration) constructs.push('mixed-declarations');
    const part: Record<string, unknown> = { html: doc.html(declares) };
    if (d.chance(0.4)) {
      const kind = d.pick(Object.keys(TEXTS));
      part.title = TEXTS[kind](d);
      constructs.push(`part-title:${kind}`);
    }
    if (d.chance(0.3)) {
      part.pages = d.pick(PAGES);
      constructs.push('pages');
    }
    if (d.chance(0.3)) {
      part.rotate = d.pick([90, 180, 270]);
      constructs.push('rotate');
    }
    return part;
  });
  const body: Record<string, unknown> = { parts };
  if (d.chance(0.6)) {
    body.stamps = Array.from({ length: d.int(1, 3) }, () => {
      const kind = d.pick(Object.keys(STAMPS));
      constructs.push(`stamp:${kind}`);
      return {
        html: STAMPS[kind],
        ...(d.chance(0.3) ? { layer: 'under' } : {}),
        ...(d.chance(0.2) ? { pages: '1' } : {}),
      };
    });
  }
  if (d.chance(0.5)) {
    const metadata: Record<string, string> = {};
    for (const field of ['title', 'author', 'subject', 'keywords'])
      if (d.chance(0.5)) {
        const kind = d.pick(Object.keys(TEXTS));
        metadata[field] = TEXTS[kind](d);
        constructs.push(`metadata.${field}:${kind}`);
      }
    if (d.chance(0.4)) {
      metadata.lang = d.pick(LANGS);
      constructs.push(`metadata.lang:${metadata.lang}`);
    }
    body.metadata = metadata;
  }
  if (d.chance(0.25)) {
    body.split = d.pick<unknown>(['parts', { every: 1 }, { every: 2 }]);
    constructs.push(`split:${JSON.stringify(body.split)}`);
  }
  return { name: `s${seed}-a${index}`, constructs: [...new Set(constructs)].sort(), declaration, body };
}
