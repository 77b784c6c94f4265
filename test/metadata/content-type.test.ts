/**
 * Content-Type as browsers read it (Fetch's "extract a MIME type", MIME Sniffing's "parse a MIME type"). Each
 * row's encoding is the one headless Chromium reads the same header's page in.
 */
import { describe, expect, it } from 'vitest';
import { isHtmlContentType, parseContentType } from '../../src/metadata/content-type.js';
import { resolveEncodingLabel } from '../../src/metadata/encoding.js';

describe('Content-Type', () => {
  it.each([
    // [combined header values, essence, encoding of the charset parameter]
    ['text/html; charset=utf-8', 'text/html', 'utf-8'],
    ['text/html, text/html; charset=utf-8', 'text/html', 'utf-8'],
    ['text/html; charset=utf-8, text/html', 'text/html', 'utf-8'],
    ['text/html;charset=utf-8, application/json', 'application/json', null],
    ['text/plain, text/html;charset=utf-8', 'text/html', 'utf-8'],
    ['text/html;charset=utf-8, */*', 'text/html', 'utf-8'],
    ['text/html;charset=utf-8;charset=iso-8859-2', 'text/html', 'utf-8'],
    ['text/html;charset=;charset=utf-8', 'text/html', 'utf-8'],
    ['text/html; charset="utf-8', 'text/html', 'utf-8'],
    ['text/html;charset=" utf-8"', 'text/html', 'utf-8'],
    ['text/html;charset="utf\\-8"', 'text/html', 'utf-8'],
    ['TEXT/HTML; CHARSET=UTF-8', 'text/html', 'utf-8'],
    ['text/html ; charset = utf-8', 'text/html', null],
    ['text/html;charset="utf-8,x", text/html', 'text/html', null],
    ['text/ html; charset=utf-8', '', null],
    ['html', '', null],
    ['*/*', '', null],
    ['', '', null],
  ])('%j → %s, %s', (header, essence, encoding) => {
    const parsed = parseContentType(header);
    expect(parsed.essence).toBe(essence);
    expect(parsed.charset === null ? null : resolveEncodingLabel(parsed.charset)).toBe(encoding);
  });

  it('a missing or invalid type is read as HTML (Chromium sniffs it), JSON is not', () => {
    expect([null, 'html', '*/*', 'text/html', 'application/xhtml+xml'].map(isHtmlContentType)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['application/json', 'application/json, application/json', 'text/html, image/png'].map(isHtmlContentType)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('a header of 256 KiB of blanks and quotes is read in linear time', () => {
    const started = process.cpuUsage();
    for (const filler of [' ', '\t', '"\\', ',']) parseContentType(`text/html;charset=utf-8${filler.repeat(256 * 1024)}x`);
    const used = process.cpuUsage(started);
    // A quadratic scan of one 256 Ki run takes minutes; a linear one a few milliseconds.
    expect((used.user + used.system) / 1000).toBeLessThan(2000);
  });
});
