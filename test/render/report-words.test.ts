/**
 * The pure parts of the render report: how a URL is shown (no payload, no credentials, 500 characters)
 * and how the Prefer header is read (RFC 7240: case-insensitive, quoted values, first `handling` wins).
 */
import { describe, expect, it } from 'vitest';
import { reportUrl } from '../../src/render/report/report-words.js';
import { prefersStrict } from '../../src/render/request/strict.js';

describe('reportUrl', () => {
  it('shows a data: URL by its media type only', () => {
    expect(reportUrl('data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==')).toBe('data:image/png');
    expect(reportUrl('data:,hello')).toBe('data:text/plain');
    expect(reportUrl('DATA:text/css;charset=utf-8,body{}')).toBe('data:text/css');
  });

  it('drops a user name and password, and cuts at 500 characters', () => {
    expect(reportUrl('https://ann:s3cret@cdn.example.com/a.css')).toBe('https://cdn.example.com/a.css');
    const long = `https://cdn.example.com/${'a'.repeat(600)}`;
    expect(reportUrl(long)).toBe(long.slice(0, 500));
  });
});

describe('prefersStrict', () => {
  it.each([
    ['handling=strict', true],
    ['Handling=STRICT', true],
    ['handling="strict"', true],
    ['respond-async, handling=strict; foo=bar', true],
    [['return=minimal', 'handling=strict'], true],
    ['wait=10, handling = strict', true],
    ['handling=lenient', false],
    ['handling=lenient, handling=strict', false],
    ['x="a,handling=strict", y', false],
    ['respond-async', false],
    ['handling', false],
    [undefined, false],
  ] as Array<[string | string[] | undefined, boolean]>)('%j → %s', (header, strict) => {
    expect(prefersStrict(header)).toBe(strict);
  });
});
