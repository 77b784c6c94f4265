import { describe, expect, it } from 'vitest';
import { RenderError } from '../../src/errors.js';
import { parseDimension, toPrintParams } from '../../src/render/request/options.js';

const MM = 1 / 25.4;

function failure(fn: () => unknown): { code: string; status: number; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof RenderError) return { code: err.code, status: err.status, message: err.message };
    throw err;
  }
  throw new Error('expected a RenderError');
}

describe('toPrintParams', () => {
  it('defaults to A4 portrait, no margins, scale 1, no background', () => {
    const p = toPrintParams({});
    expect(p.widthIn).toBeCloseTo(210 * MM, 6);
    expect(p.heightIn).toBeCloseTo(297 * MM, 6);
    expect(p.margin).toEqual({ top: 0, right: 0, bottom: 0, left: 0 });
    expect(p.scale).toBe(1);
    expect(p.printBackground).toBe(false);
  });

  it("pins only what the request sets of the page box, so the document's @page rules decide the rest", () => {
    expect(toPrintParams({})).toMatchObject({ preferCssPageSize: true, pageCss: '' });
    expect(toPrintParams({ scale: 0.5, printBackground: true })).toMatchObject({ preferCssPageSize: true, pageCss: '' });
    expect(toPrintParams({ format: 'Letter' })).toMatchObject({
      preferCssPageSize: false,
      pageCss: '@layer pageworks-page{@page{size:8.5in 11in !important;page-orientation:upright !important}}',
    });
    expect(toPrintParams({ landscape: false }).preferCssPageSize).toBe(false);
    expect(toPrintParams({ width: '100mm' }).preferCssPageSize).toBe(false);
    expect(toPrintParams({ margin: { top: '1in', left: '96px' } })).toMatchObject({
      preferCssPageSize: true,
      margin: { top: 1, right: 0, bottom: 0, left: 1 },
      pageCss: '@layer pageworks-page{@page{margin-top:1in !important;margin-left:1in !important}}',
    });
  });

  it.each([
    ['A3', 297 * MM, 420 * MM],
    ['A4', 210 * MM, 297 * MM],
    ['A5', 148 * MM, 210 * MM],
    ['Letter', 8.5, 11],
    ['Legal', 8.5, 14],
    ['Tabloid', 11, 17],
  ])('%s has its ISO/ANSI size and landscape swaps it', (format, w, h) => {
    const portrait = toPrintParams({ format });
    expect(portrait.widthIn).toBeCloseTo(w, 9);
    expect(portrait.heightIn).toBeCloseTo(h, 9);
    const landscape = toPrintParams({ format: format.toUpperCase(), landscape: true });
    expect(landscape.widthIn).toBeCloseTo(h, 9);
    expect(landscape.heightIn).toBeCloseTo(w, 9);
  });

  it('matches the format case-insensitively', () => {
    expect(toPrintParams({ format: 'letter' }).widthIn).toBe(8.5);
    expect(toPrintParams({ format: 'tAbLoId' }).heightIn).toBe(17);
  });

  it('width and height together give the exact size; format and landscape do not apply', () => {
    const p = toPrintParams({ format: 'A3', landscape: true, width: '100mm', height: '5in' });
    expect(p.widthIn).toBeCloseTo(100 * MM, 9);
    expect(p.heightIn).toBe(5);
  });

  it('width alone replaces the width of the (landscape-swapped) format', () => {
    expect(toPrintParams({ format: 'Letter', width: '4in' })).toMatchObject({ widthIn: 4, heightIn: 11 });
    expect(toPrintParams({ format: 'Letter', landscape: true, width: '4in' })).toMatchObject({ widthIn: 4, heightIn: 8.5 });
  });

  it('height alone replaces the height', () => {
    const p = toPrintParams({ format: 'Letter', height: '960px' });
    expect(p).toMatchObject({ widthIn: 8.5, heightIn: 10 });
  });

  it('converts every unit, px at 96 per inch', () => {
    expect(parseDimension('x', '96px')).toBe(1);
    expect(parseDimension('x', '2.54cm')).toBeCloseTo(1, 12);
    expect(parseDimension('x', '25.4mm')).toBeCloseTo(1, 12);
    expect(parseDimension('x', '0.5in')).toBe(0.5);
  });

  it('passes margins, scale and printBackground through', () => {
    const p = toPrintParams({ margin: { top: '1in', left: '10mm', bottom: '0px' }, scale: 0.5, printBackground: true });
    expect(p.margin.top).toBe(1);
    expect(p.margin.left).toBeCloseTo(10 * MM, 12);
    expect(p.margin.bottom).toBe(0);
    expect(p.margin.right).toBe(0);
    expect(p.scale).toBe(0.5);
    expect(p.printBackground).toBe(true);
  });

  it('accepts the scale bounds inclusively', () => {
    expect(toPrintParams({ scale: 0.1 }).scale).toBe(0.1);
    expect(toPrintParams({ scale: 2 }).scale).toBe(2);
  });
});

