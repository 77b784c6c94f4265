import { describe, expect, it } from 'vitest';
import { zipEntries } from '../../src/client/zip-entries.js';
import { assembleServiceForFile, b64, pdfOfObjects, qpdfCheck, qpdfJson, tinyPdf } from './helpers.js';

/** Five pages labelled i, ii, A-7, A-8, A-9. */
function labelledPart(): Buffer {
  const kids = [3, 4, 5, 6, 7].map((n) => `${n} 0 R`).join(' ');
  return pdfOfObjects(
    '1.7',
    [
      '<< /Type /Catalog /Pages 2 0 R /PageLabels << /Nums [0 << /S /r >> 2 << /S /D /P (A-) /St 7 >>] >> >>',
      `<< /Type /Pages /Kids [${kids}] /Count 5 >>`,
      ...Array.from({ length: 5 }, () => '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>'),
    ],
    '/Root 1 0 R',
  );
}

const ROMAN: Array<[number, string]> = [
  [10, 'x'],
  [9, 'ix'],
  [5, 'v'],
  [4, 'iv'],
  [1, 'i'],
];

/** Each page's label as a reader shows it (decimal and lower-case roman, enough here), from qpdf's reading; null without labels. */
function labelsOf(pdf: Buffer): Array<string | null> {
  const pages = qpdfJson(pdf, 'pages') as Array<{ label: { '/S'?: string; '/P'?: string; '/St'?: number } | null }>;
  return pages.map(({ label }) => {
    if (!label) return null;
    let n = label['/St'] ?? 1;
    let number = String(n);
    if (label['/S'] === '/r') {
      number = '';
      for (const [value, letters] of ROMAN) for (; n >= value; n -= value) number += letters;
    }
    return `${(label['/P'] ?? '').replace(/^u:/, '')}${label['/S'] ? number : ''}`;
  });
}

const service = assembleServiceForFile();

describe('POST /v1/assemble with page labels', () => {
  const labelled = labelledPart();

  it('a part’s labels follow its pages; a part without labels is numbered by its place', async () => {
    expect(labelsOf(labelled)).toEqual(['i', 'ii', 'A-7', 'A-8', 'A-9']);
    const res = await service.assemble({
      parts: [{ pdf: b64(labelled) }, { pdf: b64(tinyPdf('Between')) }, { pdf: b64(labelled) }],
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(qpdfCheck(res.rawPayload).status, qpdfCheck(res.rawPayload).output).toBe(0);
    expect(labelsOf(res.rawPayload)).toEqual(['i', 'ii', 'A-7', 'A-8', 'A-9', '6', 'i', 'ii', 'A-7', 'A-8', 'A-9']);
  });

  it('a page selection keeps each kept page’s label', async () => {
    const res = await service.assemble({
      parts: [{ pdf: b64(labelled), pages: '2-3,5' }, { pdf: b64(tinyPdf('After')) }],
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(labelsOf(res.rawPayload)).toEqual(['ii', 'A-7', 'A-9', '4']);
  });

  it('each file of a split keeps its pages’ labels', async () => {
    const res = await service.assemble({
      parts: [{ pdf: b64(labelled) }, { pdf: b64(tinyPdf('After')) }],
      split: { every: 2 },
    });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(zipEntries(res.rawPayload).map(({ pdf }) => labelsOf(pdf))).toEqual([
      ['i', 'ii'],
      ['A-7', 'A-8'],
      ['A-9', '6'],
    ]);
  });

  it('an assembly of parts without labels has none', async () => {
    const res = await service.assemble({ parts: [{ pdf: b64(tinyPdf('One')) }, { pdf: b64(tinyPdf('Two')) }] });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(labelsOf(res.rawPayload)).toEqual([null, null]);
  });
});
