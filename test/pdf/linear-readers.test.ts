/**
 * The PDF readers other than the assembly's, given files written to exhaust them: the page counter every
 * PDF part passes through (its scan was quadratic in a run of `/Type /Pages` without `>`), the
 * cross-reference pages' page-tree walk, and the signature's reader (xref counts, inflation, object
 * streams). Each answers in time linear in the file, with memory bounded by a cap, not by a claim.
 */
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readDestinationPages } from '../../src/pdf/pdf-destinations.js';
import { countPdfPages } from '../../src/pdf/pdf-pages.js';
import { name } from '../../src/pdf/profiles/pdf-objects.js';
import { decodeStream, PdfReader, SignInputError } from '../../src/pdf/sign/pdf-reader.js';
import { pdfOfObjects } from '../assemble/helpers.js';
import { deflatedZeros, pageTreeContainingItself, xrefClaimingBillion } from '../assemble/hostile-pdfs.js';

/** Milliseconds `fn` takes. */
function timed(fn: () => unknown): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

describe('countPdfPages', () => {
  it('is linear: 4 MB of `/Type /Pages` with no `>` is counted in well under a second (256 KB took 11.7 s)', () => {
    const text = Buffer.from('/Type /Pages '.repeat(320_000), 'latin1');
    expect(text.length).toBeGreaterThan(4_000_000);
    let pages = -1;
    expect(timed(() => (pages = countPdfPages(text)))).toBeLessThan(1_000);
    expect(pages).toBe(0);
  });

  it('believes no /Count the file has no room for', () => {
    const pdf = pdfOfObjects(
      '1.4',
      [
        '<< /Type /Catalog /Pages 2 0 R >>',
        '<< /Type /Pages /Kids [3 0 R] /Count 1000000000 >>',
        '<< /Type /Page /Parent 2 0 R >>',
      ],
      '/Root 1 0 R',
    );
    expect(countPdfPages(pdf)).toBe(1);
  });
});

describe('readDestinationPages', () => {
  it('walks a page tree that contains itself once per node', () => {
    let read: ReturnType<typeof readDestinationPages>;
    expect(timed(() => (read = readDestinationPages(pageTreeContainingItself())))).toBeLessThan(500);
    expect(read?.pageCount).toBe(1);
  });
});

describe("the signature's reader", () => {
  it('refuses an xref subsection claiming 10^9 entries at once', () => {
    let error: unknown;
    const ms = timed(() => {
      try {
        new PdfReader(xrefClaimingBillion());
      } catch (err) {
        error = err;
      }
    });
    expect(error).toBeInstanceOf(SignInputError);
    expect((error as Error).message).toMatch(/claims 1000000000 entries/);
    expect(ms).toBeLessThan(500);
  });

  it('stops inflating at its cap: 2 GiB of zeros from 2 MB is refused, not held', () => {
    const dict = new Map([['Filter', name('FlateDecode')]]);
    const before = process.memoryUsage().rss;
    expect(() => decodeStream(dict, deflatedZeros(2048), (v) => v)).toThrow(/inflates to more than 268435456 bytes/);
    expect(process.memoryUsage().rss - before).toBeLessThan(400 * 1024 * 1024);
  });

  it('refuses an object stream whose /N claims more objects than its header has bytes', () => {
    const packed = zlib.deflateSync(Buffer.from('4 0 << /Type /Page /Parent 2 0 R >>', 'latin1'));
    const pdf = withXrefStream([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [4 0 R] /Count 1 >>',
      `<< /Type /ObjStm /N 1000000000 /First 4 /Filter /FlateDecode /Length ${packed.length} >>\nstream\n${packed.toString('latin1')}\nendstream`,
    ]);
    const reader = new PdfReader(pdf);
    let error: unknown;
    const ms = timed(() => {
      try {
        reader.get(4);
      } catch (err) {
        error = err;
      }
    });
    expect((error as Error).message).toMatch(/object stream 3 claims 1000000000 objects/);
    expect(ms).toBeLessThan(500);
  });
});

/**
 * A PDF of `objects` (1…n at top level) whose cross-reference stream (object n + 2) also places object n + 1
 * as the first object of object stream 3.
 */
function withXrefStream(objects: string[]): Buffer {
  let out = '%PDF-1.5\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefNum = objects.length + 2;
  const row = (type: number, a: number, b: number) =>
    Buffer.from([type, (a >>> 24) & 255, (a >>> 16) & 255, (a >>> 8) & 255, a & 255, b >> 8, b & 255]);
  const xrefAt = out.length;
  const rows = Buffer.concat([row(0, 0, 65535), ...offsets.map((o) => row(1, o, 0)), row(2, 3, 0), row(1, xrefAt, 0)]);
  out += `${xrefNum} 0 obj\n<< /Type /XRef /Size ${xrefNum + 1} /W [1 4 2] /Root 1 0 R /Length ${rows.length} >>\nstream\n${rows.toString('latin1')}\nendstream\nendobj\n`;
  out += `startxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}
