/**
 * A cut keeps only the claims that still hold: a part's `pages` and each file of a split are checked again
 * for what taking pages out can break of PDF/UA-1 (headings that now start at an h2 or skip a level, a
 * table whose rows no longer line up). A file that breaks it does not carry pdfuaid in its XMP, the answer
 * does not claim it, and a `conformance` warning names the part or the file; what still claims PDF/UA-1 or
 * PDF/A-3b passes veraPDF.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keepPages } from '../../src/pdf/assemble/keep-pages.js';
import type { ReportEntry } from '../../src/report/report.js';
import { postRender } from '../helpers/render.js';
import { xmpClaimsOf } from '../pdf/assemble-tools.js';
import { type DeclarationsApp, startDeclarationsApp } from '../pdf/declarations-app.js';
import { VERAPDF, VERAPDF_SKIPPED, verapdf } from '../pdf/verapdf.js';
import { postAssemble } from './helpers.js';

const PAGE_BREAKS = 'section { break-after: page; } section:last-child { break-after: auto; }';

/** A PDF/A-3b and PDF/UA-1 document of one section per page. */
function sections(title: string, bodies: string[], css = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="pdf-profile" content="PDF/A-3b, PDF/UA-1"><style>${PAGE_BREAKS} ${css}</style></head>
<body>${bodies.map((b) => `<section>${b}</section>`).join('')}</body></html>`;
}

/** h1 on page 1, h2 on page 2, h3 on page 3. */
const LEVELS = sections('Levels', [
  '<h1>One</h1><p>Page one.</p>',
  '<h2>Two</h2><p>Page two.</p>',
  '<h3>Three</h3><p>Page three.</p>',
]);

/** Rows of a table; row 3's group cell spans rows 3 to 6. */
const SPANNING_ROWS = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => {
  const group = n === 3 ? '<td rowspan="4">Shared</td>' : n > 3 && n <= 6 ? '' : `<td>G${n}</td>`;
  return `<tr><td>Item ${n}</td>${group}</tr>`;
});

/** That table on pages 3 inches high, which break it inside the span (after row 4). */
const SPANNING = sections(
  'Spanning',
  [
    `<h1>Spanning</h1><table><thead><tr><th scope="col">Item</th><th scope="col">Group</th></tr></thead>
<tbody>${SPANNING_ROWS.join('\n')}</tbody></table>`,
  ],
  '@page { size: 4in 3in; margin: 0.2in; } body { margin: 0; font: 11pt serif; } td, th { height: 0.3in; }',
);

const ONLY_A = ['PDF/A-3b'];
const BOTH = ['PDF/A-3b', 'PDF/UA-1'];

let ctx: DeclarationsApp;
/** Every file the tests made, by name, with what its XMP claims: veraPDF checks them all at the end, one run per flavour. */
const made: Record<string, { pdf: Buffer; claims: string[] }> = {};
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-cut-claims-'));

beforeAll(async () => {
  ctx = await startDeclarationsApp({ allowLoopback: false });
}, 120_000);
afterAll(async () => {
  await ctx?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** POST /v1/assemble: the answer's claims header, its record's warnings, and its PDF or the zip's files by name. */
async function assemble(body: unknown) {
  const res = await postAssemble(ctx.app, ctx.key, body);
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  const warnings = ctx.recordOf(res.headers['x-render-id']).warnings as ReportEntry[];
  const files = new Map<string, Buffer>();
  if (res.headers['content-type'] === 'application/zip') {
    const dir = fs.mkdtempSync(path.join(work, 'zip-'));
    fs.writeFileSync(path.join(dir, 'a.zip'), res.rawPayload);
    execFileSync('unzip', ['-q', path.join(dir, 'a.zip'), '-d', path.join(dir, 'out')]);
    for (const name of fs.readdirSync(path.join(dir, 'out')).sort())
      files.set(name, fs.readFileSync(path.join(dir, 'out', name)));
  } else files.set('assembly.pdf', res.rawPayload);
  return { claims: res.headers['x-render-claims'], warnings, files };
}

/** What a file's XMP claims; the file is kept for the veraPDF run at the end. */
function remember(name: string, pdf: Buffer): string[] {
  const claims = xmpClaimsOf(pdf);
  made[name] = { pdf, claims };
  return claims;
}

const notMet = 'so its pages do not meet PDF/UA-1 and it is not claimed';
const startsAt = (label: string, tag: string) => ({
  kind: 'conformance',
  profile: 'PDF/UA-1',
  clause: '7.4.2-1',
  element: label,
  message: `${label}: the first heading of the pages it keeps is an ${tag} (the headings before it are on pages taken out); PDF/UA needs headings to start at h1 and skip no level, ${notMet}`,
});

describe('a part kept to some of its pages', () => {
  it('"2-" of a document whose h1 is on page 1 starts at an h2: PDF/A-3b is claimed, PDF/UA-1 is not, and the warning names the part', async () => {
    const { claims, warnings, files } = await assemble({ parts: [{ html: LEVELS, pages: '2-' }] });
    const xmp = remember('part-2-', files.get('assembly.pdf') as Buffer);
    expect(claims).toBe('PDF/A-3b');
    expect(warnings).toEqual([{ ...startsAt('parts[0]', 'h2'), part: 'parts[0]' }]);
    expect(xmp).toEqual(ONLY_A);
  }, 60_000);

  it('"1,3" keeps an h1 and an h3 without the h2 between them; the whole document still claims both', async () => {
    const cut = await assemble({ parts: [{ html: LEVELS, pages: '1,3' }] });
    const whole = await assemble({ parts: [{ html: LEVELS, pages: '1-3' }] });
    const xmp = [
      remember('part-1-3', cut.files.get('assembly.pdf') as Buffer),
      remember('part-1-3-all', whole.files.get('assembly.pdf') as Buffer),
    ];
    expect(cut.claims).toBe('PDF/A-3b');
    expect(cut.warnings).toEqual([
      {
        kind: 'conformance',
        profile: 'PDF/UA-1',
        clause: '7.4.2-1',
        element: 'parts[0]',
        part: 'parts[0]',
        message: `parts[0]: in the pages it keeps an h3 follows an h1 (the heading between them is on a page taken out); PDF/UA needs headings that skip no level, ${notMet}`,
      },
    ]);
    expect(whole.claims).toBe('PDF/A-3b, PDF/UA-1');
    expect(whole.warnings).toEqual([]);
    expect(xmp).toEqual([ONLY_A, BOTH]);
  }, 60_000);
});

describe('a split', () => {
  it('{"every": 1}: each file claims what its own page meets, the answer what every file does', async () => {
    const { claims, warnings, files } = await assemble({ parts: [{ html: LEVELS }], split: { every: 1 } });
    expect([...files.keys()]).toEqual(['page-1.pdf', 'page-2.pdf', 'page-3.pdf']);
    const xmp = [1, 2, 3].map((n) => remember(`every-${n}`, files.get(`page-${n}.pdf`) as Buffer));
    expect(claims).toBe('PDF/A-3b');
    expect(warnings).toEqual([startsAt('split page-2.pdf', 'h2'), startsAt('split page-3.pdf', 'h3')]);
    expect(xmp).toEqual([BOTH, ONLY_A, ONLY_A]);
    // Nothing of the claim is left in the bytes of a file that lost it, not even in an object no one points at.
    expect((files.get('page-2.pdf') as Buffer).toString('latin1')).not.toContain('pdfuaid:part');
  }, 60_000);
});

describe('a table cut at a page break', () => {
  it('a cell spanning rows on both sides of the break, kept on one side only, withholds PDF/UA-1 from that file', async () => {
    const res = await postRender(ctx.app, ctx.key, { html: SPANNING });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['x-render-claims']).toBe('PDF/A-3b, PDF/UA-1');
    const doc = res.rawPayload;
    const first = await keepPages(doc, { label: 'parts[0]', pages: '1', claims: ['PDF/A-3b', 'PDF/UA-1'] });
    const second = await keepPages(doc, { label: 'parts[0]', pages: '2-', claims: ['PDF/A-3b', 'PDF/UA-1'] });
    const xmp = [remember('table-1', first.pdf), remember('table-2', second.pdf)];
    const cutBy = '(a row, or a cell spanning rows, is cut where a page was taken out)';
    // Page 1 ends after row 4: the cell says 4 rows, page 1 has 2 of them (veraPDF 7.2-41).
    expect(first.withheld).toEqual([
      {
        profile: 'PDF/UA-1',
        clause: '7.2-42',
        element: 'parts[0]',
        message: `parts[0]: in the pages it keeps, a cell of table 1 spans more rows than the pages keep of it ${cutBy}, ${notMet}`,
      },
    ]);
    // Page 2 has rows 5 and 6 without the cell spanning into them: 1 column wide, the others 2 (veraPDF 7.2-43).
    expect(second.withheld.map((w) => w.message)).toEqual([
      `parts[0]: in the pages it keeps, the rows of table 1 cover 2, 1, 1, 2, 2 columns ${cutBy}, ${notMet}`,
    ]);
    expect(xmp).toEqual([ONLY_A, ONLY_A]);
  }, 60_000);
});

describe('veraPDF', () => {
  it('passes every file for what it claims, and finds what the cut broke in the others', () => {
    if (!VERAPDF) return console.log(VERAPDF_SKIPPED);
    const all = Object.fromEntries(Object.entries(made).map(([name, { pdf }]) => [name, pdf]));
    expect(Object.keys(all)).toHaveLength(8);
    const ua = verapdf(all, 'ua1');
    const a = verapdf(all, '3b');
    for (const [name, { claims }] of Object.entries(made)) {
      expect(a[name], name).toEqual([]);
      if (claims.includes('PDF/UA-1')) expect(ua[name], name).toEqual([]);
      // 5-1: it does not say PDF/UA; the others are what the cut broke, and why the claim was withheld.
      else expect(ua[name].filter((rule) => rule !== '5-1').length, name).toBeGreaterThan(0);
    }
  }, 120_000);
});