describe('toPrintParams errors name the field', () => {
  it.each([
    [{ margin: { top: '10pt' } }, 'options.margin.top: "10pt" is not a dimension (mm, cm, in, px)'],
    [{ margin: { right: '1 in' } }, 'options.margin.right: "1 in" is not a dimension (mm, cm, in, px)'],
    [{ width: '10' }, 'options.width: "10" is not a dimension (mm, cm, in, px)'],
    [{ height: '.5in' }, 'options.height: ".5in" is not a dimension (mm, cm, in, px)'],
    [{ height: '-5in' }, 'options.height: "-5in" is not a dimension (mm, cm, in, px)'],
    [{ width: '0mm' }, 'options.width: "0mm" must be greater than 0'],
    [{ height: '201in' }, 'options.height: "201in" is larger than 200in'],
    [{ format: 'B5' }, 'options.format: "B5" is not a supported format (A3, A4, A5, Letter, Legal, Tabloid)'],
    [{ scale: 0.09 }, 'options.scale: 0.09 is out of range (0.1 to 2.0)'],
    [{ scale: 2.01 }, 'options.scale: 2.01 is out of range (0.1 to 2.0)'],
  ])('%j → 400 %s', (options, message) => {
    expect(failure(() => toPrintParams(options))).toEqual({ code: 'INVALID_REQUEST', status: 400, message });
  });

  it('accepts a 200in side and refuses margins that leave no printable area', () => {
    expect(toPrintParams({ width: '200in', height: '1in' }).widthIn).toBe(200);
    expect(failure(() => toPrintParams({ format: 'Letter', margin: { left: '4.25in', right: '4.25in' } })).message).toBe(
      'options.margin: left "4.25in" + right "4.25in" leave no printable width on a page 8.5in wide',
    );
    // In the unit the margins are written in, not in the inches the print is computed in.
    expect(failure(() => toPrintParams({ format: 'Letter', margin: { top: '20cm', bottom: '10cm' } })).message).toBe(
      'options.margin: top "20cm" + bottom "10cm" leave no printable height on a page 27.94cm tall',
    );
    expect(failure(() => toPrintParams({ width: '10mm', height: '10mm', margin: { left: '20mm' } })).message).toBe(
      'options.margin: left "20mm" leaves no printable width on a page 10mm wide',
    );
    expect(failure(() => toPrintParams({ landscape: true, margin: { bottom: '800px' } })).message).toBe(
      'options.margin: bottom "800px" leaves no printable height on a page 793.7px tall',
    );
    expect(toPrintParams({ format: 'Letter', margin: { left: '4in', right: '4in' } }).margin.left).toBe(4);
  });

  it('a page too small to print on names its size field and the size as written; a margin on it, the page as written', () => {
    expect(failure(() => toPrintParams({ width: '0.5px' })).message).toBe(
      'options.width: "0.5px" leaves no printable width (a page must be at least 1px wide)',
    );
    expect(failure(() => toPrintParams({ width: '10mm', height: '0.9px' })).message).toBe(
      'options.height: "0.9px" leaves no printable height (a page must be at least 1px tall)',
    );
    expect(failure(() => toPrintParams({ width: '0.0001mm' })).message).toBe(
      'options.width: "0.0001mm" leaves no printable width (a page must be at least 1px wide)',
    );
    expect(failure(() => toPrintParams({ width: '0.5px', margin: { left: '0.1px' } })).message).toBe(
      'options.margin: left "0.1px" leaves no printable width on a page 0.5px wide',
    );
    expect(failure(() => toPrintParams({ width: '0.0001mm', margin: { right: '1px' } })).message).toBe(
      'options.margin: right "1px" leaves no printable width on a page 0.0001mm wide',
    );
    expect(toPrintParams({ width: '1px', height: '1px' }).widthIn).toBeCloseTo(1 / 96);
  });
});
