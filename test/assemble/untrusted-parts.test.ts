/**
 * POST /v1/assemble with PDF parts written to exhaust the reader (test/assemble/hostile-pdfs.ts), through
 * the real render app: each answered quickly, with a 4xx naming the part and the problem, or with the
 * assembly; memory held to the size of the answer, not to what a file claims; an assembly's parts capped at
 * ASSEMBLE_MAX_BYTES however often one address is named; an existing PDF's claims found under any prefix
 * and taken out of the assembly's XMP, protected or not.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { zipEntries } from '../../src/client/zip-entries.js';
import { PdfFile } from '../../src/pdf/profiles/pdf-file.js';
import type { PdfRaw } from '../../src/pdf/profiles/pdf-objects.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { pixel } from '../render/pdf-tools.js';
import { b64, pageCount, pageTexts, pdfOfObjects, postAssemble, qpdfCheck, tinyPdf } from './helpers.js';
import {
  backtrackingXmp,
  claimsUnderOtherPrefixes,
  deflatedZeros,
  paddedPdf,
  pageTreeContainingItself,
  pdfWithXmp,
  unparsableTrailer,
  xrefClaimingBillion,
} from './hostile-pdfs.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let origin: http.Server;
let base: string;
let served = 0;
const big = paddedPdf(8 * 1024 * 1024);

beforeAll(async () => {
  core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32', RENDER_CONCURRENCY: '2' });
  app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  key = (await createKey(core, 'render')).key;
  // One plain assembly first: the PDF workers' start (seconds under tsx on a busy machine) is not what the
  // timings below measure.
  expect((await postAssemble(app, key, { parts: [{ pdf: tinyPdf('Warm').toString('base64') }] })).statusCode).toBe(200);
  origin = http.createServer((req, res) => {
    served++;
    if (req.url === '/big.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end(big);
    else res.writeHead(404).end('no');
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  origin?.close();
});

/** The answer to assembling `parts`, and how long it took. */
async function assemble(parts: unknown[], extra: Record<string, unknown> = {}) {
  const started = performance.now();
  const res = await postAssemble(app, key, { parts, ...extra });
  return { res, ms: performance.now() - started };
}

/** The process's peak resident set so far, in MiB (a high-water mark: what a request made it reach stays). */
const peakRssMib = () => process.resourceUsage().maxRSS / 1024;

