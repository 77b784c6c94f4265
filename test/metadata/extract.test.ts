import { describe, expect, it } from 'vitest';
import { extractMetadata } from '../../src/metadata/extract.js';
import { MetadataExtractor } from '../../src/metadata/metadata-extractor.js';
import { METADATA_FIELDS } from '../../src/metadata/types.js';
import { RULE_PAGES } from './rule-pages.js';

describe('extraction rules (hand-written pages)', () => {
  it.each(RULE_PAGES.map((p) => [p.name, p] as const))('%s', (_name, page) => {
    const fields = extractMetadata(page.bytes, 'text/html', page.url);
    expect(Object.keys(fields)).toEqual([...METADATA_FIELDS]);
    expect(fields).toMatchObject(page.expected);
  });
});

describe('response handling', () => {
  const url = 'https://img.example.com/photos/cat.png?size=large';

  it('non-HTML responses give nulls and the origin favicon', () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    expect(extractMetadata(png, 'image/png', url)).toEqual({
      title: null,
      description: null,
      og_title: null,
      og_description: null,
      og_image: null,
      og_url: null,
      canonical_url: null,
      favicon_url: 'https://img.example.com/favicon.ico',
    });
  });

  it('the Content-Type charset beats a meta charset', () => {
    const bytes = Buffer.concat([
      Buffer.from('<meta charset="utf-8"><title>'),
      Buffer.from([0xcf, 0xf0]),
      Buffer.from('</title>'),
    ]);
    expect(extractMetadata(bytes, 'text/html; charset=windows-1251', url).title).toBe('Пр');
    expect(extractMetadata(bytes, 'text/html; charset="KOI8-R"', url).title).toBe('оП');
  });

  it('application/xhtml+xml and a missing Content-Type are parsed as HTML', () => {
    const bytes = Buffer.from('<title>X</title>');
    expect(extractMetadata(bytes, 'application/xhtml+xml', url).title).toBe('X');
    expect(extractMetadata(bytes, null, url).title).toBe('X');
  });

  it('a declared "replacement" encoding decodes to nothing', () => {
    const bytes = Buffer.from('<meta charset="iso-2022-kr"><title>Hidden</title>');
    expect(extractMetadata(bytes, 'text/html', url)).toMatchObject({
      title: null,
      favicon_url: 'https://img.example.com/favicon.ico',
    });
  });

  it('ISO-2022-JP pages are transcoded before scanning', () => {
    // "日本" in ISO-2022-JP: ESC $ B, 0x46 0x7C 0x4B 0x5C, ESC ( B
    const jis = Buffer.from([0x1b, 0x24, 0x42, 0x46, 0x7c, 0x4b, 0x5c, 0x1b, 0x28, 0x42]);
    const bytes = Buffer.concat([Buffer.from('<meta charset="iso-2022-jp"><title>'), jis, Buffer.from('</title>')]);
    expect(extractMetadata(bytes, 'text/html', url).title).toBe('日本');
  });
});

describe('streaming', () => {
  const html =
    '<!doctype html><html><head><meta charset="utf-8"><title>Streamed &amp; split</title><meta name="description" content="D">' +
    '<meta property="og:title" content="OT"><meta property="og:description" content="OD"><meta property="og:image" content="/i.png">' +
    '<meta property="og:url" content="/u"><link rel="canonical" href="/c"><link rel="icon" href="/f.ico"></head><body>' +
    '<p>' +
    'body text '.repeat(5000) +
    '</p></body></html>';
  const bytes = Buffer.from(html);
  const url = 'https://news.example/a';

  it('gives the same answer for any chunking', () => {
    const whole = extractMetadata(bytes, 'text/html', url);
    for (const size of [1, 2, 3, 7, 64, 1000]) {
      const x = new MetadataExtractor('text/html', url);
      for (let i = 0; i < bytes.length && !x.settled; i += size) x.push(bytes.subarray(i, i + size));
      expect(x.finish()).toEqual(whole);
    }
    expect(whole.title).toBe('Streamed & split');
  });

  it('says "settled" once every field is found and the head has ended', () => {
    const x = new MetadataExtractor('text/html', url);
    const headEnd = html.indexOf('</head>');
    expect(x.push(bytes.subarray(0, headEnd))).toBe(false);
    expect(x.push(bytes.subarray(headEnd, headEnd + 20))).toBe(true);
    expect(x.finish()).toMatchObject({ og_image: 'https://news.example/i.png', favicon_url: 'https://news.example/f.ico' });
  });

  it('does not settle while a field is missing, so an element late in the body still counts', () => {
    const late = Buffer.from(`<title>T</title><body>${'x'.repeat(100_000)}<link rel="canonical" href="/late"></body>`);
    const x = new MetadataExtractor('text/html', url);
    for (let i = 0; i < late.length; i += 4096) expect(x.push(late.subarray(i, i + 4096))).toBe(false);
    expect(x.finish().canonical_url).toBe('https://news.example/late');
  });

  it('does not settle on fields found in a body a later frameset can still remove', () => {
    const inBody =
      '<div><title>T</title><meta name="description" content="D"><meta property="og:title" content="OT"><meta property="og:description" content="OD">' +
      '<meta property="og:image" content="/i.png"><meta property="og:url" content="/u"><link rel="canonical" href="/c"><link rel="icon" href="/f.ico"></div>';
    const page = Buffer.from(`${inBody}${' '.repeat(10_000)}<frameset><frame src="a.html"></frameset>`);
    const x = new MetadataExtractor('text/html', url);
    for (let i = 0; i < page.length; i += 1000) expect(x.push(page.subarray(i, i + 1000))).toBe(i + 1000 >= page.length);
    expect(x.finish()).toEqual({
      ...Object.fromEntries(METADATA_FIELDS.map((f) => [f, null])),
      favicon_url: 'https://news.example/favicon.ico',
    });
    // With text in the body the frameset is ignored, and reading stops once the fields are there (and the
    // charset pre-scan is over: 1024 bytes).
    const prefix = `${inBody}${'text '.repeat(300)}<p>`;
    const withText = Buffer.from(`${prefix}${' '.repeat(10_000)}<frameset></frameset>`);
    const y = new MetadataExtractor('text/html', url);
    expect(y.push(withText.subarray(0, prefix.length))).toBe(true);
    expect(y.finish().title).toBe('T');
  });

  it('a character reference cut by a chunk boundary is read whole', () => {
    const page = Buffer.from('<div>&#32;<meta name="description" content="Removed"></div><frameset></frameset>');
    const whole = extractMetadata(page, 'text/html', url);
    expect(whole.description).toBeNull();
    for (const cut of [6, 7, 8, 9]) {
      const x = new MetadataExtractor('text/html', url);
      x.push(page.subarray(0, cut));
      x.push(page.subarray(cut));
      expect(x.finish()).toEqual(whole);
    }
  });

  it('a tag cut by the end of input is dropped, as the tokenizer does', () => {
    expect(
      extractMetadata(Buffer.from('<title>Cut</title><meta name="description" content="never closed"'), 'text/html', url)
        .description,
    ).toBeNull();
    expect(extractMetadata(Buffer.from('<title>Unclosed title text'), 'text/html', url).title).toBe('Unclosed title text');
  });
});
