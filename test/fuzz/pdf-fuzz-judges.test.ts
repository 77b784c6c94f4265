/**
 * The PDF fuzz's judges must be able to fail: the one that compares the objects of a part's page with its
 * page in the answer, as qpdf reads both, flags a reference that lands on an object of another kind (the
 * assembly's object 4 was another part's font where the part's was a content stream) and passes a faithful copy.
 */
import { describe, expect, it } from 'vitest';
import { pdfOfObjects } from '../assemble/helpers.js';
import { objectsOtherwise, type View } from './pdf-fuzz-run.js';

const ALL: View = (pages) => ({ first: 1, pages });
const CONTENT = 'BT /F1 24 Tf 72 720 Td (Hello) Tj ET';
const STREAM = `<< /Length ${CONTENT.length} >>\nstream\n${CONTENT}\nendstream`;
const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
const pageWith = (contents: string, font: string) =>
  `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} >> >> /Contents ${contents} >>`;
const pdf = (objects: string[]) => pdfOfObjects('1.4', objects, '/Root 1 0 R');
const CATALOG = '<< /Type /Catalog /Pages 2 0 R >>';
const PAGES = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>';

describe('the fuzz judge of the objects a page holds', () => {
  const part = pdf([CATALOG, PAGES, pageWith('[4 0 R]', '5 0 R'), STREAM, FONT]);

  it('passes a copy with its objects renumbered', async () => {
    const copy = pdf([CATALOG, PAGES, pageWith('[5 0 R]', '4 0 R'), FONT, STREAM]);
    expect(await objectsOtherwise(copy, part, ALL)).toBeUndefined();
  });

  // qpdf itself warns of a page content that is no stream (so does its check, the first judge).
  it('flags a content reference that lands on a font', async () => {
    const wrong = pdf([CATALOG, PAGES, pageWith('[4 0 R]', '4 0 R'), FONT, STREAM]);
    expect(await objectsOtherwise(wrong, part, ALL)).toBe('qpdf cannot read the answer');
  });

  // qpdf reads this one without a word (it checks no font): only this judge sees it.
  it('flags a font reference that lands on a content stream, deeper in the page', async () => {
    const wrong = pdf([CATALOG, PAGES, pageWith('[5 0 R]', '5 0 R'), FONT, STREAM]);
    expect(await objectsOtherwise(wrong, part, ALL)).toBe(
      'the page /Resources /Font /F1: dictionary /Font in the part, stream in the answer',
    );
  });

  // A mutated part (seed 90211, input 5599) whose font's /ToUnicode named the outline root: the assembly puts
  // the part's entry in its own outline in that root's place, wherever the part refers to it.
  it('passes a reference to the outline root that lands on the part’s outline entry, and only there', async () => {
    const ROOT = '<< /Type /Catalog /Pages 2 0 R /Outlines 6 0 R >>';
    const withToUnicode = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>';
    const rooted = pdf([ROOT, PAGES, pageWith('[4 0 R]', '5 0 R'), STREAM, withToUnicode, '<< /Type /Outlines /Count 0 >>']);
    const entry = pdf([
      ROOT,
      PAGES,
      pageWith('[4 0 R]', '5 0 R'),
      STREAM,
      withToUnicode,
      '<< /Title (Part 1) /Parent 7 0 R >>',
      '<< /Type /Outlines >>',
    ]);
    expect(await objectsOtherwise(entry, rooted, ALL)).toBeUndefined();
    const font = pdf([ROOT, PAGES, pageWith('[4 0 R]', '5 0 R'), STREAM, withToUnicode, FONT]);
    expect(await objectsOtherwise(font, rooted, ALL)).toBe(
      'the page /Resources /Font /F1 /ToUnicode: dictionary /Outlines in the part, dictionary /Font in the answer',
    );
  });

  it('leaves what the answer holds nothing of (what acts on a reader is left out)', async () => {
    const emptied = pdf([CATALOG, PAGES, pageWith('[4 0 R]', 'null'), STREAM]);
    expect(await objectsOtherwise(emptied, part, ALL)).toBeUndefined();
  });
});