/** The XMP packet of a PDF as pdfinfo prints it (`-meta`), opened with `password` when it is protected. */
function xmpOf(pdf: Buffer, password?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-xmp-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    fs.writeFileSync(file, pdf);
    return execFileSync('pdfinfo', [...(password ? ['-opw', password] : []), '-meta', file], { encoding: 'utf8' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// First, while the process's peak is still low: a stream that inflates far beyond its size.
describe('inflation stops at a cap, whatever the stream claims', () => {
  for (const mib of [400, 2048]) {
    it(`a part whose XMP inflates to ${mib} MiB: a quick 422 naming the part and the cap, the process's peak under 300 MiB more`, async () => {
      const part = pdfWithXmp(Buffer.alloc(0), { deflated: deflatedZeros(mib) });
      const before = peakRssMib();
      const { res, ms } = await assemble([{ pdf: tinyPdf('Cover').toString('base64') }, { pdf: b64(part) }]);
      expect(res.statusCode, res.body.slice(0, 300)).toBe(422);
      expect(res.json().error.code).toBe('PART_FAILED');
      expect(res.json().error.message).toMatch(
        /^parts\[1\]: its XMP metadata cannot be read: stream 4 inflates to more than 4194304 bytes/,
      );
      expect(ms).toBeLessThan(5_000);
      expect(peakRssMib() - before).toBeLessThan(300);
    }, 60_000);
  }
});

/** `pdf` (as pdfOfObjects writes it) with object `num` and every reference to it at generation `gen`. */
function atGeneration(pdf: Buffer, num: number, gen: number): Buffer {
  const text = pdf
    .toString('latin1')
    .replace(new RegExp(`^${num} 0 obj`, 'm'), `${num} ${gen} obj`)
    .replace(new RegExp(`\\b${num} 0 R\\b`, 'g'), `${num} ${gen} R`);
  const at = text.indexOf('xref\n') + 'xref\n0 7\n'.length + num * 20 + 11;
  return Buffer.from(`${text.slice(0, at)}${String(gen).padStart(5, '0')}${text.slice(at + 5)}`, 'latin1');
}

/** `pdf` with an object written into the middle of object `num`'s cross-reference entry. */
function splicedIntoXref(pdf: Buffer, num: number): Buffer {
  const text = pdf.toString('latin1');
  const at = text.indexOf('xref\n') + 'xref\n0 7\n'.length + num * 20 + 16;
  return Buffer.from(`${text.slice(0, at)}\n9 0 obj\n<< >>\nendobj\n${text.slice(at)}`, 'latin1');
}

const PAGE = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>';
const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
/** A part of `objects` (numbered from 1), the first its catalog. */
const partOf = (objects: string[], trailer = '') => pdfOfObjects('1.7', objects, `/Root 1 0 R${trailer}`);

describe('linear readers: a hostile part is a quick 422 "damaged"', () => {
  const cases: Array<[string, Buffer, RegExp]> = [
    ['an xref subsection claiming 10^9 entries', xrefClaimingBillion(), /^parts\[0\]: the PDF is damaged/],
    [
      'a page tree that contains itself',
      pageTreeContainingItself(),
      /^parts\[0\]: the PDF is damaged \(the page tree reaches object 2 twice\)/,
    ],
    ['a trailer that cannot be parsed', unparsableTrailer(), /^parts\[0\]: the PDF is damaged/],
    [
      'a metadata object that cannot be parsed (found by the PDF fuzz)',
      pdfOfObjects(
        '1.7',
        [
          '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
          '<< /Type /Metadata 7 /Length 3 >>\nstream\nabc\nendstream',
        ],
        '/Root 1 0 R',
      ),
      /^parts\[0\]: its XMP metadata cannot be read: object 4 cannot be read/,
    ],
    [
      'a structure tree root that cannot be parsed (found by the PDF fuzz: it was a 500)',
      pdfOfObjects(
        '1.7',
        [
          '<< /Type /Catalog /Pages 2 0 R /StructTreeRoot 4 0 R >>',
          '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
          '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
          '<< /Type /StructTreeRoot 7 >>',
        ],
        '/Root 1 0 R',
      ),
      /^parts\[0\]: the PDF is damaged \(object 4 cannot be read \(dictionary key expected at \d+\)\)/,
    ],
    [
      // Found by the PDF fuzz: the catalog was copied as the assembly's page, and as that page took the
      // catalog's place, the assembly's one page was its own catalog.
      'a catalog that is its own page tree (found by the PDF fuzz: it was answered 200)',
      partOf(['<< /Type /Catalog /Pages 1 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE]),
      /^parts\[0\]: the PDF is damaged \(the page tree reaches the catalog, object 1\)/,
    ],
    [
      'a page tree listing the catalog as a page',
      partOf([CATALOG, '<< /Type /Pages /Kids [3 0 R 1 0 R] /Count 2 >>', PAGE]),
      /^parts\[0\]: the PDF is damaged \(the page tree reaches the catalog, object 1\)/,
    ],
    [
      'a page tree listing a font as a page',
      partOf([CATALOG, '<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>', PAGE, '<< /Type /Font /Subtype /Type1 >>']),
      /^parts\[0\]: the PDF is damaged \(object 4 in the page tree is a \/Font, not a page\)/,
    ],
    [
      // Found by the PDF fuzz: the catalog's /Pages pointed at the document's /Info, taken for a page, so the
      // assembly's one page was its /Info too.
      'a page tree that is the document information dictionary (found by the PDF fuzz: it was answered 200)',
      partOf(
        ['<< /Type /Catalog /Pages 4 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE, '<< /Title (Seed) >>'],
        ' /Info 4 0 R',
      ),
      /^parts\[0\]: the PDF is damaged \(object 4 in the page tree has no \/Type \/Page\)/,
    ],
    [
      // Found by the PDF fuzz: a bit flip made the kid `3 1 R`, which qpdf and poppler read as null (object 3
      // is listed at generation 0); this reader took it for object 3, and the assembly had a page they do not.
      'a page tree naming its page at another generation (found by the PDF fuzz: it was answered 200)',
      partOf([CATALOG, '<< /Type /Pages /Kids [3 1 R] /Count 1 >>', PAGE]),
      /^parts\[0\]: the PDF is damaged \(it has no pages\)/,
    ],
    [
      // Found by the PDF fuzz: an object spliced into an entry misaligned the rest of the table, whose objects
      // were then taken for absent; poppler rebuilds the table and finds them.
      'a cross-reference table with bytes spliced into an entry (found by the PDF fuzz: it was answered 200)',
      splicedIntoXref(tinyPdf('Seed'), 4),
      /^parts\[0\]: the PDF is damaged \(its cross-reference table does not find its objects\)/,
    ],
  ];
  for (const [what, pdf, message] of cases) {
    it(`${what} (${pdf.length} bytes)`, async () => {
      const { res, ms } = await assemble([{ pdf: b64(pdf) }]);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().error.code).toBe('PART_FAILED');
      expect(res.json().error.message).toMatch(message);
      expect(ms).toBeLessThan(3_000);
    }, 120_000);
  }
});

describe('a reference at another generation than its object’s is null, as readers take it', () => {
  // Found by the PDF fuzz. The page names its content `5 1 R` where object 5 is listed at generation 0:
  // qpdf and poppler draw the page blank, and the assembly drew the text.
  it('the page is as blank in the assembly as in the part', async () => {
    const content = 'BT /F1 24 Tf 72 720 Td (Unseen) Tj ET';
    const part = partOf([
      CATALOG,
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 1 R >>',
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    ]);
    expect(pageTexts(part)).toEqual(['']);
    const { res } = await assemble([{ pdf: b64(part) }, { pdf: b64(tinyPdf('After')) }]);
    expect(res.statusCode, res.body).toBe(200);
    expect(pageTexts(res.rawPayload).map((text) => text.trim())).toEqual(['', 'After']);
  });

  // An editor that frees an object and reuses its number writes it at the next generation.
  it('a part whose page and content are at generation 1 is read whole, pages selected, stamped and split', async () => {
    const part = atGeneration(atGeneration(tinyPdf('Reused'), 3, 1), 5, 1);
    expect(part.toString('latin1')).toContain('/Kids [3 1 R]');
    expect(pageTexts(part).map((text) => text.trim())).toEqual(['Reused']);
    const { res } = await assemble([{ pdf: b64(part), pages: '1', rotate: 180 }, { pdf: b64(part) }], {
      stamps: [{ html: '<p style="margin:0;font:8px sans-serif">Page {{page}}</p>' }],
      split: { every: 1 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const files = zipEntries(res.rawPayload);
    expect(files.map(({ pdf }) => pageTexts(pdf).map((text) => /Reused/.test(text) && /Page \d/.test(text)))).toEqual([
      [true],
      [true],
    ]);
  });
});

describe('white space and comments as qpdf reads them: a reference it reads is renumbered, one it does not is not made', () => {
  const content = 'BT /F1 24 Tf 72 720 Td (Hello) Tj ET';
  const partWith = (contents: string) =>
    partOf([
      CATALOG,
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents ${contents} >>`,
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ]);
  // qpdf reads a vertical tab as white space, and NUL is PDF white space. Copied as written, `[4\v0 R]`
  // named, for qpdf reading the assembly, whatever the assembly's object 4 is (the first part's font).
  // Both readers take a comment for white space too.
  for (const [what, contents] of [
    ['a vertical tab before the generation', '[4\x0b0 R]'],
    ['a vertical tab before the R', '[4 0\x0bR]'],
    ['a NUL before the R', '4 0\x00R'],
    // Comments are white space to qpdf and poppler alike, so `[4 0 %…\nR]` copied as written named the
    // assembly's object 4 for both.
    ['a comment before the R', '[4 0 %note\nR]'],
    ['a comment of 100 characters before the generation', `[4 %${'x'.repeat(100)}\n0 R]`],
    ['a comment before the R of a direct reference', '4 0 %note\rR'],
  ]) {
    it(`${what}: the content is the part's, for qpdf and poppler`, async () => {
      const part = partWith(contents);
      expect(qpdfCheck(part).output).not.toMatch(/WARNING/);
      const { res } = await assemble([{ pdf: b64(tinyPdf('First')) }, { pdf: b64(part) }]);
      expect(res.statusCode, res.body).toBe(200);
      expect(qpdfCheck(res.rawPayload).output).not.toMatch(/WARNING/);
      expect(pageTexts(res.rawPayload).map((text) => text.trim())).toEqual(['First', 'Hello']);
    });
  }

  // Found by the PDF fuzz (the white-space mutation): the object headers were matched with a regular
  // expression's \s, which takes no NUL, so the page whose header was `3\x000 obj` was not found and the
  // assembly left it out (answered 200, one page short).
  it('a NUL in an object header, `3\\x000 obj`: the page is read, as qpdf and poppler read it', async () => {
    const part = Buffer.from(partWith('4 0 R').toString('latin1').replace('\n3 0 obj', '\n3\x000 obj'), 'latin1');
    expect(part.includes('3\x000 obj')).toBe(true);
    expect(qpdfCheck(part).output).not.toMatch(/WARNING/);
    expect(pageTexts(part).map((text) => text.trim())).toEqual(['Hello']);
    const { res } = await assemble([{ pdf: b64(tinyPdf('First')) }, { pdf: b64(part) }]);
    expect(res.statusCode, res.body).toBe(200);
    expect(pageTexts(res.rawPayload).map((text) => text.trim())).toEqual(['First', 'Hello']);
  });

  // Found by the PDF fuzz, when the reader took the tab for part of a token: it read a bare dictionary and
  // the copy dropped the content (answered 200, blank); it was then refused as damaged. poppler draws the
  // part blank; qpdf reads the stream, as its repair, which the refusal pointed to, would write it.
  it('a stream keyword after a vertical tab: the content stream is read as qpdf reads it', async () => {
    const part = partOf([
      CATALOG,
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
      '<< /Length 16 >>\vstream\n0 0 100 100 re f\nendstream',
    ]);
    expect(qpdfCheck(part).output).not.toMatch(/WARNING/);
    const { res } = await assemble([{ pdf: b64(part) }]);
    expect(res.statusCode, res.body).toBe(200);
    expect(qpdfCheck(res.rawPayload).output).not.toMatch(/WARNING/);
    // The 100 pt box at the bottom left, at 20 dpi: 28 px square from the page's bottom (220 px).
    expect(pixel(res.rawPayload, 10, 210)).toEqual([0, 0, 0]);
  });

  it('a no-break space (0xA0) is no white space to qpdf or poppler: before the R it makes no reference, the part damaged', async () => {
    const part = partWith('4 0\xa0R');
    expect(qpdfCheck(part).output).toMatch(/WARNING/);
    const { res } = await assemble([{ pdf: b64(part) }]);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().error.message).toMatch(/^parts\[0\]: the PDF is damaged \(object 3 cannot be read/);
  });
});

describe('a page turned from a rotation that is none', () => {
  // The turn was added to the number as written: 45 gave 135, 1.5 gave 91.5 and 1e999 gave NaN, none of
  // them a rotation a reader can take (a multiple of 90), and NaN not even a number.
  for (const written of ['45', '1.5', '1e999']) {
    it(`/Rotate ${written}, turned by 90: /Rotate 90, as from none`, async () => {
      const part = partOf([
        CATALOG,
        '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Rotate ${written} >>`,
      ]);
      const { res } = await assemble([{ pdf: b64(part), rotate: 90 }]);
      expect(res.statusCode, res.body).toBe(200);
      const file = new PdfFile(res.rawPayload);
      const page = file.dict(file.refTo(file.pages()[0]));
      expect((page?.get('Rotate') as PdfRaw | undefined)?.text).toBe('90');
    });
  }
});

describe('an object named in two roles', () => {
  const content = 'BT /F1 24 Tf 72 720 Td (Shown) Tj ET';
  const page = (extra: string) =>
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R${extra} >>`;
  const rest = [
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];

  // Found by the PDF fuzz: the catalog named page 1 as its structure tree root. The copy put the assembly's
  // root in the page's place, and the page came out null (answered 200).
  it('a page named as the structure tree root is copied as the page it is; the part counts as untagged', async () => {
    const part = partOf([
      '<< /Type /Catalog /Pages 2 0 R /StructTreeRoot 3 0 R /MarkInfo << /Marked true >> >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      page(''),
      ...rest,
    ]);
    const { res } = await assemble([{ pdf: b64(part) }, { pdf: b64(tinyPdf('After')) }]);
    expect(res.statusCode, res.body).toBe(200);
    expect(qpdfCheck(res.rawPayload).output).not.toMatch(/WARNING/);
    expect(pageTexts(res.rawPayload).map((text) => text.trim())).toEqual(['Shown', 'After']);
  });

  it('a page that is also the outline root is a 422 naming it', async () => {
    const part = partOf([
      '<< /Type /Catalog /Pages 2 0 R /Outlines 3 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      page(' /First 6 0 R /Last 6 0 R'),
      ...rest,
      '<< /Title (Top) /Parent 3 0 R /Dest [3 0 R /Fit] >>',
    ]);
    const { res } = await assemble([{ pdf: b64(part) }]);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().error.message).toMatch(
      /^parts\[0\]: the PDF is damaged \(object 3 is the outline root and also something else\)/,
    );
  });
});

describe('an object the reader cannot parse is refused, never copied into the assembly', () => {
  // Found by the PDF fuzz: a bit flip in a structure element (`/Str}ctElem`). The merge copied its text as
  // it stood, so the assembly came back with an object no reader parses, and a split of it was a 500.
  const flipped = pdfOfObjects(
    '1.7',
    [
      '<< /Type /Catalog /Pages 2 0 R /StructTreeRoot 4 0 R /MarkInfo << /Marked true >> >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /StructParents 0 >>',
      '<< /Type /StructTreeRoot /K [5 0 R] >>',
      '<< /Type /StructElem /S /L /P 4 0 R /K [6 0 R] >>',
      '<< /Type /Str}ctElem /S /LI /P 5 0 R /Pg 3 0 R /K 0 >>',
    ],
    '/Root 1 0 R',
  );
  for (const extra of [{}, { split: { every: 1 } }, { split: 'parts' }]) {
    it(`a structure element with a brace in it, merged with another part${'split' in extra ? `, split ${JSON.stringify(extra.split)}` : ''}: 422 naming the part and the object`, async () => {
      const { res } = await assemble([{ pdf: b64(flipped) }, { pdf: b64(tinyPdf('After')) }], extra);
      expect(res.statusCode, res.body.slice(0, 300)).toBe(422);
      expect(res.json().error.code).toBe('PART_FAILED');
      expect(res.json().error.message).toMatch(
        /^parts\[0\]: the PDF is damaged \(object 6 cannot be read \(dictionary key expected at \d+\)\)/,
      );
    }, 60_000);
  }
});

describe('XMP is parsed, never matched by a backtracking expression', () => {
  it('a part whose (deflated, 1 KB) XMP is one 192 KB open tag full of xmlns:pdfaid: assembled in under 3 s', async () => {
    const part = pdfWithXmp(backtrackingXmp(12_000), { deflate: true });
    expect(part.length).toBeLessThan(2048);
    const { res, ms } = await assemble([{ pdf: b64(part) }, { pdf: b64(tinyPdf('Terms')) }]);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(pageCount(res.rawPayload)).toBe(2);
    expect(ms).toBeLessThan(3_000);
  }, 120_000);

  for (const protect of [undefined, { owner_password: 'owner' }]) {
    it(`an existing PDF's PDF/A-3B and PDF/UA-1 claims under other prefixes, spaces around "=", are found and taken out${protect ? ' (protected)' : ''}`, async () => {
      const part = pdfWithXmp(claimsUnderOtherPrefixes());
      const { res } = await assemble([{ pdf: b64(part) }], protect ? { protect } : {});
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      const warnings = Number(res.headers['x-render-warnings']);
      expect(warnings).toBeGreaterThanOrEqual(2);
      const xmp = xmpOf(res.rawPayload, protect?.owner_password);
      // The rest of the packet is kept; the identification properties are gone under whatever prefix.
      expect(xmp).toContain('<dc:format>application/pdf</dc:format>');
      expect(xmp).not.toMatch(/a:part|a:conformance|u:part/);
    }, 60_000);
  }
});

describe('ASSEMBLE_MAX_BYTES: every part counts, an address named 100 times 100 times', () => {
  it('100 parts naming one 8 MiB address: 413 naming the limit, after fetching about what the limit holds', async () => {
    // 100 parts count as 100 renders: an account of its own, whose window the tests above have not used.
    key = (await createKey(core, 'render')).key;
    served = 0;
    const parts = Array.from({ length: 100 }, () => ({ url: `${base}/big.pdf` }));
    const body = JSON.stringify({ parts });
    expect(body.length).toBeLessThan(5_000);
    const before = peakRssMib();
    const { res, ms } = await assemble(parts);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(413);
    expect(res.json().error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(res.json().error.message).toMatch(
      /^parts\[\d+\]: the assembly's parts come to more than 268435456 bytes \(ASSEMBLE_MAX_BYTES\)/,
    );
    // 256 MiB is 32 such parts; two more may be on their way when the budget runs out.
    expect(served).toBeLessThanOrEqual(36);
    expect(ms).toBeLessThan(30_000);
    expect(peakRssMib() - before).toBeLessThan(1024);
  }, 120_000);
});
