/**
 * PDF/A's limits on the strings and names of a printed PDF's objects (ISO 19005-2 6.1.13), as the
 * profile engine finds them in objects no other check reads (a tagged PDF's structure elements): a
 * string of 32,768 bytes or a name of 128 is named in an issue and the claim is withheld, the longest
 * legal ones are claimed, and an object that cannot be read withholds the claim too.
 */
import { describe, expect, it } from 'vitest';
import { applyProfiles } from '../../src/pdf/profiles/apply-profiles.js';
import { pdfOfObjects } from '../assemble/helpers.js';

/** A one-page PDF whose structure tree holds one element, written as `element`: object 5, which nothing else reads. */
function taggedPdf(element: string): Buffer {
  return pdfOfObjects(
    '1.7',
    [
      '<< /Type /Catalog /Pages 2 0 R /StructTreeRoot 4 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << >> >>',
      '<< /Type /StructTreeRoot /K [5 0 R] >>',
      element,
    ],
    '/Root 1 0 R',
  );
}

async function declaredPdfA(pdf: Buffer) {
  const { claims, issues } = await applyProfiles(pdf, {
    profiles: ['PDF/A-2b'],
    files: [],
    extensions: [],
    title: 'Limits',
    creator: 'Pageworks',
    producer: 'Pageworks',
    date: new Date('2026-12-02T10:00:00Z'),
  });
  return { claims, issues: issues.map((i) => `${i.clause} ${i.element}`) };
}

describe("the strings and names of a PDF's objects, for PDF/A", () => {
  it('a string of 32,768 bytes in a structure element withholds PDF/A-2b, naming the object and key', async () => {
    const alt = `(${'a'.repeat(32_767)}\\101)`;
    expect(await declaredPdfA(taggedPdf(`<< /Type /StructElem /S /Figure /P 4 0 R /Alt ${alt} >>`))).toEqual({
      claims: [],
      issues: ['6.1.13-3 PDF object 5 (/Alt)'],
    });
  });

  it('a name of 128 bytes, as a value or a key, withholds it too', async () => {
    const long = 'N'.repeat(128);
    for (const element of [`<< /Type /StructElem /S /${long} >>`, `<< /Type /StructElem /S /P /${long} 1 >>`])
      expect((await declaredPdfA(taggedPdf(element))).issues).toEqual([
        `6.1.13-4 PDF object 5 (/${element.includes(' 1 >>') ? long : 'S'})`,
      ]);
  });

  it('the longest legal string and name (32,767 bytes, 127 bytes) are claimed, escapes counted as the bytes they stand for', async () => {
    const element = `<< /Type /StructElem /S /${'N'.repeat(127)} /T /${'#41'.repeat(60)} /Alt <${'41'.repeat(32_767)}> /ActualText (${'b'.repeat(32_767)}) /E (${'\\\\'.repeat(20_000)}) >>`;
    expect(await declaredPdfA(taggedPdf(element))).toEqual({ claims: ['PDF/A-2b'], issues: [] });
  });

  it('a structure element that cannot be read withholds it: its strings could not be checked', async () => {
    for (const element of [
      '<< /Type /StructElem /K [1 2 >>',
      '<< /Type /StructElem /Alt (open >>',
      `${'['.repeat(300)}${']'.repeat(300)}`,
    ])
      expect(await declaredPdfA(taggedPdf(element))).toEqual({ claims: [], issues: ['6.1.13 PDF file'] });
  });
});
